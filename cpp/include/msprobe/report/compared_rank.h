// One compared rank with what first divergence and the report read beside its NPU dump.json
// (construct.json: the module tree; stack.json: where each call was made), and its suspects.
// Shared by `compare` (compare_job.cc) and `msprobe report DUMP BENCH` (pair_report.cc).
#pragma once
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "msprobe/compare/compare_table.h"
#include "msprobe/compare/divergence.h"
#include "msprobe/report/report_input.h"

namespace msprobe {
namespace report {

struct ComparedRank {
  int rank = -1, step = -1;  // -1: no such folder level
  compare::CompareTable table;
  std::vector<std::pair<std::string, std::string>> construct;  // child -> parent, file order
  std::unordered_map<std::string, std::string> parents;
  std::unordered_map<std::string, std::vector<std::string>> stacks;
  std::unordered_map<std::string, std::string> tensor_names;  // input row -> tensor name
  bool has_construct = false, has_stacks = false, has_tensor_names = false;
  std::vector<compare::Suspect> suspects;
  compare::NoiseModel prior_noise;  // used when the table is too small to fit its own (fitted: given)
};

// Reads construct.json, stack.json and tensor_names.json beside `npu_dump_json` when they are
// there, finds the suspects of c->table and marks their rows in it (mark_suspect_rows). A side
// file that cannot be read adds one line to `warnings` (may be null) and is left out; a cut one
// is read up to its last complete entry.
void find_rank_divergence(ComparedRank* c, const std::string& npu_dump_json,
                          std::vector<std::string>* warnings);

// The report's view of a compared rank (borrows from `c`).
RankInput rank_input(const ComparedRank& c);

// Label, path and the dump.json header's framework, level and task of one side.
RunInfo run_info(const std::string& label, const std::string& path, const std::string& dump_json);

}  // namespace report
}  // namespace msprobe
