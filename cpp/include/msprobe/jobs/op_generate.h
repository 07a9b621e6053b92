// op_generate (msprobe 1.2.1's `msprobe -f pytorch op_generate -i config_op.json -o DIR`): the
// whole command. Reads and checks config_op.json, extracts the API's entries from dump.json into
// extract_api_path (when dump_json_path is given), checks them as 1.2.1 does, and writes
// DIR/<entry>.py (Functional.softmax.0.forward.py, ... .backward.py) from the script template.
#pragma once
#include <string>

namespace msprobe {
namespace opgen {

struct OpGenerateResult {
  std::string script_path;       // DIR/<entry>.py
  std::string api_name;          // config_op.json's api_name ("" when absent)
  std::string api_entry;         // "Functional.softmax.0.forward"
  std::string extract_api_path;  // the extracted entries (written here when `extracted`)
  bool extracted = false;        // extract_api_path was written from dump_json_path
  bool tensor_data = false;      // the script loads the dumped tensors (else draws them at random)
  std::string standard;          // the API's 1.2.1 standard key ("benchmark", "ulp_compare", ...)
};

// Every user error is one line: InvalidInput (a config value, an API that is not in the dump, a
// backward without its forward, ...) or FileError (a missing file or folder).
OpGenerateResult run_op_generate(const std::string& config_path, const std::string& output_dir,
                                 const std::string& template_path);

}  // namespace opgen
}  // namespace msprobe
