// One API's details rows and result row.
#include "msprobe/runut/api_result.h"

#include "msprobe/check/csv_table.h"

namespace msprobe {
namespace runut {

namespace {

check::OutputCompareResult message_row(Status status, std::string message) {
  check::OutputCompareResult r;
  r.bench_dtype = " ";
  r.device_dtype = " ";
  r.shape = " ";
  r.status = status;
  r.message = std::move(message);
  return r;
}

}  // namespace

ApiResult::ApiResult(std::string full_name, int precision)
    : name_(std::move(full_name)), precision_(precision) {}

void ApiResult::add_tensor(bool backward, std::string_view api_short_name, const TensorView& bench,
                           const TensorView& device) {
  add_compare(backward, check::compare_output_tensor(api_short_name, bench, device));
}

void ApiResult::add_compare(bool backward, check::OutputCompareResult r) {
  (backward ? bwd_ : fwd_).push_back(std::move(r));
}

void ApiResult::add_builtin(bool backward, std::string bench_type, std::string device_type, bool equal) {
  check::OutputCompareResult r;
  r.bench_dtype = std::move(bench_type);
  r.device_dtype = std::move(device_type);
  r.shape = " ";
  if (equal) {
    r.status = Status::kPass;
    r.error_rate.value = 0;
    r.error_rate.kind = check::NumKind::kInt;
    r.error_rate.set = true;
  } else {
    r.status = Status::kError;
  }
  add_compare(backward, std::move(r));
}

void ApiResult::add_message_row(bool backward, Status status, std::string message) {
  add_compare(backward, message_row(status, std::move(message)));
}

void ApiResult::set_status(bool backward, Status status) {
  if (backward) {
    bwd_set_ = true;
    bwd_status_ = status;
  } else {
    fwd_set_ = true;
    fwd_status_ = status;
  }
}

void ApiResult::add_dropout(bool backward, const TensorView& bench, const TensorView& device) {
  set_status(backward, check::compare_dropout(bench, device).status);
}

void ApiResult::set_backward_message(std::string message) {
  backward_message_ = std::move(message);
  bwd_.clear();
  bwd_.push_back(message_row(Status::kSkip, backward_message_));
}

void ApiResult::skip(std::string message) {
  skipped_ = true;
  fwd_.clear();
  bwd_.clear();
  backward_message_.clear();
  fwd_.push_back(message_row(Status::kSkip, std::move(message)));
}

Status ApiResult::forward_status() const {
  if (skipped_) return Status::kSkip;
  if (fwd_set_) return fwd_status_;
  std::vector<Status> s;
  s.reserve(fwd_.size());
  for (const auto& r : fwd_) s.push_back(r.status);
  return check::merge_output_statuses(s);
}

Status ApiResult::backward_status() const {
  if (skipped_ || !backward_message_.empty()) return Status::kSkip;
  if (bwd_set_) return bwd_status_;
  if (bwd_.empty()) return Status::kBlank;
  std::vector<Status> s;
  s.reserve(bwd_.size());
  for (const auto& r : bwd_) s.push_back(r.status);
  return check::merge_output_statuses(s);
}

void ApiResult::append_details_csv(std::string& out) const {
  std::vector<std::string> fields;
  auto emit = [&](const std::vector<check::OutputCompareResult>& rows, const char* dir) {
    for (size_t i = 0; i < rows.size(); ++i) {
      fields.clear();
      fields.push_back(name_ + dir + std::to_string(i));
      for (std::string& c : rows[i].detail_cells(precision_)) fields.push_back(std::move(c));
      check::append_csv_row(out, fields);
    }
  };
  // Dropout directions (status set without rows) write no rows, as in 1.2.1.
  if (!fwd_set_ || skipped_) emit(fwd_, ".forward.output.");
  if (!bwd_set_ || !backward_message_.empty()) emit(bwd_, ".backward.output.");
}

std::vector<std::string> ApiResult::result_fields() const {
  const Status f = forward_status(), b = backward_status();
  std::vector<std::string> fields{name_, check::status_text(f), check::status_text(b)};
  if (f == Status::kSkip) {
    fields.push_back(fwd_.empty() ? std::string() : fwd_.front().message);
  } else if (b == Status::kSkip) {
    fields.push_back(bwd_.empty() ? std::string() : bwd_.front().message);
  }
  return fields;
}

void ApiResult::append_result_csv(std::string& out) const { check::append_csv_row(out, result_fields()); }

}  // namespace runut
}  // namespace msprobe
