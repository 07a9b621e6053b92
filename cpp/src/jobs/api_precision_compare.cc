// api_precision_compare end to end (accuracy-checker spec §5).
//
// Cells are interpreted as the original's pandas.read_csv left them: an absent cell or one of
// pandas' NA spellings ("", "nan", "NaN", "NULL", ...) is a float NaN; every other cell is its
// text. Numbers are parsed with Python float() rules; a whitespace-only cell that must be a
// number is the row error "ERROR: Input data is an empty string".
#include "msprobe/jobs/api_precision_compare.h"

#include <cmath>
#include <string_view>
#include <unordered_map>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/check/csv_table.h"
#include "msprobe/check/number_format.h"
#include "msprobe/check/standards.h"
#include "msprobe/runut/dump_apis.h"

namespace msprobe {
namespace check {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Input columns. The first 14 are required (as in 1.2.1); Shape and Message are optional.
enum InCol {
  kApiName,
  kDeviceDtype,
  kSmallValue,
  kRmse,
  kMaxRel,
  kMeanRel,
  kEb,
  kErrorRate,
  kInfNan,
  kRelErrRatio,
  kAbsErrRatio,
  kMeanUlp,
  kUlpProportion,
  kThousandth,
  kShape,
  kMessage,
  kNumInCols
};
const char* const kInColNames[kNumInCols] = {
    "API Name",       "DEVICE Dtype",  "小值域错误占比",      "均方根误差",    "相对误差最大值",
    "相对误差平均值", "误差均衡性",    "二进制一致错误率",    "inf/nan错误率", "相对误差错误率",
    "绝对误差错误率", "ULP误差平均值", "ULP误差大于阈值占比", "双千指标",      "Shape",
    "Message"};
constexpr int kNumRequired = 14;

// Output details columns.
enum OutCol {
  oApiName,
  oSmallRatio,
  oSmallStatus,
  oRmseRatio,
  oRmseStatus,
  oMaxRelRatio,
  oMaxRelStatus,
  oMeanRelRatio,
  oMeanRelStatus,
  oEbRatio,
  oEbStatus,
  oInfNan,
  oInfNanStatus,
  oRelErr,
  oRelErrStatus,
  oAbsErr,
  oAbsErrStatus,
  oErrorRate,
  oErrorRateStatus,
  oMeanUlp,
  oUlpProp,
  oUlpPropRatio,
  oUlpStatus,
  oThousandth,
  oThousandthStatus,
  oResult,
  oAlgorithm,
  oMessage,
  kNumOutCols
};
const char* const kDetailHeader[kNumOutCols] = {"API Name",
                                                "小值域错误比值",
                                                "小值域判定结果",
                                                "均方根误差比值",
                                                "均方根误差判定结果",
                                                "相对误差最大值比值",
                                                "相对误差最大值判定结果",
                                                "相对误差平均值比值",
                                                "相对误差平均值判定结果",
                                                "误差均衡性比值",
                                                "误差均衡性判定结果",
                                                "inf/nan错误率",
                                                "inf/nan判定结果",
                                                "相对误差错误率",
                                                "相对误差判定结果",
                                                "绝对误差错误率",
                                                "绝对误差判定结果",
                                                "二进制一致错误率",
                                                "二进制一致错误率判定结果",
                                                "ULP误差平均值",
                                                "ULP误差大于阈值占比",
                                                "ULP误差大于阈值占比比值",
                                                "ULP误差判定结果",
                                                "双千指标",
                                                "双千指标判定结果",
                                                "比对结果",
                                                "比对算法",
                                                "Message"};
const char* const kResultHeader[4] = {"API Name", "Forward Test Success", "Backward Test Success", "Message"};

const char* const kUnsupportedMessage = "This data type does not support benchmark compare.";
const char* const kTopkMessage =
    "在npu上，topk的入参sorted=False时不生效，会返回有序tensor，而cpu上会返回无序tensor。 "
    "如果topk精度不达标，请检查是否是该原因导致的。";

bool is_unsupported_dtype(std::string_view d) {
  return d == "torch.float64" || d == "torch.complex64" || d == "torch.complex128";
}

// pandas.read_csv's default NA spellings.
bool is_na_text(std::string_view s) {
  static const std::string_view kNa[] = {"",     "#N/A",   "#N/A N/A", "#NA",  "-1.#IND", "-1.#QNAN", "-NaN",
                                         "-nan", "1.#IND", "1.#QNAN",  "<NA>", "N/A",     "NA",       "NULL",
                                         "NaN",  "None",   "n/a",      "nan",  "null"};
  for (std::string_view n : kNa) {
    if (s == n) return true;
  }
  return false;
}

bool is_py_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
         (c >= '\x1c' && c <= '\x1f');
}
bool all_space(std::string_view s) {
  for (char c : s) {
    if (!is_py_space(c)) return false;
  }
  return true;
}

// A judgement that cannot be made for this row (1.2.1's exception path): the row is SKIPped
// with this text.
struct RowError {
  std::string message;
};

// One input row with its columns resolved.
class Row {
 public:
  Row(const CsvTable& t, size_t row, const int* cols) : t_(t), row_(row), cols_(cols) {}
  // The cell, or nullptr when it is absent (short row).
  const std::string_view* raw(InCol c) const {
    if (cols_[c] < 0) return nullptr;
    return t_.cell(row_, (size_t)cols_[c]);
  }
  bool has_column(InCol c) const { return cols_[c] >= 0; }
  bool is_na(InCol c) const {
    const std::string_view* v = raw(c);
    return v == nullptr || is_na_text(*v);
  }
  std::string_view text(InCol c) const { return *raw(c); }
  // The cell as a pandas value printed by Python: NaN -> "nan", else the text.
  std::string value_text(InCol c) const { return is_na(c) ? "nan" : std::string(text(c)); }
  // convert_str_to_float of 1.2.1.
  double number(InCol c) const {
    if (is_na(c)) return kNaN;
    std::string_view s = text(c);
    if (all_space(s)) throw RowError{"ERROR: Input data is an empty string"};
    double v;
    if (!parse_python_float(s, v)) throw RowError{"ERROR: Input data cannot be converted to float"};
    return v;
  }
  int64_t line() const { return t_.row_line(row_); }

