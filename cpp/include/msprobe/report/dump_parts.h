// The dump.json files a user's path stands for: the file itself, a folder holding one, rank*/
// folders, or a dump_path of step*/rank*/ folders.
#pragma once
#include <string>
#include <vector>

namespace msprobe {
namespace report {

struct DumpPart {
  std::string dump_json;
  int rank = -1, step = -1;  // -1: no such folder level
};

// Throws FileError (one line naming the path) when it holds no dump.json.
std::vector<DumpPart> find_dump_parts(const std::string& path);

}  // namespace report
}  // namespace msprobe
