// Summary of a dump directory: see dump_summary.h.
#include "msprobe/dump/dump_summary.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include "msprobe/base/strings.h"
#include "msprobe/format/json_value.h"
#include "msprobe/reader/dump_json_reader.h"

namespace msprobe {

namespace {
std::vector<std::string> list_dir(const std::string& path, const char* prefix) {
  std::vector<std::string> out;
  DIR* d = ::opendir(path.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.rfind(prefix, 0) == 0) out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return out;
}

}  // namespace

std::vector<RankDumpSummary> summarize_dump(const std::string& dump_path) {
  std::vector<RankDumpSummary> rows;
  for (const auto& step : list_dir(dump_path, "step")) {
    for (const auto& rank : list_dir(dump_path + "/" + step, "rank")) {
      const std::string dir = dump_path + "/" + step + "/" + rank;
      struct stat st;
      if (::stat((dir + "/dump.json").c_str(), &st) != 0) continue;
      JsonValue doc = parse_json_file(dir + "/dump.json");
      RankDumpSummary r;
      r.dir = step + "/" + rank;
      if (const JsonValue* t = doc.find("task"); t && t->is_string()) r.task = t->as_string();
      if (const JsonValue* l = doc.find("level"); l && l->is_string()) r.level = l->as_string();
      if (const JsonValue* data = doc.find("data"); data && data->is_object()) {
        for (const auto& [name, value] : data->as_object()) {
          ++r.entries;
          if (ends_with(name, ".forward") || name.find(".forward.") != std::string::npos)
            ++r.forward;
          else if (ends_with(name, ".backward") || name.find(".backward.") != std::string::npos)
            ++r.backward;
          else
            ++r.other;
        }
      }
      if (const JsonValue* note = doc.find("probe_disabled"))
        r.incomplete = reader::describe_probe_disabled(*note);
      r.tensor_files = (int64_t)list_dir(dir + "/dump_tensor_data", "").size() - 2;
      if (r.tensor_files < 0) r.tensor_files = 0;
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

}  // namespace msprobe
