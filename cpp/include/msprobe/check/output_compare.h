// The verdict on one output tensor of run_ut (accuracy-checker spec §1.11, §1.12): the
// details-row cells from "Bench Dtype" to "Message", and the API-level status merge.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "msprobe/check/metrics.h"
#include "msprobe/check/standards.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace check {

struct OutputCompareResult {
  std::string bench_dtype;   // "torch.float64"
  std::string device_dtype;  // "torch.float32"
  std::string shape;         // device shape as a Python tuple: "(4, 8)", "(16,)", "()"
  Standard standard = Standard::kBenchmark;
  Num cosine, max_abs_err, hundredth, thousandth, ten_thousandth, error_rate, eb, rmse, small_value_err_ratio,
      max_rel_err, mean_rel_err, inf_nan_error_ratio, rel_err_ratio, abs_err_ratio, max_ulp_err, mean_ulp_err,
      ulp_err_proportion;
  Status status = Status::kPass;
  std::string message;

  // The 22 cells after "API Name" of an accuracy_checking_details row, as 1.2.1 writes them
  // (precision: config.yaml `precision`, default 14).
  std::vector<std::string> detail_cells(int precision = 14) const;
};

// Compares a bench tensor with a device tensor the way 1.2.1 run_ut does for a tensor output
// of the API `api_short_name` ("matmul", "conv2d"): shape and dtype checks, the error-rate rule
// for bool/uint8/int32/int64, and for floats the standard's metrics (device fp16/bf16/fp32)
// plus the cosine / max-abs / 双百 / 双千 / 双万 decision chain with its messages.
OutputCompareResult compare_output_tensor(std::string_view api_short_name, const TensorView& bench,
                                          const TensorView& device);

// API-level status of several outputs. Deliberate fix over 1.2.1 (whose merge lets a later
// Warning replace an earlier error): any error -> error, else any Warning -> Warning, else pass.
// SKIP items are ignored; no items or only SKIP items -> pass (as in 1.2.1).
Status merge_output_statuses(const std::vector<Status>& statuses);

// The dropout rule: N >= 100 -> pass (1) iff |zeros(bench) - zeros(device)| / N < 0.1, else
// error (0); N < 100 -> pass (1).
struct DropoutResult {
  Status status;
  int value;
};
DropoutResult compare_dropout(const TensorView& bench, const TensorView& device);

// "(4, 8)", "(16,)", "()" and "torch.Size([4, 8])".
std::string python_tuple_text(const std::vector<int64_t>& shape);
std::string torch_size_text(const std::vector<int64_t>& shape);

}  // namespace check
}  // namespace msprobe
