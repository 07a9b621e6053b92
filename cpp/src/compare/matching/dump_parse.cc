// Reading dump.json into merged entries (see dump_parse.h).
#include "dump_parse.h"

#include <functional>

#include "msprobe/base/error.h"
#include "msprobe/base/path.h"
#include "msprobe/format/py_value.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/side_files.h"

namespace msprobe {
namespace compare {

namespace {

// The one place that reads dump.json: streamed one entry at a time, torn files repaired.
void read_dump_entries(const std::string& path, std::string& task, std::string& repair_note,
                       const std::function<void(const std::string&, const JsonValue&)>& fn) {
  reader::DumpJsonReader in(path);
  task = in.header().task;
  std::string name;
  in.for_each_entry([&](std::string_view n, const JsonValue& record) {
    name.assign(n.data(), n.size());
    fn(name, record);
  });
  if (in.note().torn) repair_note = in.note().message;
  const std::string incomplete = reader::describe_probe_disabled(in.header().probe_disabled);
  if (!incomplete.empty()) repair_note += (repair_note.empty() ? "" : "; ") + path + ": " + incomplete;
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

}  // namespace

StackMap load_stack_map(const std::string& path, std::string* repair_note) {
  reader::RepairNote note;
  StackMap map;
  for (auto& kv : reader::read_stack_json(path, &note)) {
    JsonValue::Array lines;
    lines.reserve(kv.second.size());
    for (auto& line : kv.second) lines.push_back(JsonValue::make_string(std::move(line)));
    map.emplace(kv.first, JsonValue::make_array(std::move(lines)));
  }
  if (note.torn && repair_note) *repair_note = note.message;
  return map;
}

ParsedDump parse_dump(const std::string& path, const StackMap* stack) {
  ParsedDump dump;
  dump.path = path;
  dump.folder = folder_of(path);
  std::unordered_map<std::string, size_t> seen;
  read_dump_entries(path, dump.task, dump.repair_note, [&](const std::string& name, const JsonValue& record) {
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
        e.op.stack = st;
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
  std::string task, note;
  read_dump_entries(path, task, note, fn);
}

}  // namespace compare
}  // namespace msprobe
