#include "msprobe/tensor/dlpack.h"

#include "msprobe/base/error.h"

namespace msprobe {
namespace {

enum : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};
enum : int32_t { kDLCPU = 1, kDLCUDAHost = 3, kDLROCMHost = 11 };

// Returns false when the dtype is not one we support.
bool dtype_from_dlpack(DLDataType t, DType& out) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case kDLBool:
      if (t.bits == 8) return out = DType::kBool, true;
      return false;
    case kDLInt:
      switch (t.bits) {
        case 8: return out = DType::kInt8, true;
        case 16: return out = DType::kInt16, true;
        case 32: return out = DType::kInt32, true;
        case 64: return out = DType::kInt64, true;
      }
      return false;
    case kDLUInt:
      if (t.bits == 8) return out = DType::kUInt8, true;
      return false;
    case kDLFloat:
      switch (t.bits) {
        case 16: return out = DType::kFloat16, true;
        case 32: return out = DType::kFloat32, true;
        case 64: return out = DType::kFloat64, true;
      }
      return false;
    case kDLBfloat:
      if (t.bits == 16) return out = DType::kBFloat16, true;
      return false;
    case kDLComplex:
      if (t.bits == 64) return out = DType::kComplex64, true;
      if (t.bits == 128) return out = DType::kComplex128, true;
      return false;
  }
  return false;
}

}  // namespace

const DLTensor& dlpack_versioned_tensor(const DLManagedTensorVersioned& m) {
  if (m.version.major != 1)
    throw InvalidInput("unsupported DLPack major version " + std::to_string(m.version.major));
  return m.dl_tensor;
}

bool view_from_dlpack(const DLTensor& t, TensorView& view, bool& on_cpu) {
  DType d;
  if (!dtype_from_dlpack(t.dtype, d)) return false;
  view.dtype = d;
  view.data = static_cast<const char*>(t.data) + t.byte_offset;
  view.shape.assign(t.shape, t.shape + t.ndim);
  if (t.strides && t.ndim > 0)
    view.strides.assign(t.strides, t.strides + t.ndim);
  else
    view.strides.clear();
  const int32_t dev = t.device.device_type;
  on_cpu = dev == kDLCPU || dev == kDLCUDAHost || dev == kDLROCMHost;
  return true;
}

std::string unsupported_dlpack_dtype(const DLTensor& t, const std::string& name) {
  std::string what = name;
  if (what.empty())
    what = "DLPack type code " + std::to_string(t.dtype.code) + " with " + std::to_string(t.dtype.bits) +
           " bits";
  return "unsupported tensor dtype " + what +
         ": supported are bool, uint8, int8-int64, float16, bfloat16, float32, float64, "
         "complex64, complex128";
}

}  // namespace msprobe