 private:
  const CsvTable& t_;
  size_t row_;
  const int* cols_;
};

struct Ratio {
  double value;
  bool consistent;
  std::string message;
};

// NPU/GPU ratio with the dtype floor; inf/nan on either side gives NaN and a consistency note.
Ratio ratio_of(double npu, double gpu, std::string_view column, double minimum_err) {
  if (std::isinf(npu) || std::isinf(gpu)) {
    if (std::isinf(npu) && std::isinf(gpu) && npu == gpu) {
      return {kNaN, true, std::string(column) + "同为同号inf或nan\n"};
    }
    return {kNaN, false, std::string(column) + "inf或nan不一致\n"};
  }
  if (std::isnan(npu) || std::isnan(gpu)) {
    if (std::isnan(npu) && std::isnan(gpu)) {
      return {kNaN, true, std::string(column) + "同为同号inf或nan\n"};
    }
    return {kNaN, false, std::string(column) + "inf或nan不一致\n"};
  }
  const double den = std::max(std::fabs(gpu), minimum_err);
  return {std::fabs(npu) / den, true, ""};
}

using OutRow = std::vector<std::string>;

class Judge {
 public:
  explicit Judge(int precision) : precision_(precision) {}

  std::string fixed(double v) const { return format_fixed(v, precision_); }

