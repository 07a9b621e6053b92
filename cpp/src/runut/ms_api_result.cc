// One API's rows in MindSpore's run_ut (1.2.1 data_manager's record / to_result_csv rules).
#include "msprobe/runut/ms_api_result.h"

#include "msprobe/check/csv_table.h"
#include "msprobe/check/ms_checker_metrics.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace runut {

namespace {

constexpr const char* kCosineError = "cosine similarity is less than threshold: 0.99 ";
constexpr const char* kMaxAbsError = "max absolute difference is greater than threshold: 0.001 ";
constexpr const char* kCosineSkip =
    "two inputs are not valid for computing cosine similarity, skip comparing ";
constexpr const char* kMaxAbsSkip =
    "two inputs are not valid for computing max absolute difference, skip comparing ";

}  // namespace

void MsApiResult::add_row(bool backward, std::vector<std::string> fields, bool pass, std::string message) {
  Direction& d = dir(backward);
  const std::string slot =
      name_ + (backward ? ".backward" : ".forward") + ".output." + std::to_string(d.rows.size());
  fields.insert(fields.begin(), slot);
  fields.push_back(pass ? "pass" : "error");
  fields.push_back(message);
  d.ran = true;
  d.rows.push_back(Row{std::move(fields), pass, std::move(message)});
}

void MsApiResult::add_tensor(bool backward, std::string bench_dtype, std::string tested_dtype,
                             std::string shape, const TensorView& bench, const TensorView& tested) {
  const check::MsCheckerMetrics m = check::ms_checker_metrics(bench, tested);
  const bool pass = m.cosine_pass && m.max_abs_pass;
  std::string message;
  if (!pass) message = std::string(m.cosine_pass ? "" : kCosineError) + (m.max_abs_pass ? "" : kMaxAbsError);
  add_row(backward,
          {std::move(bench_dtype), std::move(tested_dtype), std::move(shape), py_float_repr(m.cosine),
           py_float_repr(m.max_abs_err), py_float_repr(m.max_rel_err)},
          pass, std::move(message));
}

void MsApiResult::add_not_comparable(bool backward, std::string bench_dtype, std::string tested_dtype,
                                     std::string shape) {
  add_row(backward, {std::move(bench_dtype), std::move(tested_dtype), std::move(shape), "", "", ""}, false,
          std::string(kCosineSkip) + kMaxAbsSkip);
}

void MsApiResult::mark_ran(bool backward) { dir(backward).ran = true; }

void MsApiResult::skip(bool backward, std::string message) {
  Direction& d = dir(backward);
  d.rows.clear();
  d.ran = false;
  d.skipped = true;
  d.skip_message = std::move(message);
}

std::string MsApiResult::status(bool backward) const {
  const Direction& d = dir(backward);
  if (d.skipped) return "SKIP";
  if (d.rows.empty()) return "";  // 1.2.1 records nothing for a direction without output rows
  for (const Row& r : d.rows) {
    if (!r.pass) return "error";
  }
  return "pass";
}

bool MsApiResult::has_result_row() const {
  return !fwd_.rows.empty() || !bwd_.rows.empty() || fwd_.skipped || bwd_.skipped;
}

std::string MsApiResult::error_text(bool backward) const {
  std::string s;
  if (status(backward) != "error") return s;
  for (const Row& r : dir(backward).rows) s += r.message;
  return s;
}

void MsApiResult::append_details_csv(std::string& out) const {
  for (const Direction* d : {&fwd_, &bwd_}) {
    for (const Row& r : d->rows) check::append_csv_row(out, r.fields);
  }
}

void MsApiResult::append_result_csv(std::string& out) const {
  if (!has_result_row()) return;
  const std::string f = status(false), b = status(true);
  std::string message;
  if (!(f == "pass" && b == "pass")) message = error_text(false) + error_text(true);
  if (fwd_.skipped) message += fwd_.skip_message;
  if (bwd_.skipped) message += bwd_.skip_message;
  check::append_csv_row(out, {name_, f, b, message});
}

}  // namespace runut
}  // namespace msprobe
