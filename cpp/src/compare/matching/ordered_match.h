// 1.2.1's matching of PyTorch dumps (core/compare/acc_compare.py compare_process, match_op,
// check_op; check.py check_struct_match, fuzzy_check_op): both dumps are read entry by entry in
// lockstep into two queues; after each step the newest NPU entry is looked for among the queued
// bench entries, then the newest pair, then the newest bench entry among the queued NPU entries.
// A match emits the NPU entries queued before it as unmatched and drops the bench entries queued
// before it. The algorithm is order dependent and that is reproduced as is: e.g. when one dump
// yields an entry with no leaf while the other's queue is not empty, 1.2.1 stops reading.
#pragma once
#include <functional>
#include <vector>

#include "dump_parse.h"
#include "msprobe/compare/compare_table.h"
#include "result_rows.h"

namespace msprobe {
namespace compare {

struct OrderedMatchOptions {
  CompareMode mode = CompareMode::kStatistics;
  bool fuzzy = false;
  // Called after each lockstep read (1.2.1's "API/Module Read Progress").
  std::function<void(size_t done, size_t total)> progress;
};

// Appends the result rows (stack column still present) in 1.2.1's order. Each entry is released
// once its rows are made (the dumps keep their entries' names and errors only), so that the rows
// of a large compare reuse the memory of the parsed dumps instead of adding to it.
void ordered_match(ParsedDump& npu, ParsedDump& bench, const OrderedMatchOptions& opt,
                   std::vector<Row>& rows);

// Exposed for tests.
bool same_struct(const MergedOp& n, const MergedOp& b, CompareMode mode);  // check_struct_match
bool fuzzy_same_names(const std::vector<std::string>& n, const std::vector<std::string>& b);
std::string rename_api(const std::string& name, const std::string& process);
// Dtypes that pair although they differ: any two floating dtypes (torch or MindSpore names;
// 1.2.1 pairs fp16 with fp32 or bf16 only, 26.2.0 every float pair).
bool is_floating_dtype(const std::string& d);
bool dtypes_compatible(const JsonValue& n, const JsonValue& b);
bool dtypes_compatible(const std::string& n, const std::string& b);

}  // namespace compare
}  // namespace msprobe
