// The page of a GradComparator output (beyond 1.2.1): for each rank, the first step where the
// two runs' gradient directions part, and the similarity of every parameter along the steps as
// an inline SVG line chart, then the numbers. Self-contained, no script.
#pragma once
#include <string>

namespace msprobe {
namespace report {

// Whether `path` is a GradComparator output: a folder holding similarities.csv, or rank{N}
// folders that do.
bool is_grad_compare_output(const std::string& path);

// The page. Throws FileError when a similarities.csv cannot be read, InvalidInput when `path`
// is not a GradComparator output.
std::string render_grad_report(const std::string& path, const std::string& title = "");

}  // namespace report
}  // namespace msprobe
