// dump.json read in place from a mapping: the header keys first, then "data" one entry at a time.
#include "msprobe/reader/dump_json_reader.h"

#include <utility>

#include "msprobe/base/error.h"
#include "msprobe/base/mapped_file.h"
#include "msprobe/base/path.h"
#include "msprobe/format/json_python.h"
#include "object_members.h"

namespace msprobe {
namespace reader {

namespace {

const char* describe_start(int c) {
  switch (c) {
    case '[': return "a list";
    case '"': return "a string";
    case 't':
    case 'f': return "a boolean";
    case 'n': return "null";
    default: return (c == '-' || (c >= '0' && c <= '9')) ? "a number" : "no JSON value";
  }
}

constexpr size_t kNoData = (size_t)-1;

// The probe writes its "probe_disabled" note as the last member of the top-level object, on a
// line of its own; a newline cannot occur inside a JSON string, so this text is that member.
constexpr std::string_view kDisabledKey = "\n \"probe_disabled\": ";
constexpr size_t kNoteWindow = 64 * 1024;

}  // namespace

struct DumpJsonReader::Mapping {
  explicit Mapping(const std::string& path) : file(path, MappedFile::kSequential) {}
  MappedFile file;
  std::string_view text;  // without a zero-filled tail
};

bool DumpHeader::has_real_data() const { return py_truthy(dump_data_dir); }

DumpJsonReader::DumpJsonReader(const std::string& path) : path_(path) {
  map_ = std::make_shared<Mapping>(path);
  map_->text = detail::without_zero_tail(map_->file.text());
  const std::string_view text = map_->text;
  header_.folder = folder_of(path);
  data_begin_ = kNoData;

  JsonCursor cur(text, path);
  const int first = cur.peek();
  if (first < 0) throw FileError(path + ": is empty: no JSON object with a \"data\" object");
  if (first != '{') {
    throw FileError(path + ": the top level must be a JSON object with a \"data\" object, found " +
                    describe_start(first));
  }
  // Header keys come before "data" in every dump we know; should one follow it, the entries are
  // stepped over (one at a time) to reach it.
  int header_keys_seen = 0;
  bool torn = false;
  auto read_header_value = [&](const std::string& key) {
    std::string* field = key == "task"        ? &header_.task
                         : key == "level"     ? &header_.level
                         : key == "framework" ? &header_.framework
                                              : nullptr;
    JsonValue v = cur.parse_value();
    if (field) {
      ++header_keys_seen;
      *field = v.is_string() ? v.as_string() : std::string();
    } else if (key == "dump_data_dir") {
      ++header_keys_seen;
      header_.dump_data_dir = std::move(v);
    }
  };
  detail::MemberWalk top;
  try {
    cur.expect('{', "");
    for (bool first_member = true;; first_member = false) {
      int c = cur.peek();
      if (c == '}' && first_member) break;
      if (!first_member) {
        if (c == '}') break;
        if (c != ',') cur.fail("expected ',' or '}' in the top-level object");
        cur.expect(',', "");
      }
      std::string key = cur.parse_string();
      cur.expect(':', "after an object key");
      if (key != "data") {
        read_header_value(key);
        continue;
      }
      c = cur.peek();
      if (c == 'n' || c < 0) {
        if (c < 0) {
          torn = true;
          break;
        }
        JsonValue v = cur.parse_value();  // null (anything else starting with 'n' fails here)
        throw FileError(path + ": no \"data\" object: something wrong with the dump, no data found");
      }
      if (c != '{') {
        throw FileError(path + ": \"data\" must be an object of records, found " + describe_start(c));
      }
      data_begin_ = cur.pos();
      if (header_keys_seen >= 4) break;
      // A header key may follow: step over the entries.
      detail::MemberWalk skip = detail::walk_members(cur, text, [](std::string&&, JsonValue&&) {});
      if (!skip.complete) {
        torn = true;
        break;
      }
    }
  } catch (const JsonParseError& e) {
    if (!e.truncated()) throw;
    torn = true;
  }
  // The note is at the end: found there, without walking the entries.
  const size_t from = text.size() > kNoteWindow ? text.size() - kNoteWindow : 0;
  const size_t at = text.substr(from).rfind(kDisabledKey);
  if (at != std::string_view::npos) {
    JsonCursor note(text, path);
    note.seek(from + at + kDisabledKey.size());
    try {
      header_.probe_disabled = note.parse_value();
    } catch (const JsonParseError&) {
      // cut inside the note (a kill while it was written): the entries are what they are
    }
  }
  if (data_begin_ == kNoData) {
    if (!torn) {
      throw FileError(path + ": no \"data\" object: something wrong with the dump, no data found");
    }
    // Cut before "data" began: a dump with no entries.
    note_.torn = true;
    note_.message =
        path + ": cut at byte " + std::to_string(text.size()) + " before the \"data\" object; no entries";
  }
}

DumpJsonReader::~DumpJsonReader() = default;

std::string describe_probe_disabled(const JsonValue& note) {
  if (!note.is_object()) return "";
  auto text = [&](const char* key) {
    const JsonValue* v = note.find(key);
    return v && v->is_string() ? v->as_string() : std::string();
  };
  auto number = [&](const char* key) {
    const JsonValue* v = note.find(key);
    return v && v->is_int() ? v->as_int() : (int64_t)-1;
  };
  std::string s = "incomplete: the probe disabled itself after an internal error";
  if (number("step") >= 0) s += " at step " + std::to_string(number("step"));
  if (!text("first_unrecorded_call").empty()) s += ", call " + text("first_unrecorded_call");
  if (number("entries_recorded") >= 0)
    s += ", after " + std::to_string(number("entries_recorded")) + " entries";
  if (number("unrecorded_calls") >= 0)
    s += "; " + std::to_string(number("unrecorded_calls")) + " later calls of the step were not recorded";
  if (!text("reason").empty()) s += " (" + text("reason") + ")";
  return s;
}

void DumpJsonReader::for_each_entry(
    const std::function<void(std::string_view name, const JsonValue& record)>& fn) {
  if (data_begin_ == kNoData) return;  // torn before "data": the note says so
  const std::string_view text = map_->text;
  JsonCursor cur(text, path_);
  cur.seek(data_begin_);
  detail::MemberWalk walk =
      detail::walk_members(cur, text, [&](std::string&& name, JsonValue&& value) { fn(name, value); });
  note_ = RepairNote();
  note_.records_kept = walk.kept;
  note_.valid_bytes = walk.valid_end;
  if (walk.complete) {
    // The entries are all there; the file may still lack its final brace.
    try {
      for (;;) {
        const int c = cur.peek();
        if (c == '}') break;
        if (c != ',') cur.fail("expected ',' or '}' after the \"data\" object");
        cur.expect(',', "");
        cur.parse_string();
        cur.expect(':', "after an object key");
        cur.parse_value();
      }
      return;
    } catch (const JsonParseError& e) {
      if (!e.truncated()) throw;
      walk.torn = true;
    }
  }
  if (walk.torn) {
    detail::describe_cut(path_, map_->file.size(), text.size(), walk, "entries", &note_);
  }
}

}  // namespace reader
}  // namespace msprobe
