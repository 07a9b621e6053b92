// op_generate, the whole command (see op_generate.h).
#include "msprobe/jobs/op_generate.h"

#include <string_view>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/input_file.h"
#include "msprobe/base/mapped_file.h"
#include "msprobe/base/path.h"
#include "msprobe/base/strings.h"
#include "msprobe/opgen/api_extract.h"
#include "msprobe/opgen/op_config.h"
#include "msprobe/opgen/op_script.h"

namespace msprobe {
namespace opgen {
namespace {

struct ApiEntries {
  std::string forward_name, backward_name;
  const JsonValue* forward = nullptr;
  const JsonValue* backward = nullptr;
};

// 1.2.1's check_user_settings on the extracted file, with the forward and backward entries found
// by their names (1.2.1 takes the first and the second, whatever they are).
ApiEntries check_entries(const JsonValue& doc, const std::string& path, const OpConfig& cfg) {
  MSPROBE_CHECK(!(doc.is_object() && doc.as_object().empty()), InvalidInput, "json file is empty!");
  MSPROBE_CHECK(doc.is_object(), InvalidInput, "content of json file is not a dict!");
  MSPROBE_CHECK(doc.as_object().size() <= 2, InvalidInput,
                "json file has more than one API, the API only contains forward and backward info");
  ApiEntries e;
  for (const auto& [name, rec] : doc.as_object()) {
    if (ends_with(name, ".backward")) {
      e.backward_name = name;
      e.backward = &rec;
    } else if (e.forward == nullptr) {
      e.forward_name = name;
      e.forward = &rec;
    }
  }
  const std::string api = !cfg.api_name.empty() ? cfg.api_name : doc.as_object().front().first;
  MSPROBE_CHECK(e.forward != nullptr, InvalidInput,
                api + " has no forward entry in " + path +
                    ": replaying it needs the forward call's inputs (dump with data_mode [\"all\"])");
  MSPROBE_CHECK(e.forward->is_object(), InvalidInput, "Invalid forward API data in json_content!");
  if (cfg.backward()) {
    MSPROBE_CHECK(e.backward != nullptr, InvalidInput,
                  "Backward propagation requires contains forward and backward info! (" + path +
                      " holds no " + api + " backward entry)");
    MSPROBE_CHECK(e.backward->is_object(), InvalidInput, "Invalid backward API data in json_content!");
  }
  return e;
}

bool holds_tensor_file(const JsonValue& v) {
  if (v.is_array()) {
    for (const JsonValue& e : v.as_array())
      if (holds_tensor_file(e)) return true;
    return false;
  }
  if (!v.is_object()) return false;
  for (const auto& [k, e] : v.as_object())
    if ((k == "data_name" && e.is_string()) || holds_tensor_file(e)) return true;
  return false;
}

}  // namespace

OpGenerateResult run_op_generate(const std::string& config_path, const std::string& output_dir,
                                 const std::string& template_path) {
  const OpConfig cfg = read_op_config(config_path);
  OpGenerateResult r;
  r.extract_api_path = cfg.extract_api_path;
  r.api_name = cfg.api_name;
  if (!cfg.dump_json_path.empty()) {
    MSPROBE_CHECK(!cfg.api_name.empty(), InvalidInput,
                  "api_name is required with dump_json_path: the API whose entries are extracted");
    const ExtractedApi api = extract_api(cfg.dump_json_path, cfg.api_name);
    write_file_atomically(cfg.extract_api_path, extracted_api_text(api.entries));
    r.extracted = true;
  }
  check_input_file(cfg.extract_api_path, "extract_api_path");
  MSPROBE_CHECK(is_folder(output_dir), FileError, "-o " + output_dir + ": no such folder");
  MSPROBE_CHECK(cfg.iter_times > 0, InvalidInput, "iter_times should be an integer bigger than zero!");

  const JsonValue doc = parse_json_file(cfg.extract_api_path);
  const ApiEntries entries = check_entries(doc, cfg.extract_api_path, cfg);
  r.tensor_data = holds_tensor_file(*entries.forward);
  MSPROBE_CHECK(!cfg.real_data() || r.tensor_data, InvalidInput,
                "data_mode is real_data but " + entries.forward_name + " in " + cfg.extract_api_path +
                    " has no tensor files: dump with task \"tensor\", or use data_mode random_data");

  OpScriptInput in;
  in.call = split_api_entry(cfg.backward() ? entries.backward_name : entries.forward_name);
  split_api_entry(entries.forward_name);  // 1.2.1 checks the forward entry's type
  in.forward = *entries.forward;
  if (cfg.backward()) in.backward = *entries.backward;
  in.source = r.extracted ? cfg.dump_json_path : cfg.extract_api_path;
  in.data_mode = cfg.data_mode;
  in.random_seed = cfg.random_seed;
  in.iter_times = cfg.real_data() ? 1 : cfg.iter_times;
  const MappedFile tmpl(template_path);
  r.api_entry = in.call.entry_name;
  r.script_path = join_path(output_dir, in.call.entry_name + ".py");
  const std::string text = render_op_script(tmpl.text(), in);
  write_file_atomically(r.script_path, text);
  r.standard = script_standard_key(in.call.api_name);
  return r;
}

}  // namespace opgen
}  // namespace msprobe
