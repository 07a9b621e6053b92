// Tensor files of a dump (see tensor_source.h): the reader's TensorStore (confined, mapped).
#include "tensor_source.h"

#include "msprobe/reader/tensor_store.h"

namespace msprobe {
namespace compare {

TensorData load_dump_tensor(const std::string& dir, const std::string& file_name) {
  reader::LoadedTensor t = reader::TensorStore(dir).load(file_name);
  TensorData out;
  out.view = t.view();
  out.keepalive = std::move(t.keepalive);
  return out;
}

}  // namespace compare
}  // namespace msprobe
