// config_op.json of op_generate (msprobe 1.2.1's fields, checks and messages):
//   {"dump_json_path": "./dump.json", "api_name": "Functional.softmax.0",
//    "extract_api_path": "./Functional.softmax.0.json", "propagation": "forward",
//    "data_mode": "random_data", "random_seed": 1234, "iter_times": 1}
// dump_json_path and api_name may be left out when extract_api_path already holds the extracted
// entries; random_seed and iter_times must be ints (1.2.1 refuses a config without them).
#pragma once
#include <cstdint>
#include <string>

#include "msprobe/format/json_value.h"

namespace msprobe {
namespace opgen {

// 1.2.1 refuses API names over 30 characters, which rejects real ones
// ("Functional.scaled_dot_product_attention.0"); ours allows this many (docs/compatibility.md).
constexpr size_t kMaxApiNameLength = 255;

struct OpConfig {
  std::string dump_json_path;    // "" when absent (the entries are already extracted)
  std::string api_name;          // "" when absent
  std::string extract_api_path;  // where the API's entries are written / read
  std::string propagation;       // "forward", "backward" or "" (forward)
  std::string data_mode;         // "random_data", "real_data" or "" (random_data)
  int64_t random_seed = 1234;
  int64_t iter_times = 1;

  bool backward() const { return propagation == "backward"; }
  bool real_data() const { return data_mode == "real_data"; }
};

// The checks of 1.2.1's CommonConfig, in its order, with its messages (InvalidInput, one line);
// missing files are FileErrors naming the key. Creates the folder of extract_api_path (0750) as
// 1.2.1 does.
OpConfig op_config_from_json(const JsonValue& doc);
// Reads and checks config_op.json (FileError naming the file when it is not JSON).
OpConfig read_op_config(const std::string& path);

// config_op.json text (1.2.1's keys in its order, indent 4) for `c`; read_op_config reads it back.
std::string config_op_json(const OpConfig& c);

}  // namespace opgen
}  // namespace msprobe
