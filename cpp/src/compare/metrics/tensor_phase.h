// Tensor mode's second phase (1.2.1 do_multi_process / compare_ops / compare_by_op): every row's
// NPU and bench tensors are loaded and compared, rows spread over a pool of threads; each thread
// holds one tensor pair at a time, so memory stays at (threads x largest pair) + the table.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "compare/matching/result_rows.h"
#include "msprobe/compare/compare_table.h"

namespace msprobe {
namespace compare {

struct TensorPhaseInput {
  std::string npu_tensor_dir, bench_tensor_dir;  // the dumps' dump_tensor_data folders
  std::string bench_dump_json;                   // for the bench file names
  const char* npu_suffix = ".pt";                // NPU file = NPU Name + suffix (".npy" for MindSpore)
  bool pt_files_only = true;                     // PyTorch: both files must be .pt
  bool fuzzy = false;
  int threads = 0;                                          // 0: all cores
  std::function<void(size_t done, size_t total)> progress;  // on the calling thread
};

// rows: final tensor-mode rows (header = table_header(kTensor, stack_mode)); relative_l2_error
// receives each row's TensorMetrics::relative_l2_error.
void run_tensor_phase(std::vector<Row>& rows, const std::vector<std::string>& header,
                      const TensorPhaseInput& in, std::vector<double>* relative_l2_error);

}  // namespace compare
}  // namespace msprobe