  // get_api_status of 1.2.1: fills `out` and returns the row status. Throws RowError.
  Status judge(const Row& npu, const Row& gpu, std::string_view api_name, OutRow& out) const {
    if (npu.is_na(kDeviceDtype)) throw RowError{"'float' object has no attribute 'isspace'"};
    const std::string_view dtype = npu.text(kDeviceDtype);
    bool skip = all_space(dtype) || is_unsupported_dtype(dtype);
    if (!skip) {
      if (!npu.has_column(kShape)) throw RowError{"'Shape'"};
      skip = !npu.is_na(kShape) && npu.text(kShape) == "(0,)";
    }
    if (skip) {
      if (!npu.has_column(kMessage)) throw RowError{"'Message'"};
      out[oResult] = status_text(Status::kSkip);
      out[oMessage] = npu.value_text(kMessage);
      return Status::kSkip;
    }
    switch (standard_for_precision_row(api_name, dtype)) {
      case Standard::kBinaryConsistency: return binary(npu, out);
      case Standard::kAbsoluteThreshold: return absolute(npu, out);
      case Standard::kUlp: return ulp(npu, gpu, dtype, out);
      case Standard::kThousandth: return thousandth(npu, out);
      case Standard::kAccumulativeError: return accumulative(npu, dtype, out);
      case Standard::kBenchmark: break;
    }
    return benchmark(npu, gpu, dtype, out);
  }

 private:
  static const char* pass_or_error(bool pass) { return status_text(pass ? Status::kPass : Status::kError); }

  Status binary(const Row& npu, OutRow& out) const {
    const bool pass = npu.number(kErrorRate) == 0;
    out[oErrorRate] = npu.value_text(kErrorRate);
    out[oErrorRateStatus] = pass_or_error(pass);
    out[oResult] = pass_or_error(pass);
    out[oAlgorithm] = standard_label(Standard::kBinaryConsistency);
    out[oMessage] = pass ? "" : "ERROR: 二进制一致错误率超过阈值\n";
    return pass ? Status::kPass : Status::kError;
  }

  struct Absolute {
    double inf_nan, rel, abs;
    bool inf_ok, rel_ok, abs_ok;
  };
  static Absolute absolute_values(const Row& npu) {
    Absolute a;
    a.inf_nan = npu.number(kInfNan);
    a.rel = npu.number(kRelErrRatio);
    a.abs = npu.number(kAbsErrRatio);
    a.inf_ok = a.inf_nan == 0;
    a.rel_ok = a.rel == 0;
    a.abs_ok = a.abs == 0;
    return a;
  }
  void put_absolute(const Absolute& a, OutRow& out) const {
    out[oInfNan] = fixed(a.inf_nan);
    out[oInfNanStatus] = pass_or_error(a.inf_ok);
    out[oRelErr] = fixed(a.rel);
    out[oRelErrStatus] = pass_or_error(a.rel_ok);
    out[oAbsErr] = fixed(a.abs);
    out[oAbsErrStatus] = pass_or_error(a.abs_ok);
  }

  Status absolute(const Row& npu, OutRow& out) const {
    const Absolute a = absolute_values(npu);
    put_absolute(a, out);
    const bool pass = a.inf_ok && a.rel_ok && a.abs_ok;
    out[oResult] = pass_or_error(pass);
    out[oAlgorithm] = standard_label(Standard::kAbsoluteThreshold);
    // 1.2.1 joins these three without line breaks; kept.
    std::string msg;
    if (!a.inf_ok) msg += "ERROR: inf/nan错误率超过阈值";
    if (!a.rel_ok) msg += "ERROR: 相对误差错误率超过阈值";
    if (!a.abs_ok) msg += "ERROR: 绝对误差错误率超过阈值";
    out[oMessage] = msg;
    return pass ? Status::kPass : Status::kError;
  }

