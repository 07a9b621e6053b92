// Statistics of a MindSpore tensor dump, for devices where MindSpore cannot store statistics
// itself (CPU): MindSpore dumps tensors, this turns each iteration folder's .npy files into
// rows of that folder's statistic.csv (MindSpore's layout) and removes the converted files.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "msprobe/config/dump_config.h"

namespace msprobe {

struct KernelStatOptions {
  // Columns after Shape, in order, from: "max", "min", "avg", "l2norm", "md5".
  std::vector<std::string> categories = {"max", "min", "avg", "l2norm"};
  // On the last pass a truncated file is reported; before it, it may still be being written.
  bool final_pass = false;
};

struct KernelStatResult {
  size_t converted = 0;               // .npy files turned into rows (and removed)
  std::vector<std::string> problems;  // "path: reason" for files kept as they are
};

// Columns for a config: summary_mode "statistics" -> max, min, avg, l2norm; "md5" adds md5;
// the MindSpore list form keeps its order with mean -> avg.
std::vector<std::string> kernel_statistic_categories(const DumpConfig& cfg);

// The header line (without newline) for the given categories; throws InvalidInput for an
// unknown category.
std::string kernel_statistic_header(const std::vector<std::string>& categories);

// Walks dump_path/rank_*/{net}/{graph}/{iteration}/ and converts every complete .npy file
// there (names resolved through the folder's mapping.csv). Never throws for file contents.
KernelStatResult convert_kernel_tensor_dump(const std::string& dump_path, const KernelStatOptions& opts);

}  // namespace msprobe
