// Element types the probe understands, their sizes, names and scalar conversions.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

namespace msprobe {

enum class DType : uint8_t {
  kBool, kUInt8, kInt8, kInt16, kInt32, kInt64,
  kFloat16, kBFloat16, kFloat32, kFloat64, kComplex64, kComplex128,
};

size_t dtype_size(DType t);
bool dtype_is_floating(DType t);   // fp16, bf16, fp32, fp64
bool dtype_is_complex(DType t);
bool dtype_is_integer(DType t);    // uint8..int64 (not bool)
const char* torch_dtype_name(DType t);      // "torch.float32"
const char* mindspore_dtype_name(DType t);  // "Float32"
// Parses "torch.float32", "float32", "Float32", "bf16" ... ; throws InvalidInput.
DType dtype_from_name(const std::string& name);

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
      do { mant <<= 1; ++e; } while ((mant & 0x400u) == 0);
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

uint16_t float_to_half(float f);

}  // namespace msprobe
