// One API's entries out of a dump.json (see api_extract.h).
#include "msprobe/opgen/api_extract.h"

#include <string_view>
#include <utility>

#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "msprobe/format/json_writer.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/tensor_store.h"

namespace msprobe {
namespace opgen {
namespace {

// The value with every "data_name" replaced by the confined path of its file.
JsonValue with_tensor_paths(const JsonValue& v, const reader::TensorStore& store) {
  if (v.is_array()) {
    JsonValue::Array out;
    out.reserve(v.as_array().size());
    for (const JsonValue& e : v.as_array()) out.push_back(with_tensor_paths(e, store));
    return JsonValue::make_array(std::move(out));
  }
  if (!v.is_object()) return v;
  JsonValue::Object out;
  out.reserve(v.as_object().size());
  for (const auto& [k, e] : v.as_object()) {
    if (k == "data_name" && e.is_string()) {
      out.emplace_back(k, JsonValue::make_string(store.resolve(e.as_string())));
    } else {
      out.emplace_back(k, with_tensor_paths(e, store));
    }
  }
  return JsonValue::make_object(std::move(out));
}

}  // namespace

ExtractedApi extract_api(const std::string& dump_json_path, const std::string& api_name) {
  reader::DumpJsonReader dump(dump_json_path);
  ExtractedApi r;
  r.tensor_data = dump.header().has_real_data();
  const reader::TensorStore store(dump.header().tensor_dir());
  const std::string prefix = api_name + ".";
  JsonValue::Object entries;
  dump.for_each_entry([&](std::string_view name, const JsonValue& record) {
    if (name.size() <= prefix.size() || !starts_with(name, prefix)) return;
    entries.emplace_back(std::string(name), r.tensor_data ? with_tensor_paths(record, store) : record);
  });
  MSPROBE_CHECK(!entries.empty(), InvalidInput,
                "The api '" + api_name + "' does not exist in the file " + dump_json_path + ".");
  r.entries = JsonValue::make_object(std::move(entries));
  return r;
}

std::string extracted_api_text(const JsonValue& entries) {
  std::string out;
  JsonWriter w(out, 0, 4);
  write_json_value(w, entries);
  return out;
}

}  // namespace opgen
}  // namespace msprobe
