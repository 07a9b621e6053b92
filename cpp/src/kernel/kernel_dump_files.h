// The files of a MindSpore kernel dump (internal): names {OpType}.{OpName}.{task}.{stream}.
// {timestamp}.{input|output}.{slot}.{format}.{DType}.npy, a folder's mapping.csv for names over
// 255 bytes, and the iteration folders dump_path/rank_*/{net}/{graph}/{iteration}/.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
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

// The dump names of one folder's files: a name too long for the file system stands under a
// random name that the folder's mapping.csv (read once, when first needed) maps back.
class FolderDumpNames {
 public:
  explicit FolderDumpNames(std::string dir) : dir_(std::move(dir)) {}
  // Sets `original` (the name as dumped) and `n`; false when neither the file's own name nor its
  // mapped one is named like a dump file.
  bool parse(const std::string& file, std::string& original, DumpName& n);

 private:
  std::string dir_;
  std::map<std::string, std::string> mapping_;
  bool mapping_read_ = false;
};
// Calls fn(folder) for every iteration folder of the dump, in name order.
void for_each_iteration_folder(const std::string& dump_path,
                               const std::function<void(const std::string&)>& fn);

}  // namespace msprobe
