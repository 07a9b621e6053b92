// Reading one dump.json into the merged entries 1.2.1's compare works on. Each entry is
// flattened as soon as it is read and its JSON dropped, so memory holds the rows, not the dump.
#pragma once
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "merged_op.h"
#include "msprobe/format/json_value.h"

namespace msprobe {
namespace compare {

// Entry name -> stack of that entry as stack.json holds it (a list of lines in 1.2.1's format).
using StackMap = std::unordered_map<std::string, JsonValue>;
// stack.json in 1.2.1's form {"name": [lines]} or the interned form {"i": [[names], [lines]]};
// a torn file keeps its complete records and sets *repair_note.
StackMap load_stack_map(const std::string& path, std::string* repair_note);

struct ParsedEntry {
  MergedOp op;        // empty when the entry flattens to no leaf
  std::string error;  // a check of 1.2.1 failed on this entry; raised when 1.2.1 reads it
};

struct ParsedDump {
  std::string path, folder;          // dump.json and the folder holding it
  std::string task;                  // "" when absent
  bool has_md5 = false;              // 1.2.1 md5_find: some input/output holds an "md5" field
  bool has_pt_data_name = false;     // some data_name ends with ".pt" (check_cross_framework)
  std::vector<ParsedEntry> entries;  // file order; a repeated name keeps its first place, last value
  // One line when dump.json was torn (the reader's note) or is incomplete (the probe disabled
  // itself while writing it), else "".
  std::string repair_note;
};

// stack: the NPU stack map in stack mode (1.2.1 looks bench names up in it too), else nullptr.
ParsedDump parse_dump(const std::string& path, const StackMap* stack);

// Visits the raw record of the named entries (second pass over a dump, e.g. for tensor file
// names); a repeated name yields its last value.
void for_each_record(const std::string& path,
                     const std::function<void(const std::string& name, const JsonValue& record)>& fn);

}  // namespace compare
}  // namespace msprobe
