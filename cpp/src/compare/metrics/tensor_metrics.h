// Tensor-mode metrics of one row, as 1.2.1 computes them (core/compare/npy_compare.py
// get_error_flag_and_msg, compare_ops_apply and the five metric classes;
// multiprocessing_compute.py check_accuracy).
//
// One pass over both tensors: the inf/NaN positions are compared element by element (a mismatch
// makes every metric "N/A"); matching inf/NaN positions count as 0 on both sides. Cosine and
// EucDist-free sums and MaxAbsErr are taken in float64 like 1.2.1's flattened float64 arrays;
// the relative error is computed in the dtype numpy would use for the unflattened arrays (float16
// rounding emulated), so threshold counts and maxima match numpy's exactly.
#pragma once
#include <limits>
#include <string>

#include "msprobe/compare/compare_table.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace compare {

struct TensorMetrics {
  Cell cosine, max_abs_err, max_relative_err, one_thousandth, five_thousandths;
  std::string err_msg;
  // ||npu - bench||_2 / ||bench||_2 (not a 1.2.1 column; first divergence judges by it); NaN
  // when not computed (scalars, shape mismatch, unreadable), inf when inf/NaN positions differ.
  double relative_l2_error = std::numeric_limits<double>::quiet_NaN();
};

// Metrics of two loaded tensors. bf16 tensors count as float32 (1.2.1 widens them on load);
// complex tensors are read as their real part (numpy astype(float)).
TensorMetrics compare_tensor_data(const TensorView& npu, const TensorView& bench);

// A row whose data could not be read: every metric "unsupported", with err_msg.
TensorMetrics unreadable_metrics(const std::string& err_msg);

// 1.2.1's Err_message texts for rows without readable data.
inline const char* kNoBenchDataMsg = "No bench data matched.";          // NPU row has no tensor file
inline const char* kBenchNoFileMsg = "Bench does not have data file.";  // bench leaf has none
std::string file_not_found_msg(const std::string& data_name);           // "Dump file: X not found."

// check_accuracy: "Yes" / "No" / "Unmatched" / "None" from the Cosine and MaxAbsErr cells.
Cell accuracy_verdict(const Cell& cosine, const Cell& max_abs_err);

// Python float('{:.12f}'.format(v)) and round(v, ndigits).
double format_value(double v);
double py_round(double v, int ndigits);

}  // namespace compare
}  // namespace msprobe
