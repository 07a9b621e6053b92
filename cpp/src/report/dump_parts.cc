#include "dump_parts.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "msprobe/base/error.h"

namespace msprobe {
namespace report {
namespace {

bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Sub-folders named prefix<digits> (or prefix alone), in numeric order.
std::vector<std::string> numbered_dirs(const std::string& path, const std::string& prefix) {
  std::vector<std::string> out;
  DIR* d = ::opendir(path.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    if (name.find_first_not_of("0123456789", prefix.size()) != std::string::npos) continue;
    if (is_dir(path + "/" + name)) out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return out;
}

int number_after(const std::string& name, size_t prefix_len) {
  return name.size() > prefix_len ? std::atoi(name.c_str() + prefix_len) : -1;
}

}  // namespace

std::vector<DumpPart> find_dump_parts(const std::string& path) {
  std::vector<DumpPart> parts;
  if (is_file(path)) {
    parts.push_back({path, -1, -1});
    return parts;
  }
  if (!is_dir(path)) throw FileError(path + ": no such dump.json file or dump folder");
  if (is_file(path + "/dump.json")) {
    parts.push_back({path + "/dump.json", -1, -1});
    return parts;
  }
  auto add_ranks = [&](const std::string& dir, int step) {
    for (const std::string& r : numbered_dirs(dir, "rank"))
      if (is_file(dir + "/" + r + "/dump.json"))
        parts.push_back({dir + "/" + r + "/dump.json", number_after(r, 4), step});
  };
  add_ranks(path, -1);
  for (const std::string& s : numbered_dirs(path, "step")) add_ranks(path + "/" + s, number_after(s, 4));
  if (parts.empty()) throw FileError(path + ": no dump.json here, in rank*/ or in step*/rank*/ folders");
  return parts;
}

bool is_regular_file(const std::string& p) { return is_file(p); }

std::string folder_of(const std::string& file) {
  size_t slash = file.rfind('/');
  return slash == std::string::npos ? "." : file.substr(0, slash);
}

}  // namespace report
}  // namespace msprobe
