// The files of a MindSpore kernel dump (internal): names {OpType}.{OpName}.{task}.{stream}.
// {timestamp}.{input|output}.{slot}.{format}.{DType}.npy, a folder's mapping.csv for names over
// 255 bytes, and the iteration folders dump_path/rank_*/{net}/{graph}/{iteration}/.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace msprobe {

struct DumpName {
  std::string op_type, op_name, task, stream, timestamp, io, slot, format, dtype;
};

bool all_digits(const std::string& s);
// The op name may itself contain dots, so the seven trailing fields are taken from the right.
bool parse_dump_name(const std::string& file, DumpName& n);
// Sorted names of the folders (want_dirs) or regular files of `dir`; links are not followed.
std::vector<std::string> list_dir(const std::string& dir, bool want_dirs);
// mapping.csv of a folder: random name -> original name.
std::map<std::string, std::string> read_mapping(const std::string& dir);
// Calls fn(folder) for every iteration folder of the dump, in name order.
void for_each_iteration_folder(const std::string& dump_path,
                               const std::function<void(const std::string&)>& fn);

}  // namespace msprobe
