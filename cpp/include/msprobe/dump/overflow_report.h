// Reads the overflow_summary.json files of a dump (every step*/rank*/) and names the earliest
// overflow and the earliest culprit across steps and ranks (`msprobe summary`).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace msprobe {

struct OverflowFirst {
  std::string dir;  // "step0/rank1"
  int64_t step = 0;
  int64_t rank = -1;  // -1: not distributed
  std::string entry, kind;
  double time = 0;
  std::string source;  // "file:line in function: text", or "" when unknown
};

struct RankOverflowSummary {
  std::string dir;
  int64_t step = 0, rank = -1;
  int64_t overflows = 0, culprits = 0;
  bool limit_reached = false;
  std::optional<OverflowFirst> first, first_culprit;
};

struct OverflowReport {
  std::vector<RankOverflowSummary> rows;  // by step, then rank
  // Earliest by time (the clocks of one cluster), ties by step then rank.
  std::optional<OverflowFirst> earliest, earliest_culprit;
};

// Throws FileError naming the file and position when a summary is malformed.
OverflowReport read_overflow_report(const std::string& dump_path);

}  // namespace msprobe
