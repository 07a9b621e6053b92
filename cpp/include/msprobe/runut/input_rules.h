// Numeric input rules of run_ut that act on tensor memory (accuracy-checker spec §1.6).
#pragma once
#include <cstdint>

namespace msprobe {
namespace runut {

// conv1d / conv2d float32 inputs are rounded to "HF32" (11 explicit mantissa bits, rounded half
// up on magnitude) in place: the int32 view becomes ((x >> 11) + 1) >> 1 << 12 (arithmetic
// shifts, as numpy computes it). Golden: 1.0001 -> 1.0, 0.1 -> 0.100006103515625.
void round_to_hf32(float* data, int64_t n);

}  // namespace runut
}  // namespace msprobe
