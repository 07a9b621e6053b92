#include "msprobe/jobs/compare_input.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <regex>

#include "msprobe/base/error.h"
#include "msprobe/base/input_file.h"
#include "msprobe/base/path.h"
#include "msprobe/format/json_value.h"
#include "msprobe/jobs/compare_output_names.h"

namespace msprobe {
namespace compare {

namespace {

constexpr const char* kAllowedKeys = "npu_path, bench_path, stack_path, is_print_compare_log, suspect";

std::string string_field(const JsonValue& v, const std::string& origin, const char* key) {
  if (!v.is_string()) {
    throw InvalidInput(origin + ": \"" + key + "\" must be a string (a path), got " + v.type_name());
  }
  return v.as_string();
}

void check_int_list(const JsonValue& v, const std::string& origin, const char* key) {
  if (!v.is_array())
    throw InvalidInput(origin + ": \"" + key + "\" must be a list of integers, got " + v.type_name());
  for (const JsonValue& x : v.as_array()) {
    if (!x.is_int()) {
      throw InvalidInput(origin + ": \"" + key + "\" must be a list of integers, holds " + x.type_name());
    }
  }
}

}  // namespace

PathKind path_kind(const std::string& path) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return PathKind::kMissing;
  if (S_ISREG(st.st_mode)) return PathKind::kFile;
  if (S_ISDIR(st.st_mode)) return PathKind::kFolder;
  return PathKind::kOther;
}

CompareJson load_compare_json(const std::string& path) {
  check_input_file(path, "compare input");
  const JsonValue doc = parse_json_file(path);
  if (!doc.is_object()) {
    throw InvalidInput(path + ": must hold a JSON object with npu_path and bench_path, got " +
                       std::string(doc.type_name()));
  }
  CompareJson out;
  bool has_npu = false, has_bench = false;
  for (const auto& kv : doc.as_object()) {
    const std::string& key = kv.first;
    const JsonValue& v = kv.second;
    if (key == "npu_path") {
      out.npu_path = string_field(v, path, "npu_path");
      has_npu = true;
    } else if (key == "bench_path") {
      out.bench_path = string_field(v, path, "bench_path");
      has_bench = true;
    } else if (key == "stack_path") {
      out.stack_path = string_field(v, path, "stack_path");
      out.has_stack_path = true;
    } else if (key == "is_print_compare_log") {
      if (!v.is_bool()) {
        throw InvalidInput(path + ": \"is_print_compare_log\" must be true or false, got " +
                           std::string(v.type_name()));
      }
      out.is_print_compare_log = v.as_bool();
    } else if (key == "suspect") {
      const JsonValue* name = v.is_object() ? v.find("name") : nullptr;
      if (!name || !name->is_string() || name->as_string().empty())
        throw InvalidInput(
            path + ": \"suspect\" must be {\"name\": <dump entry>, \"first_source\": <line or null>}");
      out.suspect = name->as_string();
      const JsonValue* src = v.find("first_source");
      if (src && src->is_string()) out.suspect_first_source = src->as_string();
      if (const JsonValue* noise = v.find("noise"); noise && noise->is_object()) {
        double* fields[] = {&out.suspect_noise.typical_increment, &out.suspect_noise.base,
                            &out.suspect_noise.spread};
        const char* names[] = {"typical_increment", "base", "spread"};
        for (int i = 0; i < 3; ++i) {
          const JsonValue* x = noise->find(names[i]);
          if (!x || !x->is_number())
            throw InvalidInput(path + ": \"suspect\".\"noise\" needs the number \"" + names[i] + "\"");
          *fields[i] = x->as_double();
        }
        out.suspect_noise.fitted = true;
      }
    } else if (key == "rank_id" || key == "step_id") {
      check_int_list(v, path, key.c_str());
      if (key == "rank_id") out.has_rank_id = true;
    } else {
      throw InvalidInput(path + ": unknown key \"" + key + "\": allowed keys are " + kAllowedKeys);
    }
  }
  // 1.2.1's wording for a missing or empty path.
  if (!has_npu || out.npu_path.empty()) {
    throw InvalidInput("Missing npu_path in configuration file " + path + ", please check!");
  }
  if (!has_bench || out.bench_path.empty()) {
    throw InvalidInput("Missing bench_path in configuration file " + path + ", please check!");
  }
  return out;
}

namespace {

std::vector<std::string> rank_dir_names(const std::string& step_dir, const char* side) {
  struct stat st;
  if (::lstat(step_dir.c_str(), &st) != 0) {
    throw FileError(std::string(side) + " " + step_dir + ": no such folder");
  }
  if (S_ISLNK(st.st_mode)) {
    throw FileError(std::string(side) + " " + step_dir + ": is a symbolic link; pass the folder itself");
  }
  if (!S_ISDIR(st.st_mode)) throw FileError(std::string(side) + " " + step_dir + ": not a folder");
  DIR* d = ::opendir(step_dir.c_str());
  if (d == nullptr)
    throw FileError(std::string(side) + " " + step_dir + ": cannot list: " + std::strerror(errno));
  static const std::regex kRankName("^rank(?:0|[1-9][0-9]*)?$");
  std::vector<std::string> names;
  std::string bad;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (!std::regex_match(name, kRankName)) {
      if (bad.empty() || name < bad) bad = name;
      continue;
    }
    names.push_back(name);
  }
  ::closedir(d);
  if (!bad.empty()) {
    // 1.2.1's message.
    throw InvalidInput("dump_dir contains '" + bad +
                       "'. Expected 'rank'. This name is not in the format of "
                       "dump output. Please check and delete irrelevant files in " +
                       step_dir + " and try again.");
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string dump_json_of(const std::string& rank_dir, std::string& error) {
  const std::string p = join_path(rank_dir, "dump.json");
  struct stat st;
  if (!error.empty()) return p;  // report the first problem of the pair
  if (::lstat(p.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) {
    error = "dump.json is not found in dump dir " + rank_dir + ".";
  } else if (S_ISLNK(st.st_mode)) {
    error = p + ": is a symbolic link; refusing to follow it";
  }
  return p;
}

}  // namespace

std::vector<RankPair> pair_rank_dirs(const std::string& npu_step_dir, const std::string& bench_step_dir) {
  const std::vector<std::string> npu = rank_dir_names(npu_step_dir, "npu_path");
  const std::vector<std::string> bench = rank_dir_names(bench_step_dir, "bench_path");
  if (npu.size() != bench.size()) {
    throw InvalidInput("The number of ranks in the two runs are different (" + std::to_string(npu.size()) +
                       " in " + npu_step_dir + ", " + std::to_string(bench.size()) + " in " + bench_step_dir +
                       "). Unable to match the ranks. Please use another folder to compare or use compare() "
                       "api and manually match the ranks.");
  }
  if (npu.empty()) throw InvalidInput("No rank folder (rank, rank0, rank1, ...) in " + npu_step_dir + ".");
  std::vector<RankPair> pairs;
  for (size_t i = 0; i < npu.size(); ++i) {
    RankPair p;
    p.npu_rank = npu[i];
    p.bench_rank = bench[i];
    p.suffix = rank_pair_suffix(npu[i], bench[i]);
    p.npu_dump_json = dump_json_of(join_path(npu_step_dir, npu[i]), p.error);
    p.bench_dump_json = dump_json_of(join_path(bench_step_dir, bench[i]), p.error);
    pairs.push_back(std::move(p));
  }
  return pairs;
}

}  // namespace compare
}  // namespace msprobe
