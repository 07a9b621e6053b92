// Bindings of the accuracy checker's metrics, standards and api_precision_compare.
//   compare_output(api_name, bench, device) -> OutputCompareResult   one run_ut details row
//   float_metrics(bench, device, standard="benchmark") -> FloatMetrics  raw metric values
//   cosine_similarity(bench, device) -> (value|None, pass, message)
//   binary_error_rate(bench, device) -> float
//   compare_dropout(bench, device) -> (status, 1|0)
//   merge_output_statuses([status...]) -> status                    any error wins
//   standard_for_api(name) / standard_for_precision_row(name, dtype) -> standard key
//   standard_label(key) -> Chinese algorithm label
//   format_fixed(v, precision=14) / format_float32(v) / format_float16(v) -> str
//   api_precision_compare(npu_csv, gpu_csv, result_csv, details_csv, precision=14)
//       -> PrecisionCompareReport
//   check_input_csv_path(path, what) / check_input_file(path, what, suffix) / prepare_output_dir(path) /
//   timestamp_now()   (base/: every
//   command checks its inputs and output folder and stamps its files with them)
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/base/input_file.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/check/metrics.h"
#include "msprobe/check/number_format.h"
#include "msprobe/check/output_compare.h"
#include "msprobe/check/standards.h"
#include "msprobe/jobs/api_precision_compare.h"
#include "num_caster.h"
#include "record_class.h"
#include "tensor_from_python.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using namespace msprobe::check;
using msprobe::RecordClass;

// Both tensors as host views, then fn(bench_view, device_view) without the GIL.
template <typename Fn>
auto on_host_pair(nb::handle bench, nb::handle device, const char* fn_name, Fn fn) {
  msprobe::PyTensor b = msprobe::host_tensor_arg(bench, std::string(fn_name) + ": bench");
  msprobe::PyTensor d = msprobe::host_tensor_arg(device, std::string(fn_name) + ": device");
  nb::gil_scoped_release release;
  return fn(b.view, d.view);
}

FloatMetrics float_metrics_py(nb::handle bench, nb::handle device, const std::string& standard) {
  const Standard s = standard_from_key(standard);
  return on_host_pair(bench, device, "float_metrics",
                      [s](auto& b, auto& dv) { return compute_float_metrics(b, dv, s); });
}

OutputCompareResult compare_output_py(const std::string& api_name, nb::handle bench, nb::handle device) {
  return on_host_pair(bench, device, "compare_output",
                      [&api_name](auto& b, auto& dv) { return compare_output_tensor(api_name, b, dv); });
}

nb::tuple cosine_py(nb::handle bench, nb::handle device) {
  const CosineResult c = on_host_pair(bench, device, "cosine_similarity",
                                      [](auto& b, auto& dv) { return cosine_similarity(b, dv); });
  return nb::make_tuple(c.has_value ? nb::object(nb::float_(c.value)) : nb::none(), c.pass, c.message);
}

double binary_error_rate_py(nb::handle bench, nb::handle device) {
  return on_host_pair(bench, device, "binary_error_rate",
                      [](auto& b, auto& dv) { return binary_error_rate(b, dv); });
}

nb::tuple compare_dropout_py(nb::handle bench, nb::handle device) {
  const DropoutResult r = on_host_pair(bench, device, "compare_dropout",
                                       [](auto& b, auto& dv) { return compare_dropout(b, dv); });
  return nb::make_tuple(status_text(r.status), r.value);
}

std::string merge_py(const std::vector<std::string>& statuses) {
  std::vector<Status> s;
  s.reserve(statuses.size());
  for (const auto& x : statuses) s.push_back(status_from_text(x));
  return status_text(merge_output_statuses(s));
}

