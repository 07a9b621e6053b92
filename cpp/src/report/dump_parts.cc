#include "msprobe/report/dump_parts.h"

#include <cstdlib>

#include "msprobe/base/error.h"
#include "msprobe/base/path.h"

namespace msprobe {
namespace report {
namespace {

// Sub-folders named prefix<digits> (or prefix alone), in numeric order.
std::vector<std::string> numbered_dirs(const std::string& path, const std::string& prefix) {
  std::vector<std::string> out;
  for (std::string& name : numbered_names(path, prefix))
    if (is_folder(path + "/" + name)) out.push_back(std::move(name));
  return out;
}

int number_after(const std::string& name, size_t prefix_len) {
  return name.size() > prefix_len ? std::atoi(name.c_str() + prefix_len) : -1;
}

}  // namespace

std::vector<DumpPart> find_dump_parts(const std::string& path) {
  std::vector<DumpPart> parts;
  if (is_regular_file(path)) {
    parts.push_back({path, -1, -1});
    return parts;
  }
  if (!is_folder(path)) throw FileError(path + ": no such dump.json file or dump folder");
  if (is_regular_file(path + "/dump.json")) {
    parts.push_back({path + "/dump.json", -1, -1});
    return parts;
  }
  auto add_ranks = [&](const std::string& dir, int step) {
    for (const std::string& r : numbered_dirs(dir, "rank"))
      if (is_regular_file(dir + "/" + r + "/dump.json"))
        parts.push_back({dir + "/" + r + "/dump.json", number_after(r, 4), step});
  };
  add_ranks(path, -1);
  for (const std::string& s : numbered_dirs(path, "step")) add_ranks(path + "/" + s, number_after(s, 4));
  if (parts.empty()) throw FileError(path + ": no dump.json here, in rank*/ or in step*/rank*/ folders");
  return parts;
}

}  // namespace report
}  // namespace msprobe
