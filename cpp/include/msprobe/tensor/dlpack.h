// DLPack (a stable C ABI, dlpack.h v0.8 legacy and v1.x versioned structs): what an exported
// tensor's memory looks like, and the TensorView over it. The bindings only take the struct out
// of its Python capsule.
#pragma once
#include <cstdint>
#include <string>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
  uint32_t major, minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned*);
  uint64_t flags;
  DLTensor dl_tensor;
};

// The tensor of a versioned export; throws InvalidInput for a major version other than 1.
const DLTensor& dlpack_versioned_tensor(const DLManagedTensorVersioned& m);

// Fills `view` (zero-copy) from `t`; on_cpu: the memory is readable on the host. Returns false
// for a dtype the core does not support (the view is then unchanged).
bool view_from_dlpack(const DLTensor& t, TensorView& view, bool& on_cpu);

// The message for an unsupported dtype; `name` is the framework's name of it, or empty (then
// the DLPack code and bits of `t` describe it).
std::string unsupported_dlpack_dtype(const DLTensor& t, const std::string& name);

}  // namespace msprobe
