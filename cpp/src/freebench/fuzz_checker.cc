#include "msprobe/freebench/fuzz_checker.h"

#include <cmath>
#include <limits>

#include "msprobe/base/path.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace freebench {

FuzzChecker::FuzzChecker(const FreeBenchmarkConfig& cfg, const std::string& dump_path, Framework framework)
    : cfg_(cfg),
      framework_(framework),
      preheat_(cfg.preheat_step, cfg.max_sample, cfg.pert_mode == "no_change"),
      results_(join_path(absolute_path(dump_path), "free_benchmark.csv"),
               join_path(absolute_path(dump_path), "free_benchmark_summary.json"),
               framework == Framework::kMindSpore ? "pert_type" : "pert_mode",
               framework == Framework::kMindSpore ? "mindspore" : "pytorch") {}

std::string FuzzChecker::dtype_text(DType t) const {
  return framework_ == Framework::kMindSpore ? mindspore_dtype_name(t) : torch_dtype_name(t);
}

std::string FuzzChecker::shape_text(const std::vector<int64_t>& shape) const {
  std::string s = framework_ == Framework::kMindSpore ? "(" : "torch.Size([";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (framework_ == Framework::kMindSpore) return s + (shape.size() == 1 ? ",)" : ")");
  return s + "])";
}

double FuzzChecker::threshold(const std::string& call, DType dtype) {
  if (cfg_.if_preheat) return preheat_.threshold(api_of_call(call), dtype);
  return ratio_threshold(dtype, cfg_.pert_mode == "no_change");
}

FuzzRow FuzzChecker::base_row(const OutputRef& o) const {
  FuzzRow r;
  r.rank = o.rank;
  r.pert_mode = cfg_.pert_mode;
  r.stage = cfg_.fuzz_stage;
  r.step = o.step;
  r.api_name = o.call;
  r.output_index = o.output_index;
  return r;
}

RatioVerdict FuzzChecker::judge(const OutputRef& o, DType original_dtype, const std::vector<int64_t>& shape,
                                DType perturbed_dtype, const RatioStats& stats, const SourceFn& source) {
  const double floor = ratio_floor(perturbed_dtype, backward_stage());
  const double thd = threshold(o.call, original_dtype);
  const RatioVerdict v = judge_ratio(stats, floor, thd);
  if (!v.consistent)
    add_ratio_row(o, original_dtype, shape, v, thd, stats.min_product, -(floor * floor), "symbol_flipping",
                  source);
  return v;
}

void FuzzChecker::add_ratio_row(const OutputRef& o, DType original_dtype, const std::vector<int64_t>& shape,
                                const RatioVerdict& v, double thd, double flip_value, double flip_limit,
                                const std::string& flip_text, const SourceFn& source) {
  FuzzRow r = base_row(o);
  r.dtype = dtype_text(original_dtype);
  r.shape = shape_text(shape);
  if (v.symbol_flipping) {
    r.max_rel = flip_text;
    r.measure = "symbol_flipping";
    r.value = flip_value;
    r.limit = flip_limit;
    r.excess = std::numeric_limits<double>::infinity();
  } else {
    r.max_rel = py_float_repr(v.ratio - 1);
    r.measure = "max_rel";
    r.value = v.ratio - 1;
    r.limit = thd - 1;
    r.excess = r.limit > 0 ? r.value / r.limit : std::numeric_limits<double>::infinity();
  }
  if (source) r.source = source();
  results_.add(std::move(r));
}

RatioVerdict FuzzChecker::check_ms_norms(const OutputRef& o, DType original_dtype,
                                         const std::vector<int64_t>& shape, const MsNorms& norms,
                                         const SourceFn& source) {
  const double thd = threshold(o.call, original_dtype);
  const RatioVerdict v = judge_ms_norms(norms, thd);
  // A sign flip: 1.2.1 writes its ratio 8.0 less one; the ranking puts it first.
  if (!v.consistent)
    add_ratio_row(o, original_dtype, shape, v, thd, norms.min_forward, 0, py_float_repr(v.ratio - 1), source);
  return v;
}

RatioVerdict FuzzChecker::check_ms_tensor(const OutputRef& o, const TensorView& original,
                                          const TensorView& perturbed, const SourceFn& source) {
  return check_ms_norms(o, original.dtype, original.shape,
                        ms_norms(original, perturbed, floor(perturbed.dtype)), source);
}

double FuzzChecker::floor(DType perturbed_dtype) const {
  return ratio_floor(perturbed_dtype, framework_ == Framework::kPyTorch && backward_stage());
}

RatioVerdict FuzzChecker::check_tensor(const OutputRef& o, const TensorView& original,
                                       const TensorView& perturbed, const SourceFn& source) {
  const double floor = ratio_floor(perturbed.dtype, backward_stage());
  return judge(o, original.dtype, original.shape, perturbed.dtype, ratio_stats(original, perturbed, floor),
               source);
}

RatioVerdict FuzzChecker::check_stats(const OutputRef& o, DType original_dtype,
                                      const std::vector<int64_t>& shape, DType perturbed_dtype,
                                      const RatioStats& stats, const SourceFn& source) {
  return judge(o, original_dtype, shape, perturbed_dtype, stats, source);
}

RatioVerdict FuzzChecker::check_number(const OutputRef& o, double original, double perturbed, bool integer) {
  RatioVerdict v;
  if (integer) {
    v.consistent = original == perturbed;
    v.ratio = std::nan("");  // 1.2.1 has no ratio for ints: max_rel stays empty
  } else {
    v = judge_float(original, perturbed);
  }
  if (v.consistent) return v;
  FuzzRow r = base_row(o);
  r.measure = "max_rel";
  if (!std::isnan(v.ratio)) {
    r.max_rel = py_float_repr(v.ratio - 1);
    r.value = std::fabs(v.ratio - 1);
  }
  r.limit = 1e-9;
  r.excess = std::numeric_limits<double>::infinity();
  results_.add(std::move(r));
  return v;
}

bool FuzzChecker::benchmark_tensor(const TensorView& original, const TensorView& cpu,
                                   BenchmarkErrors* errors) {
  const BenchmarkErrors e = benchmark_errors(original, cpu);
  if (errors) *errors = e;
  return benchmark_consistent(original.dtype, e);
}

void FuzzChecker::add_benchmark_row(const OutputRef& o, const TensorView* original,
                                    const BenchmarkErrors* worst, const SourceFn& source) {
  FuzzRow r = base_row(o);
  if (original) {
    r.dtype = dtype_text(original->dtype);
    r.shape = shape_text(original->shape);
  }
  r.measure = "rel_err";
  r.excess = std::numeric_limits<double>::infinity();
  if (worst && original) {
    // The measure that went furthest beyond its standard names the row in the ranking.
    const DType t = original->dtype;
    const double rtol = t == DType::kFloat16    ? std::ldexp(1.0, -11)
                        : t == DType::kBFloat16 ? std::ldexp(1.0, -8)
                                                : std::ldexp(1.0, -14);
    struct M {
      const char* name;
      double value, limit;
    } ms[] = {{"rel_err", worst->rel_err, rtol},
              {"abs_err", worst->abs_err, rtol},
              {"err_balance", worst->err_balance, 1e-4}};
    double best = -1;
    for (const M& m : ms) {
      const double ex = m.value / m.limit;
      if (std::isfinite(ex) && ex > best) {
        best = ex;
        r.measure = m.name;
        r.value = m.value;
        r.limit = m.limit;
        r.excess = ex;
      }
    }
  }
  if (source) r.source = source();
  results_.add(std::move(r));
}

}  // namespace freebench
}  // namespace msprobe
