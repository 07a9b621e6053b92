// Bindings of the accuracy checker's metrics, standards and api_precision_compare.
//   compare_output(api_name, bench, device, precision=14) -> dict   one run_ut details row
//   float_metrics(bench, device, standard="benchmark") -> dict      raw metric values
//   cosine_similarity(bench, device) -> (value|None, pass, message)
//   binary_error_rate(bench, device) -> float
//   compare_dropout(bench, device) -> (status, 1|0)
//   merge_output_statuses([status...]) -> status                    any error wins
//   standard_for_api(name) / standard_for_precision_row(name, dtype) -> standard key
//   standard_label(key) -> Chinese algorithm label
//   check_thresholds(torch_dtype_name) -> dict of the per-dtype constants
//   format_fixed(v, precision=14) / format_float32(v) / format_float16(v) -> str
//   api_precision_compare(npu_csv, gpu_csv, result_csv, details_csv, precision=14) -> dict
//   check_input_csv_path(path, what) / prepare_output_dir(path) / timestamp_now()   (base/: every
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
#include "tensor_from_python.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using namespace msprobe::check;

// Both tensors as host views, then fn(bench_view, device_view) without the GIL.
template <typename Fn>
auto on_host_pair(nb::handle bench, nb::handle device, const char* fn_name, Fn fn) {
  msprobe::PyTensor b = msprobe::host_tensor_arg(bench, std::string(fn_name) + ": bench");
  msprobe::PyTensor d = msprobe::host_tensor_arg(device, std::string(fn_name) + ": device");
  nb::gil_scoped_release release;
  return fn(b.view, d.view);
}

nb::object num_obj(const Num& n) {
  if (!n.set) return nb::none();
  if (n.kind == NumKind::kInt) return nb::int_((long long)n.value);
  return nb::float_(n.value);
}

void put(nb::dict& d, const char* key, const Num& n) { d[key] = num_obj(n); }

// The metric values FloatMetrics and OutputCompareResult share, under their field names.
template <typename R>
void put_values(nb::dict& d, const R& r) {
  put(d, "max_abs_err", r.max_abs_err);
  put(d, "hundredth", r.hundredth);
  put(d, "thousandth", r.thousandth);
  put(d, "ten_thousandth", r.ten_thousandth);
  put(d, "error_rate", r.error_rate);
  put(d, "eb", r.eb);
  put(d, "rmse", r.rmse);
  put(d, "small_value_err_ratio", r.small_value_err_ratio);
  put(d, "max_rel_err", r.max_rel_err);
  put(d, "mean_rel_err", r.mean_rel_err);
  put(d, "inf_nan_error_ratio", r.inf_nan_error_ratio);
  put(d, "rel_err_ratio", r.rel_err_ratio);
  put(d, "abs_err_ratio", r.abs_err_ratio);
  put(d, "max_ulp_err", r.max_ulp_err);
  put(d, "mean_ulp_err", r.mean_ulp_err);
  put(d, "ulp_err_proportion", r.ulp_err_proportion);
}

nb::dict cosine_dict(const CosineResult& c) {
  nb::dict d;
  d["value"] = c.has_value ? nb::object(nb::float_(c.value)) : nb::none();
  d["pass"] = c.pass;
  d["message"] = c.message;
  return d;
}

nb::dict float_metrics_py(nb::handle bench, nb::handle device, const std::string& standard) {
  const Standard s = standard_from_key(standard);
  const FloatMetrics m = on_host_pair(bench, device, "float_metrics",
                                      [s](auto& b, auto& dv) { return compute_float_metrics(b, dv, s); });
  nb::dict d;
  d["numel"] = m.numel;
  d["standard"] = standard_key(m.standard);
  d["new_standard"] = m.new_standard;
  d["cosine"] = cosine_dict(m.cosine);
  put_values(d, m);
  d["max_abs_err_kind"] = num_kind_name(m.max_abs_err.kind);
  put(d, "rel_err_thousandth", m.rel_err_thousandth);
  return d;
}