  Status accumulative(const Row& npu, std::string_view dtype, OutRow& out) const {
    const Absolute a = absolute_values(npu);
    const double eb = npu.number(kEb);
    const bool eb_ok = eb <= thresholds_for_name(dtype).accumulative_eb_threshold;
    put_absolute(a, out);
    out[oEbRatio] = fixed(eb);
    out[oEbStatus] = pass_or_error(eb_ok);
    const bool pass = a.inf_ok && a.rel_ok && a.abs_ok && eb_ok;
    out[oResult] = pass_or_error(pass);
    out[oAlgorithm] = standard_label(Standard::kAccumulativeError);
    // 1.2.1 joins these lines (each already ending in "\n") with "\n"; kept.
    std::vector<const char*> lines;
    if (!a.inf_ok) lines.push_back("ERROR: inf/nan错误率超过阈值\n");
    if (!a.rel_ok) lines.push_back("ERROR: 相对误差错误率超过阈值\n");
    if (!a.abs_ok) lines.push_back("ERROR: 绝对误差错误率超过阈值\n");
    if (!eb_ok) lines.push_back("ERROR: 误差均衡性超过阈值\n");
    std::string msg;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i) msg += "\n";
      msg += lines[i];
    }
    out[oMessage] = msg;
    return pass ? Status::kPass : Status::kError;
  }

  Status thousandth(const Row& npu, OutRow& out) const {
    const bool pass = npu.number(kThousandth) >= kThousandthPassValue;
    out[oThousandth] = npu.value_text(kThousandth);
    out[oThousandthStatus] = pass_or_error(pass);
    out[oResult] = pass_or_error(pass);
    out[oAlgorithm] = standard_label(Standard::kThousandth);
    out[oMessage] = pass ? "" : "ERROR: 双千指标不达标\n";
    return pass ? Status::kPass : Status::kError;
  }

  Status benchmark(const Row& npu, const Row& gpu, std::string_view dtype, OutRow& out) const {
    const double floor = thresholds_for_name(dtype).minimum_err;
    struct Metric {
      InCol in;
      OutCol ratio_col, status_col;
      double threshold;
      const char* error_message;
    };
    static const Metric kMetrics[5] = {
        {kSmallValue, oSmallRatio, oSmallStatus, kSmallValueErrRatioThreshold,
         "ERROR: 小值域错误比值超过阈值\n"},
        {kRmse, oRmseRatio, oRmseStatus, kRmseRatioThreshold, "ERROR: 均方根误差比值超过阈值\n"},
        {kMaxRel, oMaxRelRatio, oMaxRelStatus, kMaxRelErrRatioThreshold,
         "ERROR: 相对误差最大值比值超过阈值\n"},
        {kMeanRel, oMeanRelRatio, oMeanRelStatus, kMeanRelErrRatioThreshold,
         "ERROR: 相对误差平均值比值超过阈值\n"},
        {kEb, oEbRatio, oEbStatus, kEbRatioThreshold, nullptr},
    };
    Ratio ratios[5];
    std::string msg;
    for (int k = 0; k < 5; ++k) {
      const double x = npu.number(kMetrics[k].in);
      const double y = gpu.number(kMetrics[k].in);
      ratios[k] = ratio_of(x, y, kInColNames[kMetrics[k].in], floor);
      msg += ratios[k].message;
    }
    bool error = false;
    std::string error_lines;
    for (int k = 0; k < 5; ++k) {
      const Ratio& r = ratios[k];
      bool ok;
      if (!r.consistent) {
        ok = false;
      } else if (std::isnan(r.value) || std::isinf(r.value)) {
        ok = true;
      } else {
        ok = !(r.value > kMetrics[k].threshold);
      }
      out[kMetrics[k].ratio_col] = fixed(r.value);
      out[kMetrics[k].status_col] = pass_or_error(ok);
      if (k < 4 && !ok) {  // error balance is shown but does not count (1.2.1)
        error = true;
        error_lines += kMetrics[k].error_message;
      }
    }
    out[oResult] = pass_or_error(!error);
    out[oAlgorithm] = standard_label(Standard::kBenchmark);
    out[oMessage] = msg + error_lines;
    return error ? Status::kError : Status::kPass;
  }

  Status ulp(const Row& npu, const Row& gpu, std::string_view dtype, OutRow& out) const {
    const char* mean_col = kInColNames[kMeanUlp];
    const char* prop_col = kInColNames[kUlpProportion];
    const double mean_npu = npu.number(kMeanUlp);
    const double mean_gpu = gpu.number(kMeanUlp);
    bool mean_ok = true;
    std::string msg;
    if (!std::isfinite(mean_npu) || !std::isfinite(mean_gpu)) {
      const Ratio r = ratio_of(mean_npu, mean_gpu, mean_col, 1.0);
      mean_ok = r.consistent;
      msg += r.message;
    }
    const double prop_npu = npu.number(kUlpProportion);
    const double prop_gpu = gpu.number(kUlpProportion);
    const Ratio pr = ratio_of(prop_npu, prop_gpu, prop_col, thresholds_for_name(dtype).minimum_err);
    msg += pr.message;
    out[oMeanUlp] = fixed(mean_npu);
    out[oUlpProp] = fixed(prop_npu);
    out[oUlpPropRatio] = fixed(pr.value);
    out[oAlgorithm] = standard_label(Standard::kUlp);
    bool pass;
    if (!(mean_ok && pr.consistent)) {
      pass = false;
    } else if (dtype == "torch.float32") {
      pass = mean_npu < kUlpFp32MeanErrThreshold || prop_npu < kUlpFp32ProportionThreshold ||
             pr.value < kUlpProportionRatioThreshold;
    } else {
      pass = prop_npu < kUlpFp16ProportionThreshold || pr.value < kUlpProportionRatioThreshold;
    }
    // Fix: 1.2.1 leaves ULP误差判定结果 blank on an inf/nan inconsistency; we write "error".
    out[oUlpStatus] = pass_or_error(pass);
    out[oResult] = pass_or_error(pass);
    out[oMessage] = pass ? msg : msg + "ERROR: ULP误差不满足标准\n";
    return pass ? Status::kPass : Status::kError;
  }

  int precision_;
};

