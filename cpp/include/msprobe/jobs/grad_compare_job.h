// GradComparator's files for one pair of rank folders: similarities.csv (1.2.1's) and, beyond
// 1.2.1, grad_divergence.json naming the first step where the gradient directions part. The
// pictures are drawn by the caller (matplotlib, as 1.2.1 draws them).
#pragma once
#include <string>

#include "msprobe/grad/grad_compare.h"

namespace msprobe {
namespace grad {

struct GradCompareOutput {
  GradSimilarities similarities;
  GradDivergence divergence;
  std::string csv_path, json_path;
  std::string line;  // the divergence as one log line
};

// Compares rank_dir1 with rank_dir2 and writes out_dir/similarities.csv and
// out_dir/grad_divergence.json (out_dir made, mode 0750). Errors as compare_rank_dirs.
GradCompareOutput run_grad_compare(const std::string& rank_dir1, const std::string& rank_dir2,
                                   const std::string& out_dir);

}  // namespace grad
}  // namespace msprobe
