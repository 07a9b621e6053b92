// Files of a MindSpore kernel dump: see kernel_dump_files.h.
#include "kernel_dump_files.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

namespace msprobe {

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool parse_dump_name(const std::string& file, DumpName& n) {
  const std::string suffix = ".npy";
  if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  std::string base = file.substr(0, file.size() - suffix.size());
  std::string* tail[7] = {&n.dtype, &n.format, &n.slot, &n.io, &n.timestamp, &n.stream, &n.task};
  for (std::string* field : tail) {
    size_t dot = base.rfind('.');
    if (dot == std::string::npos) return false;
    *field = base.substr(dot + 1);
    base.resize(dot);
  }
  size_t dot = base.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == base.size()) return false;
  n.op_type = base.substr(0, dot);
  n.op_name = base.substr(dot + 1);
  return all_digits(n.task) && all_digits(n.stream) && all_digits(n.timestamp) && all_digits(n.slot) &&
         (n.io == "input" || n.io == "output");
}

std::vector<std::string> list_dir(const std::string& dir, bool want_dirs) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::lstat((dir + "/" + name).c_str(), &st) != 0) continue;  // links are not followed
    if (want_dirs ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)) out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, std::string> read_mapping(const std::string& dir) {
  std::map<std::string, std::string> m;
  std::ifstream f(dir + "/mapping.csv");
  std::string line;
  while (std::getline(f, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t comma = line.find(',');
    if (comma == std::string::npos) continue;
    m[line.substr(0, comma)] = line.substr(comma + 1);
  }
  return m;
}

bool FolderDumpNames::parse(const std::string& file, std::string& original, DumpName& n) {
  original = file;
  if (parse_dump_name(original, n)) return true;
  if (!mapping_read_) {
    mapping_ = read_mapping(dir_);
    mapping_read_ = true;
  }
  auto it = mapping_.find(file);
  if (it != mapping_.end()) original = it->second;
  return parse_dump_name(original, n);
}

void for_each_iteration_folder(const std::string& dump_path,
                               const std::function<void(const std::string&)>& fn) {
  for (const std::string& rank : list_dir(dump_path, true)) {
    if (rank.rfind("rank_", 0) != 0) continue;
    const std::string rank_dir = dump_path + "/" + rank;
    for (const std::string& net : list_dir(rank_dir, true)) {
      if (net == "execution_order" || net == "graphs" || net == ".dump_metadata") continue;
      const std::string net_dir = rank_dir + "/" + net;
      for (const std::string& graph : list_dir(net_dir, true)) {
        if (!all_digits(graph)) continue;
        const std::string graph_dir = net_dir + "/" + graph;
        for (const std::string& iter : list_dir(graph_dir, true)) {
          if (all_digits(iter)) fn(graph_dir + "/" + iter);
        }
      }
    }
  }
}

}  // namespace msprobe
