// `msprobe report DUMP BENCH_DUMP`: compares two dumps with the compare engine and renders the
// compare report, with the first-divergence suspects and the NPU side's construct.json and
// stack.json. Both paths may be dump.json files, folders holding one, rank*/ folders or dump_paths
// of step*/rank*/ folders; folders are paired by step and rank.
#pragma once
#include <string>

#include "msprobe/compare/compare_run.h"

namespace msprobe {
namespace report {

// Throws FileError / InvalidInput (one line) when a side has no dump or no step/rank pairs.
std::string render_pair_report(const std::string& npu_path, const std::string& bench_path,
                               const compare::CompareOptions& options, const std::string& title = "");

}  // namespace report
}  // namespace msprobe