PrecisionCompareReport api_precision_compare_py(const std::string& npu, const std::string& gpu,
                                                const std::string& result, const std::string& details,
                                                int precision) {
  PrecisionCompareConfig cfg;
  cfg.npu_csv_path = npu;
  cfg.gpu_csv_path = gpu;
  cfg.result_csv_path = result;
  cfg.details_csv_path = details;
  cfg.precision = precision;
  nb::gil_scoped_release release;
  return api_precision_compare(cfg);
}

// The metric values FloatMetrics and OutputCompareResult share, under their field names (None
// when a metric was not computed).
template <typename R>
void metric_fields(RecordClass<R>& c) {
  c.ro("max_abs_err", &R::max_abs_err)
      .ro("hundredth", &R::hundredth)
      .ro("thousandth", &R::thousandth)
      .ro("ten_thousandth", &R::ten_thousandth)
      .ro("error_rate", &R::error_rate)
      .ro("eb", &R::eb)
      .ro("rmse", &R::rmse)
      .ro("small_value_err_ratio", &R::small_value_err_ratio)
      .ro("max_rel_err", &R::max_rel_err)
      .ro("mean_rel_err", &R::mean_rel_err)
      .ro("inf_nan_error_ratio", &R::inf_nan_error_ratio)
      .ro("rel_err_ratio", &R::rel_err_ratio)
      .ro("abs_err_ratio", &R::abs_err_ratio)
      .ro("max_ulp_err", &R::max_ulp_err)
      .ro("mean_ulp_err", &R::mean_ulp_err)
      .ro("ulp_err_proportion", &R::ulp_err_proportion);
}

// `standard` as its key ("benchmark", ...), pickled as the key too.
template <typename R>
void standard_field(RecordClass<R>& c) {
  c.field(
      "standard", [](const R& r) { return std::string(standard_key(r.standard)); },
      [](R& r, nb::handle h) { r.standard = standard_from_key(nb::cast<std::string>(h)); });
}

void bind_check_classes(nb::module_& m) {
  RecordClass<CosineResult>(m, "CosineResult", "1.2.1's cosine similarity of an output pair.")
      .state("has_value", &CosineResult::has_value)
      .state("raw_value", &CosineResult::value)
      .prop(
          "value",
          [](const CosineResult& c) { return c.has_value ? nb::object(nb::float_(c.value)) : nb::none(); },
          "None for scalar or all-zero data")
      .ro("passed", &CosineResult::pass, "value > 0.99, or the all-zero / scalar rules")
      .ro("message", &CosineResult::message);
  RecordClass<FloatMetrics> fm(m, "FloatMetrics", "Every metric of a float output pair for one standard.");
  fm.ro("numel", &FloatMetrics::numel)
      .ro("new_standard", &FloatMetrics::new_standard)
      .ro("cosine", &FloatMetrics::cosine);
  standard_field(fm);
  metric_fields(fm);
  fm.ro("rel_err_thousandth", &FloatMetrics::rel_err_thousandth)
      .prop("max_abs_err_kind",
            [](const FloatMetrics& f) { return std::string(num_kind_name(f.max_abs_err.kind)); });
  RecordClass<OutputCompareResult> oc(m, "OutputCompareResult", "One output compared as 1.2.1 run_ut does.");
  oc.field(
      "status", [](const OutputCompareResult& r) { return std::string(status_text(r.status)); },
      [](OutputCompareResult& r, nb::handle h) { r.status = status_from_text(nb::cast<std::string>(h)); });
  oc.ro("message", &OutputCompareResult::message)
      .ro("bench_dtype", &OutputCompareResult::bench_dtype)
      .ro("device_dtype", &OutputCompareResult::device_dtype)
      .ro("shape", &OutputCompareResult::shape)
      .ro("cosine", &OutputCompareResult::cosine);
  standard_field(oc);
  metric_fields(oc);
  oc.cls().def("detail_cells", &OutputCompareResult::detail_cells, "precision"_a = 14,
               "The 22 details-CSV cells from 'Bench Dtype' to 'Message', as 1.2.1 writes them.");
  RecordClass<PrecisionCompareReport>(m, "PrecisionCompareReport", "What api_precision_compare wrote.")
      .ro("npu_rows", &PrecisionCompareReport::npu_rows, "data rows of the NPU file")
      .ro("detail_rows", &PrecisionCompareReport::detail_rows)
      .ro("result_rows", &PrecisionCompareReport::result_rows)
      .ro("warnings", &PrecisionCompareReport::warnings)
      .ro("error", &PrecisionCompareReport::error,
          "'' or the line on which processing stopped early (the files hold the rows before it)");
}

}  // namespace

