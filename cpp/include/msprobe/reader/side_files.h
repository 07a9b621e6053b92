// stack.json, construct.json and tensor_names.json of a dump, all tolerant of a cut (torn) end.
#pragma once
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "msprobe/reader/repair_note.h"

namespace msprobe {
namespace reader {

// stack.json: 1.2.1's {"<entry name>": [stack lines...]} and the interned form
// {"<idx>": [[names...], [stack lines...]]} both map to entry name -> lines.
// note may be nullptr. Throws FileError when the file is missing or malformed before any cut.
std::unordered_map<std::string, std::vector<std::string>> read_stack_json(const std::string& path,
                                                                          RepairNote* note);

// construct.json: child -> parent name ("" for null), in file order.
std::vector<std::pair<std::string, std::string>> read_construct_json(const std::string& path,
                                                                     RepairNote* note);

// tensor_names.json (ours): input row -> the tensor's name ("parameter:fc.weight").
std::unordered_map<std::string, std::string> read_tensor_names_json(const std::string& path,
                                                                    RepairNote* note);

}  // namespace reader
}  // namespace msprobe
