// A scoped tensor re-dump config.json (see redump_config.h).
#include "msprobe/config/redump_config.h"

#include <initializer_list>
#include <utility>

#include "msprobe/base/strings.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {
namespace {

bool is_module_entry(const std::string& entry) {
  return starts_with(entry, "Module.") || starts_with(entry, "Cell.");
}

// "key": [v] ([] for -1).
void int_list(JsonWriter& w, const char* key, int v) {
  w.key(key);
  w.begin_array();
  if (v >= 0) w.integer(v);
  w.end_array();
}

// "key": [items...].
void string_list(JsonWriter& w, const char* key, std::initializer_list<std::string> items) {
  w.key(key);
  w.begin_array();
  for (const std::string& s : items) w.string(s);
  w.end_array();
}

}  // namespace

std::string redump_list_item(const std::string& entry) {
  if (is_module_entry(entry)) return entry;
  for (const char* dir : {".forward", ".backward"}) {
    if (ends_with(entry, dir)) return entry.substr(0, entry.size() - std::string(dir).size()) + ".";
  }
  return entry;
}

std::string redump_config_json(const RedumpScope& scope) {
  std::string out;
  JsonWriter w(out, 0, 4);
  w.begin_object();
  for (const auto& [key, value] :
       {std::pair<const char*, std::string>{"task", "tensor"}, {"dump_path", scope.dump_path}}) {
    w.key(key);
    w.string(value);
  }
  int_list(w, "rank", scope.rank);
  int_list(w, "step", scope.step);
  w.key("level");
  w.string(is_module_entry(scope.entry) ? "mix" : "L1");
  w.key("tensor");
  w.begin_object();
  string_list(w, "scope", {});
  string_list(w, "list", {redump_list_item(scope.entry)});
  string_list(w, "data_mode", {"all"});
  w.end_object();
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace msprobe
