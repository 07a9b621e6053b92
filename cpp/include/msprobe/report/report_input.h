// What the HTML report is made from. A compare fills one RankInput per compared rank folder (or
// one for a single dump.json pair); `msprobe report DUMP` fills them from a dump alone.
// Everything is borrowed: the pointers must stay valid until the page is rendered.
#pragma once
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "msprobe/compare/compare_table.h"
#include "msprobe/compare/divergence.h"

namespace msprobe {
namespace report {

// One side of a compare, or the one dump of a statistics view.
struct RunInfo {
  std::string label;      // "NPU", "Bench", or the dump folder's name
  std::string path;       // the dump folder or dump.json given by the user
  std::string framework;  // dump.json "framework" ("pytorch", "mindspore"), "" when unknown
  std::string level;      // "L0", "L1", "mix", ...
  std::string task;       // "statistics", "tensor", "md5"
};

struct RankInput {
  int rank = -1;  // -1: no rank folder
  int step = -1;
  const compare::CompareTable* table = nullptr;  // required
  // The suspects of this rank (find_suspects), may be null or empty.
  const std::vector<compare::Suspect>* suspects = nullptr;
  // construct.json of the NPU side, child -> parent ("" for none), in file order; may be null
  // (L1 dumps have none: the tree is then flat).
  const std::vector<std::pair<std::string, std::string>>* construct = nullptr;
  // stack.json of the NPU side: entry name -> stack lines; may be null.
  const std::unordered_map<std::string, std::vector<std::string>>* stacks = nullptr;
};

struct ReportInput {
  std::string title;             // page title; "" gives "msprobe compare report"
  std::string generated_at;      // shown as is, e.g. "2025-01-31 12:00:00"; "" = now
  std::vector<RunInfo> runs;     // NPU first, then bench
  std::vector<RankInput> ranks;  // at least one
  // Suspects across ranks, best first (rank_suspects); null = the ranks' own, merged by rank.
  const std::vector<compare::Suspect>* top_suspects = nullptr;
};

}  // namespace report
}  // namespace msprobe
