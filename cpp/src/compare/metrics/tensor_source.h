// Loading the tensor file of a result row from a dump's dump_tensor_data folder.
#pragma once
#include <memory>
#include <string>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace compare {

struct TensorData {
  TensorView view;
  std::shared_ptr<void> keepalive;  // owns the memory view points into
};

// Loads <dir>/<file_name> (.pt or .npy). Throws FileError (one line) when the name leaves the
// folder, the file is missing or cannot be read.
TensorData load_dump_tensor(const std::string& dir, const std::string& file_name);

}  // namespace compare
}  // namespace msprobe
