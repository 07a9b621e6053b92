// Non-finite scan: see nonfinite.h. Blocks of 256 elements are OR-reduced without branches (the
// compiler vectorises the loop), with an early exit between blocks.
#include "msprobe/stats/nonfinite.h"

#include <cstdint>
#include <cstring>

namespace msprobe {

namespace {
constexpr int64_t kBlock = 256;

template <typename U, U kExp>
bool scan(const void* p, int64_t n) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  int64_t i = 0;
  while (i < n) {
    const int64_t m = n - i < kBlock ? n - i : kBlock;
    const unsigned char* q = b + i * (int64_t)sizeof(U);
    U hit = 0;
    for (int64_t j = 0; j < m; ++j) {
      U x;
      std::memcpy(&x, q + j * (int64_t)sizeof(U), sizeof(U));  // an unaligned load
      hit |= (U)((x & kExp) == kExp);
    }
    if (hit) return true;
    i += m;
  }
  return false;
}

template <typename U, U kExp>
bool scan_view(const TensorView& t, int64_t components) {
  bool found = false;
  t.for_each_run([&](const void* p, int64_t count) {
    if (!found) found = scan<U, kExp>(p, count * components);
  });
  return found;
}
}  // namespace

bool has_nonfinite(const TensorView& t) {
  if (t.data == nullptr) return false;
  switch (t.dtype) {
    case DType::kFloat16: return scan_view<uint16_t, 0x7c00u>(t, 1);
    case DType::kBFloat16: return scan_view<uint16_t, 0x7f80u>(t, 1);
    case DType::kFloat32: return scan_view<uint32_t, 0x7f800000u>(t, 1);
    case DType::kFloat64: return scan_view<uint64_t, 0x7ff0000000000000ull>(t, 1);
    case DType::kComplex64: return scan_view<uint32_t, 0x7f800000u>(t, 2);
    case DType::kComplex128: return scan_view<uint64_t, 0x7ff0000000000000ull>(t, 2);
    default: return false;
  }
}

}  // namespace msprobe