void bind_check(nb::module_& m) {
  bind_check_classes(m);
  m.def("compare_output", &compare_output_py, "api_name"_a, "bench"_a, "device"_a,
        "Compares one output tensor with its bench as 1.2.1 run_ut does.");
  m.def("float_metrics", &float_metrics_py, "bench"_a, "device"_a, "standard"_a = "benchmark",
        "Every metric of a float output pair for the given standard, in one pass.");
  m.def("cosine_similarity", &cosine_py, "bench"_a, "device"_a,
        "(value or None, pass, message) as 1.2.1's cosine_sim.");
  m.def("binary_error_rate", &binary_error_rate_py, "bench"_a, "device"_a, "#(bench != device) / N.");
  m.def("compare_dropout", &compare_dropout_py, "bench"_a, "device"_a,
        "(status, 1 or 0) by the dropout zero-count rule.");
  m.def("merge_output_statuses", &merge_py, "statuses"_a,
        "API-level status of several output statuses: any error wins, then Warning, else pass\n"
        "(SKIP ignored). Fixes 1.2.1, where a later Warning replaced an earlier error.");
  m.def(
      "standard_for_api", [](const std::string& n) { return std::string(standard_key(standard_for_api(n))); },
      "api_name"_a, "The precision standard key of an API short name (run_ut).");
  m.def(
      "standard_for_precision_row",
      [](const std::string& n, const std::string& d) {
        return std::string(standard_key(standard_for_precision_row(n, d)));
      },
      "api_name"_a, "device_dtype"_a,
      "The standard api_precision_compare applies (non-float dtypes: binary_consistency).");
  m.def(
      "standard_label",
      [](const std::string& k) { return std::string(standard_label(standard_from_key(k))); }, "standard"_a,
      "The Chinese algorithm label of a standard key.");
  m.def(
      "format_fixed", [](double v, int p) { return format_fixed(v, p); }, "value"_a, "precision"_a = 14,
      "Python '{:.{p}f}'.format(value).");
  m.def("format_float32", &format_float32, "value"_a, "str(numpy.float32(value)).");
  m.def("format_float16", &format_float16, "value"_a, "str(numpy.float16(value)).");
  m.def("api_precision_compare", &api_precision_compare_py, "npu_csv_path"_a, "gpu_csv_path"_a,
        "result_csv_path"_a, "details_csv_path"_a, "precision"_a = 14,
        "Runs api_precision_compare on two accuracy_checking_details CSVs and writes the result\n"
        "and details CSVs. Raises MsprobeFileError / ConfigError for unreadable or malformed input\n"
        "(nothing written).");
  m.def("check_input_csv_path", &msprobe::check_input_csv_path, "path"_a, "what"_a,
        "Raises MsprobeFileError unless path is a readable regular *.csv file (no symlink).");
  m.def("check_input_file", &msprobe::check_input_file_of_kind, "path"_a, "what"_a, "suffix"_a,
        "expected"_a = "",
        "Raises MsprobeFileError unless path is a readable regular *<suffix> file (no symlink).");
  m.def("prepare_output_dir", &msprobe::prepare_output_dir, "path"_a,
        "Creates the output folder (mode 0750) if needed; refuses symlinks and read-only folders.");
  m.def("timestamp_now", &msprobe::timestamp_now, "Local time as %Y%m%d%H%M%S.");
}
