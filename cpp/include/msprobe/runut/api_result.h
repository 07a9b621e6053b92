// The verdict of one API call in run_ut: its rows of accuracy_checking_details_{ts}.csv and its
// row of accuracy_checking_result_{ts}.csv (accuracy-checker spec §1.10-§1.12).
//
// Per-output comparison and the status merge come from the check library
// (check::compare_output_tensor, check::merge_output_statuses: any error wins over a later
// Warning, a documented fix over 1.2.1).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "msprobe/check/output_compare.h"
#include "msprobe/check/standards.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace runut {

using check::Status;

class ApiResult {
 public:
  explicit ApiResult(std::string full_name, int precision = 14);

  const std::string& name() const { return name_; }

  // Output rows, in output order, of the forward (backward=false) or backward pass.
  // A tensor output pair, judged by check::compare_output_tensor (the caller releases the GIL).
  void add_tensor(bool backward, std::string_view api_short_name, const TensorView& bench,
                  const TensorView& device);
  void add_compare(bool backward, check::OutputCompareResult r);
  // A Python bool/int/float/str output: pass with 二进制一致错误率 0 when equal, else error.
  // bench_type / device_type: str(type(x)), e.g. "<class 'int'>".
  void add_builtin(bool backward, std::string bench_type, std::string device_type, bool equal);
  // A row without metrics: only Status and Message (e.g. SKIP "Bench output is None, skip this
  // test.", error "bench and npu output type is different.").
  void add_message_row(bool backward, Status status, std::string message);
  // Sets a direction's status without detail rows (dropout APIs).
  void set_status(bool backward, Status status);
  // The dropout rule (check::compare_dropout) for a direction: a status, no detail rows.
  void add_dropout(bool backward, const TensorView& bench, const TensorView& device);
  // A backward message (out= kwarg, no backward data, ...): Backward is SKIP and the backward
  // rows are replaced by one SKIP row carrying the message.
  void set_backward_message(std::string message);
  // The whole API is skipped: Forward and Backward SKIP, one forward row with the message.
  void skip(std::string message);

  Status forward_status() const;
  Status backward_status() const;  // kBlank: no backward
  size_t num_rows(bool backward) const { return backward ? bwd_.size() : fwd_.size(); }
  const check::OutputCompareResult& row(bool backward, size_t i) const {
    return backward ? bwd_[i] : fwd_[i];
  }

  // Appends the details rows / the result row as CSV records (Python csv module format).
  void append_details_csv(std::string& out) const;
  void append_result_csv(std::string& out) const;
  // The result row's fields: 3, or 4 when Forward or Backward is SKIP (with its message).
  std::vector<std::string> result_fields() const;

 private:
  std::string name_;
  int precision_;
  std::vector<check::OutputCompareResult> fwd_, bwd_;
  bool fwd_set_ = false, bwd_set_ = false;
  Status fwd_status_ = Status::kPass, bwd_status_ = Status::kPass;
  bool skipped_ = false;
  std::string backward_message_;
};

}  // namespace runut
}  // namespace msprobe
