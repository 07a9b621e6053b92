// Element types the probe understands, their sizes and names (fp16/bf16 conversions: half.h).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include "msprobe/tensor/half.h"

namespace msprobe {

enum class DType : uint8_t {
  kBool,
  kUInt8,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kComplex64,
  kComplex128,
};

size_t dtype_size(DType t);
bool dtype_is_floating(DType t);  // fp16, bf16, fp32, fp64
bool dtype_is_complex(DType t);
bool dtype_is_integer(DType t);             // uint8..int64 (not bool)
const char* torch_dtype_name(DType t);      // "torch.float32"
const char* mindspore_dtype_name(DType t);  // "Float32"
// Parses "torch.float32", "float32", "Float32", "bf16" ... ; throws InvalidInput.
DType dtype_from_name(const std::string& name);

}  // namespace msprobe
