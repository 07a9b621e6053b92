// grad_probe's files for one rank (1.2.1 layout, docs 17):
//   {dump_path}/rank{rank}/grad_summary_{step}.csv      one row per gradient of the step
//   {dump_path}/rank{rank}/step{step}/{param_name}.npy  its direction (bool, element > 0), L1/L2
// A step's gradients arrive in one call; each is read once (grad_summary.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "msprobe/config/dump_config.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace grad {

// What a step wrote.
struct GradStepFiles {
  std::string csv_path;
  int64_t rows = 0;             // gradients summarised
  int64_t direction_files = 0;  // .npy files written (L1/L2)
};

class GradStepWriter {
 public:
  // Makes dump_path (mode 0750) if needed; the files go to dump_path/rank{rank}.
  GradStepWriter(const GradProbeConfig& config, std::string dump_path, int64_t rank);

  // The header row of grad_summary_{step}.csv (without the BOM).
  std::vector<std::string> header() const;
  // Summarises `grads` (names[i] its parameter name) and writes the step's files, replacing
  // earlier ones. Thread-safe for distinct steps; throws InvalidInput for a parameter name that
  // cannot be a file name and FileError when a file cannot be written.
  GradStepFiles write_step(int64_t step, const std::vector<std::string>& names,
                           const std::vector<TensorView>& grads) const;

  const std::string& rank_dir() const { return rank_dir_; }

 private:
  std::string level_;
  std::vector<double> bounds_;
  std::vector<std::string> bound_labels_;
  std::string rank_dir_;
};

}  // namespace grad
}  // namespace msprobe
