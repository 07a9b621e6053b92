// fp16 / bf16 conversions (half.h): the scalar fp32 -> fp16 rounding and the array widenings.
#include "msprobe/tensor/half.h"

#include "msprobe/base/cpu_features.h"
#include "msprobe/tensor/half_kernels.h"

namespace msprobe {

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) {  // inf or NaN; NaN stays NaN (quiet bit set, top payload kept)
    if (x == 0x7f800000u) return sign | 0x7c00u;
    return (uint16_t)(sign | 0x7e00u | ((x >> 13) & 0x3ffu));
  }
  if (x >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to inf
  if (x < 0x38800000u) {                        // below 2^-14: half subnormal or zero
    const uint32_t e = x >> 23;
    if (e < 102) return sign;  // below 2^-25 (the tie 2^-25 itself rounds to even 0 below)
    const uint32_t m = (x & 0x7fffffu) | 0x800000u;  // value = m * 2^(e-150)
    const uint32_t shift = 126 - e;                  // to units of 2^-24; 14..24
    uint32_t r = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return (uint16_t)(sign | r);  // r == 0x400 is the smallest normal, encoded the same
  }
  // Normal: rebias the exponent and round the mantissa to 10 bits, nearest-even.
  uint32_t r = x + 0xfffu + ((x >> 13) & 1u);
  r -= (uint32_t)(127 - 15) << 23;
  return (uint16_t)(sign | (r >> 13));
}

void halves_to_floats(const uint16_t* src, int64_t n, float* dst) {
#ifdef MSPROBE_HALF_X86
  if (check_simd_enabled()) return half_kernels::halves_to_floats_f16c(src, dst, n);
#endif
  half_kernels::halves_to_floats_vec<16>(src, dst, n);
}

void bf16s_to_floats(const uint16_t* src, int64_t n, float* dst) {
  half_kernels::bf16s_to_floats_vec<16>(src, dst, n);
}

}  // namespace msprobe
