// The standalone reproduction script of op_generate: a template (shipped with the Python package)
// filled with one API call's name, arguments and settings. The arguments become Python source
// (tensors as `tensor({...})` descriptions the script loads or draws at random; other values as
// literals), so the script needs nothing but torch.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "msprobe/format/json_value.h"

namespace msprobe {
namespace opgen {

// An entry name as 1.2.1's op_generator splits it: "Functional.softmax.0.forward" (4 parts) or
// "Torch.linalg.norm.0.forward" (5 parts, the name keeps its prefix: "linalg.norm").
struct ApiCall {
  std::string entry_name;  // "Functional.softmax.0.forward"
  std::string api_type;    // "Functional", "Tensor" or "Torch"
  std::string api_name;    // "softmax"
  std::string ordinal;     // "0"
  std::string direction;   // "forward" or "backward"
  // "torch.nn.functional.softmax", "torch.Tensor.add", "torch.matmul".
  std::string function() const;
};
// Throws InvalidInput "type X of API is not supported!" (1.2.1's message) for other types
// (Module, Distributed, Aten, ...), and names the entry when it has another number of parts.
ApiCall split_api_entry(const std::string& entry_name);

struct OpScriptInput {
  ApiCall call;           // the entry the script is named after (forward or backward)
  JsonValue forward;      // the forward record: input_args, input_kwargs
  JsonValue backward;     // the backward record (null for a forward script): its input
  std::string source;     // the file the entries came from, for the script's docstring
  std::string data_mode;  // "random_data" or "real_data"
  int64_t random_seed = 1234;
  int64_t iter_times = 1;  // already 1 in real_data mode
};

// The template with every {{NAME}} filled: API_ENTRY, API_FUNCTION, API_NAME, PROPAGATION,
// STANDARD (the 1.2.1 standard key of the API), DATA_MODE, RANDOM_SEED, ITER_TIMES, SOURCE, ARGS,
// KWARGS, GRAD_OUTPUTS. Throws InvalidInput naming an unknown placeholder.
std::string render_op_script(std::string_view template_text, const OpScriptInput& in);

// The standard the script judges the API by, 1.2.1's key: "binary_consistency",
// "absolute_threshold", "ulp_compare", "thousandth_threshold" for the APIs of those lists, else
// "benchmark" (1.2.1's op_generate knows no accumulative-error standard).
const char* script_standard_key(const std::string& api_name);

// A value of a dump record as Python source (exposed for tests): tensors -> tensor({...}),
// {"type": "int", "value": 3} -> 3, slices, dtypes, devices, Size, ellipsis, nested lists.
std::string python_source(const JsonValue& v);

}  // namespace opgen
}  // namespace msprobe
