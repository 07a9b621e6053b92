// Reading a single-tensor .pt file (torch.save's zip format, zip64 included) without Python: the
// zip directory, the restricted pickle program `torch._utils._rebuild_tensor_v2(storage, offset,
// size, stride, requires_grad, OrderedDict())` and the storage bytes. Only what that program needs
// is accepted (no other callable is ever evaluated), so reading is as safe as
// torch.load(weights_only=True). The bytes are parsed in place (a mapping): no copy.
// Anything else (legacy non-zip files, parameters, nested containers, compressed entries, big-
// endian data, corrupt archives) raises PtUnsupported: the caller may fall back to
// torch.load(weights_only=True).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/tensor/dtype.h"

namespace msprobe {

// One line saying why the file is not read here (without the path).
class PtUnsupported : public FileError {
 public:
  using FileError::FileError;
};

struct PtTensor {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape, stride;
  int64_t storage_offset = 0;  // in elements
  bool requires_grad = false;
  const unsigned char* storage = nullptr;  // the storage's bytes, inside the parsed buffer
  size_t storage_bytes = 0;                // numel_of_storage * itemsize; every element of the
                                           // tensor lies inside it (checked)
};

// Parses the file contents [data, data + size). The result points into that buffer.
// Throws PtUnsupported (with the reason) for anything it does not read itself.
PtTensor parse_pt(const unsigned char* data, size_t size);
inline PtTensor parse_pt(std::string_view bytes) {
  return parse_pt(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

}  // namespace msprobe