// get_api_checker_result of 1.2.1.
Status direction_result(const std::vector<Status>& s) {
  if (s.empty()) return Status::kBlank;
  bool all_skip = true, warning = false, error = false;
  for (Status x : s) {
    all_skip = all_skip && x == Status::kSkip;
    error = error || x == Status::kError;
    warning = warning || x == Status::kWarning;
  }
  if (all_skip) return Status::kSkip;
  if (error) return Status::kError;
  if (warning) return Status::kWarning;
  return Status::kPass;
}

void resolve_columns(const CsvTable& t, const std::string& path, int* cols) {
  std::string missing;
  for (int c = 0; c < kNumInCols; ++c) {
    cols[c] = t.column(kInColNames[c]);
    if (cols[c] < 0 && c < kNumRequired) {
      if (!missing.empty()) missing += ", ";
      missing += kInColNames[c];
    }
  }
  if (!missing.empty()) {
    throw InvalidInput(path + ": not a run_ut accuracy_checking_details CSV: missing column(s) " + missing);
  }
}

// A name inside a log line: line breaks escaped so that every message stays one line.
std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

PrecisionCompareReport api_precision_compare(const PrecisionCompareConfig& cfg) {
  const CsvTable npu = CsvTable::read_file(cfg.npu_csv_path);
  int npu_cols[kNumInCols];
  resolve_columns(npu, cfg.npu_csv_path, npu_cols);
  const CsvTable gpu = CsvTable::read_file(cfg.gpu_csv_path);
  int gpu_cols[kNumInCols];
  resolve_columns(gpu, cfg.gpu_csv_path, gpu_cols);

  // GPU rows by API Name: first row and count.
  struct GpuEntry {
    size_t row;
    size_t second_row;
    int count;
  };
  std::unordered_map<std::string_view, GpuEntry> gpu_index;
  gpu_index.reserve(gpu.num_rows() * 2 + 1);
  for (size_t r = 0; r < gpu.num_rows(); ++r) {
    const std::string_view* name = gpu_cols[kApiName] >= 0 ? gpu.cell(r, gpu_cols[kApiName]) : nullptr;
    if (name == nullptr || is_na_text(*name)) continue;
    auto it = gpu_index.find(*name);
    if (it == gpu_index.end()) {
      gpu_index.emplace(*name, GpuEntry{r, 0, 1});
    } else {
      if (it->second.count == 1) it->second.second_row = r;
      ++it->second.count;
    }
  }

  PrecisionCompareReport rep;
  rep.npu_rows = (int64_t)npu.num_rows();
  const Judge judge(cfg.precision);
  std::string details = "\xEF\xBB\xBF";
  std::string result = "\xEF\xBB\xBF";
  append_csv_row(details, OutRow(kDetailHeader, kDetailHeader + kNumOutCols));
  append_csv_row(result, OutRow(kResultHeader, kResultHeader + 4));

  auto emit_detail = [&](const OutRow& row) {
    append_csv_row(details, row);
    ++rep.detail_rows;
  };
  auto emit_result = [&](const std::string& api, Status fwd, Status bwd, const std::string& msg) {
    append_csv_row(result, {api, status_text(fwd), status_text(bwd), msg});
    ++rep.result_rows;
  };

  // The API being accumulated.
  bool have_api = false;
  std::string api_full, api_name;
  std::vector<Status> fwd, bwd;
  int64_t api_supported_rows = 0;
  std::string skip_message;  // Message of the API's last forward row, when it was SKIP

  auto flush = [&]() {
    if (!have_api) return;
    if (api_supported_rows == 0) {
      emit_result(api_full, Status::kSkip, Status::kSkip, kUnsupportedMessage);
    } else {
      const Status f = direction_result(fwd), b = direction_result(bwd);
      std::string msg;
      if (f == Status::kError && api_name == "topk") msg += kTopkMessage;
      if (f == Status::kSkip) msg += skip_message;
      emit_result(api_full, f, b, msg);
    }
    fwd.clear();
    bwd.clear();
    api_supported_rows = 0;
    skip_message.clear();
  };

  for (size_t r = 0; r < npu.num_rows(); ++r) {
    const Row nrow(npu, r, npu_cols);
    if (nrow.is_na(kApiName)) {
      rep.error = cfg.npu_csv_path + ":" + std::to_string(nrow.line()) +
                  ": empty API Name; stopped here (the output holds the rows before it)";
      break;
    }
    const std::string name(nrow.text(kApiName));
    std::string row_api_name, row_api_full, direction;
    if (!runut::split_details_row_name(name, &row_api_name, &row_api_full, &direction)) {
      const std::string msg = "The API name " + name + " is invalid.";
      rep.warnings.push_back(one_line(msg));
      OutRow out(kNumOutCols, " ");
      out[oApiName] = name;
      out[oResult] = status_text(Status::kSkip);
      out[oMessage] = msg;
      emit_detail(out);
      emit_result(name, Status::kSkip, Status::kSkip, msg);
      continue;
    }
    auto g = gpu_index.find(std::string_view(name));
    if (g == gpu_index.end()) {
      rep.warnings.push_back("This API : " + one_line(name) + " does not exist in the GPU data.");
      continue;
    }
    if (g->second.count > 1) {
      rep.error = cfg.gpu_csv_path + ":" + std::to_string(gpu.row_line(g->second.row)) + "," +
                  std::to_string(gpu.row_line(g->second.second_row)) + ": This API : " + one_line(name) +
                  " has multiple records in the GPU data; stopped here (the output holds the "
                  "rows before it)";
      break;
    }
    const Row grow(gpu, g->second.row, gpu_cols);
    OutRow out(kNumOutCols, " ");
    out[oApiName] = name;
    Status st;
    try {
      st = judge.judge(nrow, grow, row_api_name, out);
    } catch (const RowError& e) {
      OutRow skip(kNumOutCols, " ");
      skip[oApiName] = name;
      skip[oResult] = status_text(Status::kSkip);
      skip[oMessage] = e.message;
      emit_detail(skip);
      emit_result(name, Status::kSkip, Status::kSkip, e.message);
      continue;
    }
    emit_detail(out);

    if (have_api && row_api_full != api_full) flush();
    have_api = true;
    api_full = row_api_full;
    api_name = row_api_name;
    const bool supported = !is_unsupported_dtype(nrow.text(kDeviceDtype));
    api_supported_rows += supported;
    if (direction == "forward") {
      fwd.push_back(st);
      if (st != Status::kSkip) {
        skip_message.clear();
      } else {
        skip_message = supported ? nrow.value_text(kMessage) : kUnsupportedMessage;
      }
    } else if (direction == "backward") {
      bwd.push_back(st);
    } else {
      rep.warnings.push_back("Invalid direction status: " + one_line(direction));
    }
  }
  // On an early stop the pending API is not written (as in 1.2.1, whose loop raised out).
  if (rep.error.empty()) flush();

  write_file_atomically(cfg.result_csv_path, result);
  write_file_atomically(cfg.details_csv_path, details);
  return rep;
}

}  // namespace check
}  // namespace msprobe
