// Task overflow_check in static graph O2 on a device without kernel overflow detection (CPU):
// MindSpore dumps every kernel's tensors and this keeps only the kernels that hold inf/NaN
// (1.2.1's test, Max or Min inf/NaN, on any input or output), as Ascend's overflow dump would.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace msprobe {

struct KernelOverflowResult {
  size_t removed = 0;                 // files of kernels without inf/NaN, deleted
  size_t kept_kernels = 0;            // kernels with inf/NaN seen in this pass
  std::vector<std::string> problems;  // "path: reason" for files left as they are
};

// Walks dump_path/rank_*/{net}/{graph}/{iteration}/. A kernel is its files sharing OpType,
// OpName, task and stream. Before the final pass, a folder with a truncated file is left for
// later (it may still be being written). Never throws for file contents.
KernelOverflowResult filter_kernel_overflow_dump(const std::string& dump_path, bool final_pass);

}  // namespace msprobe
