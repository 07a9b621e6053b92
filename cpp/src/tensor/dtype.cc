// Element types: sizes, predicates, framework names.
#include "msprobe/tensor/dtype.h"

#include <algorithm>
#include <cctype>

#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"

namespace msprobe {

namespace {

struct DTypeInfo {
  DType type;
  size_t size;
  const char* torch_name;
  const char* ms_name;
};

// Indexed by the enum value.
constexpr DTypeInfo kInfo[] = {
    {DType::kBool, 1, "torch.bool", "Bool"},
    {DType::kUInt8, 1, "torch.uint8", "UInt8"},
    {DType::kInt8, 1, "torch.int8", "Int8"},
    {DType::kInt16, 2, "torch.int16", "Int16"},
    {DType::kInt32, 4, "torch.int32", "Int32"},
    {DType::kInt64, 8, "torch.int64", "Int64"},
    {DType::kFloat16, 2, "torch.float16", "Float16"},
    {DType::kBFloat16, 2, "torch.bfloat16", "BFloat16"},
    {DType::kFloat32, 4, "torch.float32", "Float32"},
    {DType::kFloat64, 8, "torch.float64", "Float64"},
    {DType::kComplex64, 8, "torch.complex64", "Complex64"},
    {DType::kComplex128, 16, "torch.complex128", "Complex128"},
};
constexpr size_t kNumTypes = sizeof(kInfo) / sizeof(kInfo[0]);

const DTypeInfo& info(DType t) {
  size_t i = static_cast<size_t>(t);
  if (i >= kNumTypes) throw InvalidInput("invalid dtype enum value " + std::to_string(i));
  return kInfo[i];
}

// Lower-case spellings accepted by dtype_from_name, after a "torch." / "numpy." / "np." /
// "mindspore." / "ms." prefix is stripped and the rest is lower-cased. Covers torch names and
// aliases (torch.half, torch.long...), numpy names and MindSpore names ("Float32" -> "float32").
// Spellings whose meaning differs between frameworks ("int", "float": int32/float32 in torch,
// int64/float64 in numpy) are accepted only with the "torch." prefix.
struct Alias {
  const char* name;
  DType type;
  bool torch_only;
};
constexpr Alias kAliases[] = {
    {"bool", DType::kBool, false},           {"bool_", DType::kBool, false},
    {"uint8", DType::kUInt8, false},         {"int8", DType::kInt8, false},
    {"int16", DType::kInt16, false},         {"short", DType::kInt16, true},
    {"int32", DType::kInt32, false},         {"int", DType::kInt32, true},
    {"int64", DType::kInt64, false},         {"long", DType::kInt64, true},
    {"float16", DType::kFloat16, false},     {"half", DType::kFloat16, false},
    {"fp16", DType::kFloat16, false},        {"bfloat16", DType::kBFloat16, false},
    {"bf16", DType::kBFloat16, false},       {"float32", DType::kFloat32, false},
    {"float", DType::kFloat32, true},        {"single", DType::kFloat32, false},
    {"fp32", DType::kFloat32, false},        {"float64", DType::kFloat64, false},
    {"double", DType::kFloat64, false},      {"fp64", DType::kFloat64, false},
    {"complex64", DType::kComplex64, false}, {"cfloat", DType::kComplex64, true},
    {"csingle", DType::kComplex64, false},   {"complex128", DType::kComplex128, false},
    {"cdouble", DType::kComplex128, false},
};

}  // namespace

size_t dtype_size(DType t) { return info(t).size; }

bool dtype_is_floating(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}

bool dtype_is_complex(DType t) { return t == DType::kComplex64 || t == DType::kComplex128; }

bool dtype_is_integer(DType t) {
  return t == DType::kUInt8 || t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 ||
         t == DType::kInt64;
}

const char* torch_dtype_name(DType t) { return info(t).torch_name; }

const char* mindspore_dtype_name(DType t) { return info(t).ms_name; }

DType dtype_from_name(const std::string& name) {
  std::string s = name;
  bool torch_prefix = false;
  for (const char* prefix : {"torch.", "numpy.", "np.", "mindspore.", "ms."}) {
    size_t n = std::char_traits<char>::length(prefix);
    if (s.size() > n && s.compare(0, n, prefix) == 0) {
      torch_prefix = prefix[0] == 't';
      s.erase(0, n);
      break;
    }
  }
  s = to_lower(std::move(s));
  for (const Alias& a : kAliases) {
    if (s == a.name && (!a.torch_only || torch_prefix)) return a.type;
  }
  throw InvalidInput("unknown dtype '" + name +
                     "': expected a torch, numpy or MindSpore name such as torch.float32, "
                     "float32, Float32, torch.bfloat16, BFloat16, bool, int64 or complex64");
}

}  // namespace msprobe
