// The fp16 / bf16 conversions of the probe: scalar, and arrays of bits widened to float (exact
// for every pattern). The vector kernels the per-ISA copies inline are in half_kernels.h.
#pragma once
#include <cstdint>
#include <cstring>

namespace msprobe {

// Exact for every pattern.
inline float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        mant <<= 1;
        ++e;
      } while ((mant & 0x400u) == 0);
      bits = sign | (uint32_t)(127 - 15 - e) << 23 | (mant & 0x3ffu) << 13;
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | (exp + 127 - 15) << 23 | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline float bf16_to_float(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Round-to-nearest-even, NaN preserved.
inline uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

// Round-to-nearest-even, overflow to inf, NaN kept NaN (numpy's float-to-half).
uint16_t float_to_half(float f);

// x rounded to fp16 precision and back (numpy float16 arithmetic held in float).
inline float round_to_half(float x) { return half_to_float(float_to_half(x)); }

// Arrays of bits to float: fp16 with F16C when check_simd_enabled(), else branch-free vector
// code; bf16 is a shift.
void halves_to_floats(const uint16_t* src, int64_t n, float* dst);
void bf16s_to_floats(const uint16_t* src, int64_t n, float* dst);

}  // namespace msprobe
