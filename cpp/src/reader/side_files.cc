// stack.json and construct.json, read in place a member at a time, tolerant of a cut end.
#include "msprobe/reader/side_files.h"

#include <functional>

#include "msprobe/base/error.h"
#include "msprobe/base/mapped_file.h"
#include "object_members.h"

namespace msprobe {
namespace reader {

namespace {

// Walks the top-level object of `path`; an empty file counts as cut at byte 0 (1.2.1 creates the
// files empty and fills them at the first flush).
void walk_file(const std::string& path, const char* what, RepairNote* note,
               const std::function<void(std::string&&, JsonValue&&)>& fn) {
  MappedFile file(path);
  const std::string_view text = detail::without_zero_tail(file.text());
  if (note) *note = RepairNote();
  JsonCursor cur(text, path);
  const int first = cur.peek();
  if (first >= 0 && first != '{') cur.fail("the top level must be a JSON object");
  detail::MemberWalk walk = detail::walk_members(cur, text, fn);
  if (walk.complete && cur.peek() >= 0) {
    cur.fail("expected end of input after the JSON object");
  }
  if (note) note->records_kept = walk.kept;
  if (walk.torn) detail::describe_cut(path, file.size(), text.size(), walk, what, note);
}

const std::vector<std::string>& string_list(const std::string& path, const std::string& key,
                                            const JsonValue& v, std::vector<std::string>* out) {
  out->clear();
  if (!v.is_array()) {
    throw FileError(path + ": \"" + detail::printable(key) + "\": expected a list of strings, found " +
                    v.type_name());
  }
  out->reserve(v.as_array().size());
  for (const JsonValue& s : v.as_array()) {
    if (!s.is_string()) {
      throw FileError(path + ": \"" + detail::printable(key) + "\": expected a list of strings, found " +
                      s.type_name() + " in it");
    }
    out->push_back(s.as_string());
  }
  return *out;
}

}  // namespace

std::unordered_map<std::string, std::vector<std::string>> read_stack_json(const std::string& path,
                                                                          RepairNote* note) {
  std::unordered_map<std::string, std::vector<std::string>> out;
  std::vector<std::string> names, lines;
  walk_file(path, "stacks", note, [&](std::string&& key, JsonValue&& v) {
    // Interned form (8.1.0 and ours when deduplicating): "<idx>": [[names...], [lines...]].
    if (v.is_array() && !v.as_array().empty() && v.as_array()[0].is_array()) {
      const auto& pair = v.as_array();
      if (pair.size() != 2) {
        throw FileError(path + ": \"" + detail::printable(key) +
                        "\": expected [[names...], [stack lines...]]");
      }
      string_list(path, key, pair[0], &names);
      string_list(path, key, pair[1], &lines);
      for (std::string& n : names) out[std::move(n)] = lines;
      return;
    }
    // 1.2.1 form: "<entry name>": [stack lines...].
    string_list(path, key, v, &lines);
    out[std::move(key)] = std::move(lines);
  });
  return out;
}

std::vector<std::pair<std::string, std::string>> read_construct_json(const std::string& path,
                                                                     RepairNote* note) {
  std::vector<std::pair<std::string, std::string>> out;
  walk_file(path, "entries", note, [&](std::string&& key, JsonValue&& v) {
    if (v.is_null()) {
      out.emplace_back(std::move(key), std::string());
    } else if (v.is_string()) {
      out.emplace_back(std::move(key), v.as_string());
    } else {
      throw FileError(path + ": \"" + detail::printable(key) +
                      "\": expected the parent's name or null, found " + v.type_name());
    }
  });
  return out;
}

std::unordered_map<std::string, std::string> read_tensor_names_json(const std::string& path,
                                                                    RepairNote* note) {
  std::unordered_map<std::string, std::string> out;
  walk_file(path, "entries", note, [&](std::string&& key, JsonValue&& v) {
    if (!v.is_string())
      throw FileError(path + ": \"" + detail::printable(key) + "\": expected a tensor's name, found " +
                      v.type_name());
    out.emplace(std::move(key), v.as_string());
  });
  return out;
}

}  // namespace reader
}  // namespace msprobe
