// The parts of a compare row name: "Torch.matmul.3.forward.input.0" is the row of input 0 of
// the dump entry "Torch.matmul.3.forward"; "Module.fc.Linear.forward.0.output.0" belongs to the
// entry "Module.fc.Linear.forward.0"; "Module.fc.Linear.parameters_grad.weight" to
// "Module.fc.Linear.parameters_grad" (1.2.1's get_name_and_state).
#pragma once
#include <string>
#include <string_view>

namespace msprobe {
namespace compare {

enum class RowRole { kInput, kKwargs, kParameters, kOutput, kParametersGrad, kUnknown };

struct RowName {
  std::string entry;  // "" when the name has no forward/backward/parameters_grad part
  RowRole role = RowRole::kUnknown;
  bool forward = true;  // false for backward entries
};

RowName split_row_name(std::string_view row);

}  // namespace compare
}  // namespace msprobe
