// Reading dump.json into merged entries (see dump_parse.h).
#include "dump_parse.h"

#include <functional>

#include "msprobe/base/error.h"
#include "py_value.h"

namespace msprobe {
namespace compare {

namespace {

// The one place that reads dump.json. TODO(reader): switch to reader::DumpJsonReader (streamed,
// torn-tolerant) once the reader branch has its implementation.
void read_dump_entries(const std::string& path, std::string& task,
                       const std::function<void(const std::string&, const JsonValue&)>& fn) {
  const JsonValue doc = parse_json_file(path);
  if (!doc.is_object()) throw FileError(path + ": not a JSON object");
  const JsonValue* t = doc.find("task");
  task = t && t->is_string() ? t->as_string() : std::string();
  const JsonValue* data = doc.find("data");
  if (!data || !data->is_object()) throw FileError(path + ": no \"data\" object");
  for (const auto& kv : data->as_object()) fn(kv.first, kv.second);
}

// 'md5' in x, for the containers md5_find looks into.
bool holds_md5(const JsonValue& x) {
  if (x.is_object()) return x.find("md5") != nullptr;
  if (x.is_array()) {
    for (const auto& e : x.as_array())
      if (e.is_string() && e.as_string() == "md5") return true;
    return false;
  }
  if (x.is_string()) return x.as_string().find("md5") != std::string::npos;
  return false;
}

// md5_find over one entry.
bool entry_has_md5(const JsonValue& record) {
  if (!record.is_object()) return false;
  for (const auto& kv : record.as_object()) {
    const JsonValue& v = kv.second;
    if (v.is_array()) {
      for (const auto& d : v.as_array())
        if (py_truthy(d) && holds_md5(d)) return true;
    } else if (py_truthy(v) && holds_md5(v)) {
      return true;
    }
  }
  return false;
}

bool has_pt_name(const JsonValue& v) {
  if (v.is_object()) {
    for (const auto& kv : v.as_object()) {
      if (kv.first == "data_name" && kv.second.is_string()) {
        const std::string& s = kv.second.as_string();
        if (s.size() > 3 && s.compare(s.size() - 3, 3, ".pt") == 0) return true;
      }
      if (has_pt_name(kv.second)) return true;
    }
  } else if (v.is_array()) {
    for (const auto& e : v.as_array())
      if (has_pt_name(e)) return true;
  }
  return false;
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash == 0 ? 1 : slash);
}

}  // namespace

StackMap load_stack_map(const std::string& path) {
  const JsonValue doc = parse_json_file(path);
  StackMap map;
  if (!doc.is_object()) throw FileError(path + ": not a JSON object");
  for (const auto& kv : doc.as_object()) {
    const JsonValue& v = kv.second;
    const bool interned = v.is_array() && v.as_array().size() == 2 && v.as_array()[0].is_array() &&
                          v.as_array()[1].is_array();
    if (interned) {
      for (const auto& name : v.as_array()[0].as_array())
        if (name.is_string()) map[name.as_string()] = v.as_array()[1];
    } else {
      map[kv.first] = v;
    }
  }
  return map;
}

ParsedDump parse_dump(const std::string& path, const StackMap* stack) {
  ParsedDump dump;
  dump.path = path;
  dump.folder = folder_of(path);
  std::unordered_map<std::string, size_t> seen;
  read_dump_entries(path, dump.task, [&](const std::string& name, const JsonValue& record) {
    if (!dump.has_md5 && entry_has_md5(record)) dump.has_md5 = true;
    if (!dump.has_pt_data_name && has_pt_name(record)) dump.has_pt_data_name = true;
    ParsedEntry e;
    e.op.entry = name;
    try {
      check_entry_name(name);
      check_entry_strings(record, name);
      std::vector<OpItem> items = read_op(record, name);
      const JsonValue* st = nullptr;
      if (stack) {
        auto it = stack->find(name);
        if (it != stack->end()) {
          st = &it->second;
          check_stack_strings(*st, name);
        }
      }
      if (!items.empty()) {
        e.op = merge_items(name, std::move(items));
        e.op.has_stack = stack != nullptr;
        if (st) e.op.stack = *st;
      }
    } catch (const InvalidInput& err) {
      e.error = path + ": " + err.what();
    }
    auto it = seen.find(name);
    if (it == seen.end()) {
      seen.emplace(name, dump.entries.size());
      dump.entries.push_back(std::move(e));
    } else {
      dump.entries[it->second] = std::move(e);
    }
  });
  return dump;
}

void for_each_record(const std::string& path,
                     const std::function<void(const std::string&, const JsonValue&)>& fn) {
  std::string task;
  read_dump_entries(path, task, fn);
}

}  // namespace compare
}  // namespace msprobe
