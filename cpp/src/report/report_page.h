// The page both report kinds share: the data of each part (one step/rank), turned into the
// page's JSON and put into the HTML template with the charting library.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "msprobe/compare/compare_table.h"
#include "msprobe/compare/divergence.h"
#include "msprobe/report/report_input.h"

namespace msprobe {
namespace report {

// Verdicts, ordered by severity so that the worst of several is their maximum.
enum Verdict : uint8_t { kNoData = 0, kPass = 1, kUnmatched = 2, kWarning = 3, kError = 4 };

struct PartInput {
  std::string label;  // "step0/rank1", "rank1" or ""
  int rank = -1, step = -1;
  const compare::CompareTable* table = nullptr;
  std::vector<uint8_t> row_verdict;  // per table row
  std::vector<double> row_value;     // the plotted value of each row (NaN: none)
  const std::vector<std::pair<std::string, std::string>>* construct = nullptr;
  const std::unordered_map<std::string, std::vector<std::string>>* stacks = nullptr;
  const std::vector<compare::Suspect>* suspects = nullptr;
  // Nodes without rows of their own (modules, API groups) take the worst verdict below them.
  bool group_verdicts = false;
  // Column titles shown instead of the header's names (same order); empty: the names.
  std::vector<std::string> column_labels;
};

struct PageInput {
  std::string kind;  // "compare" or "dump"
  std::string title, generated_at;
  std::string mode;         // "statistics", "tensor", "md5"
  std::string value_label;  // what the plot shows, e.g. "relative error"
  std::vector<RunInfo> runs;
  std::vector<PartInput> parts;
  std::vector<compare::Suspect> top_suspects;  // best first
  // Warnings about the data shown, one line each (an incomplete dump), above everything else.
  std::vector<std::string> notes;
};

std::string build_page_json(const PageInput& in);
std::string render_page(const PageInput& in);

// The embedded template pieces (generated at build time from cpp/src/report/assets and the
// installed charting library); empty when unknown.
std::string_view report_asset(std::string_view name);

}  // namespace report
}  // namespace msprobe
