// What a dump directory holds: per step*/rank*/dump.json, the task, level and entry counts.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace msprobe {

struct RankDumpSummary {
  std::string dir;  // "step0/rank0"
  std::string task, level;
  int64_t entries = 0, forward = 0, backward = 0, other = 0, tensor_files = 0;
  std::string incomplete;  // "" or why the dump is incomplete (the probe disabled itself)
};

// Throws FileError naming the file and position when a dump.json is malformed.
std::vector<RankDumpSummary> summarize_dump(const std::string& dump_path);

}  // namespace msprobe
