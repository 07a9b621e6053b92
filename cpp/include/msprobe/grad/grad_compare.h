// GradComparator's work (1.2.1's grad_probe, docs 17): for two runs' grad_probe dumps, the share
// of elements whose gradient direction agrees, per parameter and step, and in all (weighted by
// element count); and, beyond 1.2.1, the first step where the directions part.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace msprobe {
namespace grad {

// The numbers N of the folders `prefix`N present in both `dir1` and `dir2`, ascending.
std::vector<int64_t> matched_numbered_dirs(const std::string& dir1, const std::string& dir2,
                                           const std::string& prefix);

struct GradSimilarities {
  std::vector<int64_t> steps;
  // Parameters in the order of the first grad_summary csv the two runs share, then "summary".
  std::vector<std::string> names;
  // values[name][step]: agreeing elements / elements; 0 where the gradient has no element
  // (written "0", as 1.2.1 writes the int).
  std::vector<std::vector<double>> values;
  std::vector<std::vector<char>> empty;
};

// Compares the direction files of two rank folders (rank{N} of two dump_paths). Throws
// InvalidInput with 1.2.1's messages when nothing matches ("no matched steps for comparison,
// please dump data in same configuration"), FileError for an unreadable or mismatched file.
GradSimilarities compare_rank_dirs(const std::string& rank_dir1, const std::string& rank_dir2);

// similarities.csv as 1.2.1 writes it (a "step" header row, then one row per name).
std::string similarities_csv(const GradSimilarities& s);
// Reads a similarities.csv back (ours or 1.2.1's). Throws FileError naming the file.
GradSimilarities read_similarities_csv(const std::string& path);

// The first step where, for some parameter, the similarity is below `first_step_min` at the first
// step or has dropped by more than `max_drop` since the step before (1.2.1's rule of thumb, docs
// 17: 0.97 and 0.03).
struct GradDivergence {
  bool found = false;
  int64_t step = -1;
  struct Param {
    std::string name;
    double similarity = 0;
    double previous = 1;  // the step before's, or 1 at the first step
  };
  std::vector<Param> params;
  double first_step_min = 0.97, max_drop = 0.03;
};
GradDivergence find_grad_divergence(const GradSimilarities& s, double first_step_min = 0.97,
                                    double max_drop = 0.03);

// The divergence as one log line and as grad_divergence.json.
std::string divergence_line(const GradDivergence& d);
std::string divergence_json(const GradDivergence& d, const GradSimilarities& s);

}  // namespace grad
}  // namespace msprobe
