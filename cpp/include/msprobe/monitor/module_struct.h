// The monitor's print_struct file (1.2.1, docs 19): {MONITOR_OUTPUT_DIR}/module_struct.json, for
// each module the structure of its input, output and their gradients, json.dump(indent=2) layout:
//   {"0:block.fc1": {"input": {"config": "tuple[1]", "0": "size=(5, 4), dtype=torch.float32"}, ...}}
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace msprobe {
namespace monitor {

using StructFields = std::vector<std::pair<std::string, std::string>>;   // "config", "0", "tensor"
using ModuleStruct = std::vector<std::pair<std::string, StructFields>>;  // "input", "output", ...

// Writes the file (replacing it, mode 0640); throws FileError when it cannot.
void write_module_struct(const std::string& path,
                         const std::vector<std::pair<std::string, ModuleStruct>>& modules);

}  // namespace monitor
}  // namespace msprobe
