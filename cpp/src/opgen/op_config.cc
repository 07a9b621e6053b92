// config_op.json checked as msprobe 1.2.1's op_generator checks it (see op_config.h).
#include "msprobe/opgen/op_config.h"

#include <string_view>
#include <utility>

#include "msprobe/base/error.h"
#include "msprobe/base/input_file.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {
namespace opgen {
namespace {

// A string key: "" when absent or null (1.2.1 skips falsy values); any other type is refused.
std::string optional_string(const JsonValue& doc, std::string_view key) {
  const JsonValue* v = doc.find(key);
  if (v == nullptr || v->is_null()) return "";
  MSPROBE_CHECK(v->is_string(), InvalidInput,
                "config_op.json: " + std::string(key) + " must be a string, got " + v->type_name());
  return v->as_string();
}

// 1.2.1's is_int: an int, not a bool (absent or null fails as well).
int64_t required_int(const JsonValue& doc, std::string_view key) {
  const JsonValue* v = doc.find(key);
  MSPROBE_CHECK(v != nullptr && v->is_int(), InvalidInput,
                std::string(key) + " is invalid, it should be an int");
  return v->as_int();
}

// Const.STRING_BLACKLIST: a leading (or ';'-following) + - = % @, ASCII or full-width, which a
// spreadsheet would read as a formula.
bool formula_like(std::string_view s) {
  static const std::string_view kBad[] = {"+",      "-",      "=",      "%",      "@",
                                          "\uFF0B", "\uFF0D", "\uFF1D", "\uFF05", "\uFF20"};
  auto bad_at = [&](size_t i) {
    for (std::string_view b : kBad)
      if (s.substr(i, b.size()) == b) return true;
    return false;
  };
  if (!s.empty() && bad_at(0)) return true;
  for (size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] == ';' && bad_at(i + 1)) return true;
  return false;
}

}  // namespace

OpConfig op_config_from_json(const JsonValue& doc) {
  MSPROBE_CHECK(doc.is_object(), InvalidInput,
                std::string("config_op.json: expected a JSON object, got ") + doc.type_name());
  OpConfig c;
  c.dump_json_path = optional_string(doc, "dump_json_path");
  c.api_name = optional_string(doc, "api_name");
  c.extract_api_path = optional_string(doc, "extract_api_path");
  c.propagation = optional_string(doc, "propagation");
  c.data_mode = optional_string(doc, "data_mode");

  if (!c.dump_json_path.empty()) check_input_file(c.dump_json_path, "dump_json_path");
  if (!c.api_name.empty()) {
    MSPROBE_CHECK(!formula_like(c.api_name), InvalidInput,
                  "api name contains special characters, please check!");
    MSPROBE_CHECK(c.api_name.size() <= kMaxApiNameLength, InvalidInput,
                  "API name " + c.api_name + " is too long!");
  }
  MSPROBE_CHECK(!c.extract_api_path.empty(), InvalidInput,
                "extract_api_path is required: the json file the API's entries are extracted to");
  const std::string folder = folder_of(c.extract_api_path);
  if (!folder.empty()) make_dirs(folder, "extract_api_path");
  MSPROBE_CHECK(c.propagation.empty() || c.propagation == "forward" || c.propagation == "backward",
                InvalidInput, "propagation is invalid, it should be one of ['forward', 'backward']");
  MSPROBE_CHECK(c.data_mode.empty() || c.data_mode == "random_data" || c.data_mode == "real_data",
                InvalidInput, "data_mode is invalid, it should be one of ['random_data', 'real_data']");
  c.random_seed = required_int(doc, "random_seed");
  c.iter_times = required_int(doc, "iter_times");
  return c;
}

OpConfig read_op_config(const std::string& path) {
  check_input_file(path, "-i");
  return op_config_from_json(parse_json_file(path));
}

std::string config_op_json(const OpConfig& c) {
  std::string out;
  JsonWriter w(out, 0, 4);
  w.begin_object();
  for (const auto& [key, value] :
       {std::pair<const char*, const std::string*>{"dump_json_path", &c.dump_json_path},
        {"api_name", &c.api_name},
        {"extract_api_path", &c.extract_api_path},
        {"propagation", &c.propagation},
        {"data_mode", &c.data_mode}}) {
    w.key(key);
    w.string(*value);
  }
  w.key("random_seed");
  w.integer(c.random_seed);
  w.key("iter_times");
  w.integer(c.iter_times);
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace opgen
}  // namespace msprobe
