// The page of a free_benchmark run (docs/free_benchmark.md): the flagged APIs ranked as
// free_benchmark_summary.json ranks them, each with its worst call's numbers and the stack of
// that call (stack.json of its step), on the same page as the other reports.
#pragma once
#include <string>

namespace msprobe {
namespace report {

// `path`: a dump_path holding free_benchmark_summary.json, or that file. Returns the summary's
// path, or "" when there is none.
std::string free_benchmark_summary_of(const std::string& path);

// Throws FileError naming the file when the summary cannot be read, InvalidInput when it is not a
// free_benchmark summary.
std::string render_free_benchmark_report(const std::string& summary_json, const std::string& title = "");

}  // namespace report
}  // namespace msprobe
