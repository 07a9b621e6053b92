// The verdict of one API in MindSpore's run_ut (1.2.1 docs 09): its rows of
// accuracy_checking_details_{ts}.csv (API Name, Bench Dtype, Tested Dtype, Shape, Cosine,
// MaxAbsErr, MaxRelativeErr, Status, Message) and its row of accuracy_checking_result_{ts}.csv
// (API Name, Forward Test Success, Backward Test Success, Message).
//
// Each output is judged by check::ms_checker_metrics: pass when Cosine and MaxAbsErr pass, else
// error with their messages. A direction whose replay raised is SKIP with the exception text; a
// direction with no record (no backward in the dump) is left empty.
#pragma once
#include <string>
#include <vector>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace runut {

class MsApiResult {
 public:
  explicit MsApiResult(std::string name) : name_(std::move(name)) {}  // "Mint.add.0"
  const std::string& name() const { return name_; }

  // Output pair number `index` (in order) of a direction: the metrics, or, when `comparable` is
  // false (not two tensors of one shape), no metrics and an error row. Dtypes as 1.2.1 names
  // them ("Float32", "int"), shape as Python prints the bench's tuple ("(2, 3)").
  void add_tensor(bool backward, std::string bench_dtype, std::string tested_dtype, std::string shape,
                  const TensorView& bench, const TensorView& tested);
  void add_not_comparable(bool backward, std::string bench_dtype, std::string tested_dtype,
                          std::string shape);
  // The direction ran without an exception (even with no output rows left).
  void mark_ran(bool backward);
  // The direction raised: SKIP with this message.
  void skip(bool backward, std::string message);

  // "pass", "error", "SKIP", or "" when the direction was not checked.
  std::string status(bool backward) const;
  // False when neither direction ran nor was skipped (1.2.1 writes no result row then).
  bool has_result_row() const;
  size_t num_rows(bool backward) const { return dir(backward).rows.size(); }

  void append_details_csv(std::string& out) const;
  void append_result_csv(std::string& out) const;

 private:
  struct Row {
    std::vector<std::string> fields;
    bool pass = false;
    std::string message;
  };
  struct Direction {
    std::vector<Row> rows;
    bool ran = false, skipped = false;
    std::string skip_message;
  };
  const Direction& dir(bool backward) const { return backward ? bwd_ : fwd_; }
  Direction& dir(bool backward) { return backward ? bwd_ : fwd_; }
  void add_row(bool backward, std::vector<std::string> fields, bool pass, std::string message);
  std::string error_text(bool backward) const;

  std::string name_;
  Direction fwd_, bwd_;
};

}  // namespace runut
}  // namespace msprobe
