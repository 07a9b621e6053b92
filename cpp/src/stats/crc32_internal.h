// Internal CRC-32 entry points, for tests and benchmarks: pick the implementation explicitly.
#pragma once
#include <cstddef>
#include <cstdint>

namespace msprobe {

// 0: slice-by-8 tables; 1: PCLMULQDQ folding; 2: VPCLMULQDQ (256-bit) folding.
int crc32_best_impl();
// Like crc32_update, with implementation `impl`, lowered to the best one the CPU supports.
uint32_t crc32_update_with(int impl, uint32_t crc, const void* data, size_t len);

}  // namespace msprobe
