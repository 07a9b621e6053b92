// Reading a single-tensor .pt file (torch.save's zip format) without Python: the zip directory,
// the restricted pickle program `torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
// requires_grad, OrderedDict())` and the storage bytes. Only what that program needs is accepted
// (no other callable is ever evaluated), so reading is as safe as torch.load(weights_only=True).
// Anything else (legacy non-zip files, parameters, nested containers, compressed entries, big-
// endian data) raises PtUnsupported: the caller falls back to torch.load(weights_only=True).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "msprobe/tensor/dtype.h"

namespace msprobe {
namespace runut {

class PtUnsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PtTensor {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape, stride;
  int64_t storage_offset = 0;  // in elements
  bool requires_grad = false;
  std::string storage;         // the storage's bytes (numel_of_storage * itemsize)
};

// Throws PtUnsupported (with the reason) for any file it does not read itself.
PtTensor read_pt_file(const std::string& path);
PtTensor read_pt_bytes(const std::string& bytes);

}  // namespace runut
}  // namespace msprobe
