// dump.json, streamed: the file is memory-mapped and the "data" object is visited one entry at a
// time (parse one value, hand it over, drop it), so memory stays bounded for dumps of any size.
// A torn file (cut by a kill) yields every complete entry before the cut and a RepairNote.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "msprobe/format/json_value.h"
#include "msprobe/reader/repair_note.h"

namespace msprobe {
namespace reader {

struct DumpHeader {
  std::string task, level, framework;  // "" when absent
  JsonValue dump_data_dir;             // raw value (null or a string)
  // Our probe's note after "data" when it disabled itself while writing this file (an internal
  // error): {reason, step, first_unrecorded_call, entries_recorded, unrecorded_calls}; null when
  // the dump is complete.
  JsonValue probe_disabled;
  std::string folder;  // the folder holding dump.json
  // dump_data_dir is truthy (Python truth): tensors are in <folder>/dump_tensor_data.
  bool has_real_data() const;
  std::string tensor_dir() const { return folder + "/dump_tensor_data"; }
};

// One line for people saying that a dump is incomplete, from its "probe_disabled" note; "" for
// null (a complete dump).
std::string describe_probe_disabled(const JsonValue& note);

class DumpJsonReader {
 public:
  // Maps the file. Throws FileError (one line naming the file) when it is missing, not a regular
  // file, or holds no JSON object with a "data" member at all.
  explicit DumpJsonReader(const std::string& path);
  ~DumpJsonReader();
  DumpJsonReader(const DumpJsonReader&) = delete;
  DumpJsonReader& operator=(const DumpJsonReader&) = delete;

  const std::string& path() const { return path_; }
  const DumpHeader& header() const { return header_; }
  // Calls fn(name, record) for every complete entry of "data", in file order. record is the
  // entry's value (input_args/input_kwargs/output/... as JsonValue). A torn file ends the visit
  // at the last complete entry and fills note(). Malformed JSON in the middle of a complete file
  // throws FileError with line/column. May be called more than once.
  void for_each_entry(const std::function<void(std::string_view name, const JsonValue& record)>& fn);
  const RepairNote& note() const { return note_; }

 private:
  struct Mapping;
  std::string path_;
  DumpHeader header_;
  RepairNote note_;
  std::shared_ptr<Mapping> map_;
  size_t data_begin_ = 0;  // offset of the '{' of "data"
};

}  // namespace reader
}  // namespace msprobe
