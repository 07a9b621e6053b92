// The tensor files of a dump (<dump>/dump_tensor_data), confined to that folder and memory-mapped:
// .pt (torch.save single-tensor zip / zip64, as written by us, by torch.save and by 1.2.1) and
// .npy (MindSpore), read without torch and without copying the data.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "msprobe/tensor/dtype.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace reader {

struct LoadedTensor {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;            // in elements, always filled
  int64_t storage_offset = 0;              // in elements, from `storage`
  const unsigned char* storage = nullptr;  // the whole storage, inside the mapping
  size_t storage_bytes = 0;
  bool requires_grad = false;       // .pt only
  std::string path;                 // the file it came from
  std::shared_ptr<void> keepalive;  // owns the mapping

  // dtype, shape, strides, data pointer into the mapping; valid while keepalive lives.
  TensorView view() const;
};

class TensorStore {
 public:
  explicit TensorStore(std::string dump_tensor_data_dir);
  const std::string& dir() const { return dir_; }

  // data_name: a plain file name inside the folder ("Functional.conv2d.0.forward.input.0.pt" or
  // ".npy"). Refuses (FileError, one line) names with '/', '..', absolute paths, symlinks that
  // lead outside the folder, missing files. A .pt file this reader does not handle (legacy
  // format, containers, compressed) throws PtUnsupported, a FileError naming the file.
  LoadedTensor load(const std::string& data_name) const;

  // The confined path of data_name (same refusals as load), for callers that must fall back to
  // the framework's own loader.
  std::string resolve(const std::string& data_name) const;

 private:
  std::string dir_;
};

}  // namespace reader
}  // namespace msprobe