nb::dict compare_output_py(const std::string& api_name, nb::handle bench, nb::handle device, int precision) {
  const OutputCompareResult r = on_host_pair(bench, device, "compare_output", [&api_name](auto& b, auto& dv) {
    return compare_output_tensor(api_name, b, dv);
  });
  nb::dict d;
  d["status"] = status_text(r.status);
  d["message"] = r.message;
  d["standard"] = standard_key(r.standard);
  d["cells"] = r.detail_cells(precision);
  nb::dict v;
  put(v, "cosine", r.cosine);
  put_values(v, r);
  d["values"] = v;
  return d;
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

nb::dict thresholds_py(const std::string& dtype) {
  const DtypeThresholds& t = thresholds_for_name(dtype);
  nb::dict d;
  d["small_value"] = t.small_value;
  d["small_value_atol_absolute"] = t.small_value_atol_abs;
  d["small_value_atol_benchmark"] = t.small_value_atol_bench;
  d["rtol"] = t.rtol;
  d["accumulative_bound"] = t.accumulative_bound;
  d["minimum_err"] = t.minimum_err;
  d["accumulative_eb_threshold"] = t.accumulative_eb_threshold;
  if (const UlpParams* u = ulp_params_for_name(dtype)) {
    d["ulp_min_exponent"] = u->min_exponent;
    d["ulp_mantissa_bits"] = u->mantissa_bits;
    d["ulp_error_threshold"] = u->error_threshold;
  }
  return d;
}

nb::dict api_precision_compare_py(const std::string& npu, const std::string& gpu, const std::string& result,
                                  const std::string& details, int precision) {
  PrecisionCompareConfig cfg;
  cfg.npu_csv_path = npu;
  cfg.gpu_csv_path = gpu;
  cfg.result_csv_path = result;
  cfg.details_csv_path = details;
  cfg.precision = precision;
  PrecisionCompareReport rep;
  {
    nb::gil_scoped_release release;
    rep = api_precision_compare(cfg);
  }
  nb::dict d;
  d["npu_rows"] = rep.npu_rows;
  d["detail_rows"] = rep.detail_rows;
  d["result_rows"] = rep.result_rows;
  d["warnings"] = rep.warnings;
  d["error"] = rep.error.empty() ? nb::none() : nb::object(nb::str(rep.error.c_str()));
  d["result_csv_path"] = result;
  d["details_csv_path"] = details;
  return d;
}

}  // namespace

void bind_check(nb::module_& m) {
  m.def("compare_output", &compare_output_py, "api_name"_a, "bench"_a, "device"_a, "precision"_a = 14,
        "Compares one output tensor with its bench as 1.2.1 run_ut does. Returns a dict:\n"
        "status, message, standard, cells (the 22 details-CSV cells from 'Bench Dtype' to\n"
        "'Message', formatted as 1.2.1 writes them) and values (raw numbers or None).");
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
  m.def("check_thresholds", &thresholds_py, "dtype"_a,
        "The per-dtype constants of the precision standards (torch dtype name).");
  m.def(
      "format_fixed", [](double v, int p) { return format_fixed(v, p); }, "value"_a, "precision"_a = 14,
      "Python '{:.{p}f}'.format(value).");
  m.def("format_float32", &format_float32, "value"_a, "str(numpy.float32(value)).");
  m.def("format_float16", &format_float16, "value"_a, "str(numpy.float16(value)).");
  m.def("api_precision_compare", &api_precision_compare_py, "npu_csv_path"_a, "gpu_csv_path"_a,
        "result_csv_path"_a, "details_csv_path"_a, "precision"_a = 14,
        "Runs api_precision_compare on two accuracy_checking_details CSVs and writes the result\n"
        "and details CSVs. Returns npu_rows, detail_rows, result_rows, warnings (list of lines)\n"
        "and error (None, or a line when processing stopped early on bad data). Raises\n"
        "MsprobeFileError / ConfigError for unreadable or malformed input (nothing written).");
  m.def("check_input_csv_path", &msprobe::check_input_csv_path, "path"_a, "what"_a,
        "Raises MsprobeFileError unless path is a readable regular *.csv file (no symlink).");
  m.def("prepare_output_dir", &msprobe::prepare_output_dir, "path"_a,
        "Creates the output folder (mode 0750) if needed; refuses symlinks and read-only folders.");
  m.def("timestamp_now", &msprobe::timestamp_now, "Local time as %Y%m%d%H%M%S.");
}
