// msprobe._core.FreeBenchmarkChecker: free_benchmark's judge (cpp/include/msprobe/freebench/).
// The adapter perturbs and re-runs an API with framework ops, then hands each output pair here:
// host tensors as zero-copy views, device tensors as the three reductions fuzz_compare.h names.
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/dump/source_lines.h"
#include "msprobe/freebench/fuzz_checker.h"
#include "record_class.h"
#include "tensor_from_python.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace msprobe {
namespace {

using freebench::BenchmarkErrors;
using freebench::FuzzChecker;
using freebench::OutputRef;
using freebench::RatioVerdict;
using freebench::SourceLine;

struct BenchmarkResult {
  bool consistent = true;
  double abs_err = 0, rel_err = 0, err_balance = 0;
};

class PyChecker {
 public:
  PyChecker(const DumpConfig& cfg, const std::string& framework, std::vector<std::string> library_prefixes)
      : checker_(cfg.free_benchmark, cfg.dump_path,
                 framework == "mindspore" ? Framework::kMindSpore : Framework::kPyTorch),
        prefixes_(std::move(library_prefixes)) {}

  RatioVerdict check_tensor(const std::string& call, int64_t step, int64_t rank, int64_t index,
                            nb::handle original, nb::handle perturbed) {
    PyTensor o = host_tensor_arg(original, "check_tensor: original");
    PyTensor p = host_tensor_arg(perturbed, "check_tensor: perturbed");
    const OutputRef ref{call, step, rank, index};
    return checker_.check_tensor(ref, o.view, p.view, source_fn());
  }

  RatioVerdict check_stats(const std::string& call, int64_t step, int64_t rank, int64_t index,
                           const std::string& original_dtype, std::vector<int64_t> shape,
                           const std::string& perturbed_dtype, int64_t numel, double min_product,
                           double min_ratio, double max_ratio) {
    freebench::RatioStats s;
    s.empty = numel == 0;
    s.min_product = min_product;
    s.min_ratio = min_ratio;
    s.max_ratio = max_ratio;
    const OutputRef ref{call, step, rank, index};
    return checker_.check_stats(ref, dtype_from_name(original_dtype), shape, dtype_from_name(perturbed_dtype),
                                s, source_fn());
  }

  BenchmarkResult benchmark_tensor(nb::handle original, nb::handle cpu) {
    PyTensor o = host_tensor_arg(original, "benchmark_tensor: original");
    PyTensor c = host_tensor_arg(cpu, "benchmark_tensor: cpu");
    BenchmarkErrors e;
    BenchmarkResult r;
    r.consistent = checker_.benchmark_tensor(o.view, c.view, &e);
    r.abs_err = e.abs_err;
    r.rel_err = e.rel_err;
    r.err_balance = e.err_balance;
    return r;
  }

  void add_benchmark_row(const std::string& call, int64_t step, int64_t rank, nb::handle original,
                         const BenchmarkResult* worst) {
    PyTensor o;
    const bool has = !original.is_none() && tensor_from_python(original, o);
    BenchmarkErrors e;
    if (worst) {
      e.abs_err = worst->abs_err;
      e.rel_err = worst->rel_err;
      e.err_balance = worst->err_balance;
    }
    checker_.add_benchmark_row(OutputRef{call, step, rank, -1}, has ? &o.view : nullptr, worst ? &e : nullptr,
                               source_fn());
  }

  // MindSpore: every output of one call at once. `items` are (output_index, original dtype name,
  // shape); `numbers` the float32 bytes of their MsNorms (three per item), read in one transfer.
  std::vector<RatioVerdict> check_ms_norms(
      const std::string& call, int64_t step, int64_t rank,
      const std::vector<std::tuple<int64_t, std::string, std::vector<int64_t>>>& items, nb::bytes numbers) {
    MSPROBE_CHECK(numbers.size() == items.size() * 3 * sizeof(float), InvalidInput,
                  "check_ms_norms: " + std::to_string(numbers.size()) + " bytes for " +
                      std::to_string(items.size()) + " outputs (three float32 each)");
    std::vector<RatioVerdict> out;
    out.reserve(items.size());
    const char* p = static_cast<const char*>(numbers.data());
    for (size_t i = 0; i < items.size(); ++i) {
      float f[3];
      std::memcpy(f, p + i * sizeof(f), sizeof(f));
      const auto& [index, dtype, shape] = items[i];
      const freebench::MsNorms n{f[0], f[1], f[2]};
      out.push_back(checker_.check_ms_norms(OutputRef{call, step, rank, index}, dtype_from_name(dtype), shape,
                                            n, source_fn()));
    }
    return out;
  }

  // MindSpore, host memory: every output of one call at once, (output_index, original,
  // perturbed) viewed without copies (value_encoding.tensor_for_core: asnumpy on the CPU).
  std::vector<RatioVerdict> check_ms_tensors(
      const std::string& call, int64_t step, int64_t rank,
      const std::vector<std::tuple<int64_t, nb::object, nb::object>>& items) {
    std::vector<RatioVerdict> out;
    out.reserve(items.size());
    for (const auto& [index, original, perturbed] : items) {
      PyTensor o = host_tensor_arg(original, "check_ms_tensors: original");
      PyTensor p = host_tensor_arg(perturbed, "check_ms_tensors: perturbed");
      out.push_back(
          checker_.check_ms_tensor(OutputRef{call, step, rank, index}, o.view, p.view, source_fn()));
    }
    return out;
  }

  FuzzChecker& core() { return checker_; }

 private:
  // The innermost frame of the user's code, read only when a row is written.
  freebench::SourceFn source_fn() {
    return [this]() {
      SourceLine s;
      PyFrameObject* f = PyEval_GetFrame();
      if (f) Py_INCREF(f);
      while (f) {
        PyCodeObject* code = PyFrame_GetCode(f);
        const char* file = PyUnicode_AsUTF8(code->co_filename);
        bool library = !file || file[0] == '<';
        for (const std::string& p : prefixes_) {
          if (file && std::strncmp(file, p.c_str(), p.size()) == 0) library = true;
        }
        if (!library) {
          s.file = file;
          s.line = PyFrame_GetLineNumber(f);
          const char* fn = PyUnicode_AsUTF8(code->co_name);
          s.function = fn ? fn : "";
          s.text = sources_.line(s.file, s.line);
        }
        Py_DECREF(code);
        PyFrameObject* back = library ? PyFrame_GetBack(f) : nullptr;
        Py_DECREF(f);
        f = back;
      }
      if (PyErr_Occurred()) PyErr_Clear();
      return s;
    };
  }

  FuzzChecker checker_;
  std::vector<std::string> prefixes_;
  SourceLines sources_;
};

}  // namespace
}  // namespace msprobe

void bind_freebench(nb::module_& m) {
  using namespace msprobe;
  RecordClass<RatioVerdict>(m, "FuzzVerdict", "free_benchmark's verdict on one output (ratio verdict).")
      .ro("consistent", &RatioVerdict::consistent)
      .ro("symbol_flipping", &RatioVerdict::symbol_flipping)
      .ro("ratio", &RatioVerdict::ratio);
  RecordClass<BenchmarkResult>(m, "FuzzBenchmarkResult",
                               "free_benchmark's comparison of one output with its CPU result.")
      .ro("consistent", &BenchmarkResult::consistent)
      .ro("abs_err", &BenchmarkResult::abs_err)
      .ro("rel_err", &BenchmarkResult::rel_err)
      .ro("err_balance", &BenchmarkResult::err_balance);
  nb::class_<PyChecker>(m, "FreeBenchmarkChecker",
                        "The judge of one free_benchmark run: thresholds, preheat, free_benchmark.csv and "
                        "free_benchmark_summary.json in the config's dump_path.")
      .def(nb::init<const DumpConfig&, const std::string&, std::vector<std::string>>(), "config"_a,
           "framework"_a, "library_prefixes"_a)
      .def("check_tensor", &PyChecker::check_tensor, "call"_a, "step"_a, "rank"_a, "output_index"_a,
           "original"_a, "perturbed"_a,
           "The ratio verdict of one output held in host memory; writes the row when it fails.")
      .def("check_stats", &PyChecker::check_stats, "call"_a, "step"_a, "rank"_a, "output_index"_a,
           "original_dtype"_a, "shape"_a, "perturbed_dtype"_a, "numel"_a, "min_product"_a, "min_ratio"_a,
           "max_ratio"_a, "The ratio verdict from reductions computed on the device.")
      .def("check_ms_norms", &PyChecker::check_ms_norms, "call"_a, "step"_a, "rank"_a, "items"_a, "numbers"_a,
           "MindSpore: the verdicts of a call's outputs from the extremes computed on their device "
           "(MsNorms, fuzz_compare.h); writes a row per inconsistent output.")
      .def("check_ms_tensors", &PyChecker::check_ms_tensors, "call"_a, "step"_a, "rank"_a, "items"_a,
           "MindSpore, host tensors: the verdicts of a call's outputs (ms_norms, fuzz_compare.h); writes a "
           "row per inconsistent output.")
      .def(
          "check_number",
          [](PyChecker& c, const std::string& call, int64_t step, int64_t rank, int64_t index, double o,
             double p, bool integer) {
            return c.core().check_number(OutputRef{call, step, rank, index}, o, p, integer);
          },
          "call"_a, "step"_a, "rank"_a, "output_index"_a, "original"_a, "perturbed"_a, "integer"_a,
          "A Python number of an output sequence; writes the row when it differs.")
      .def(
          "floor",
          [](PyChecker& c, const std::string& perturbed_dtype) {
            return c.core().floor(dtype_from_name(perturbed_dtype));
          },
          "perturbed_dtype"_a, "The magnitude below which values count as tiny in the ratio.")
      .def("benchmark_tensor", &PyChecker::benchmark_tensor, "original"_a, "cpu"_a)
      .def("add_benchmark_row", &PyChecker::add_benchmark_row, "call"_a, "step"_a, "rank"_a,
           "original"_a.none(), "worst"_a.none())
      .def(
          "threshold",
          [](PyChecker& c, const std::string& call, const std::string& dtype) {
            return c.core().threshold(call, dtype_from_name(dtype));
          },
          "call"_a, "dtype"_a)
      .def(
          "preheat_counting",
          [](PyChecker& c, const std::string& call, int64_t step) {
            return c.core().preheat().counting(freebench::api_of_call(call), step);
          },
          "call"_a, "step"_a, "Step 0 of the preheat: counts the call; True means: do not compare.")
      .def(
          "preheat_take_sample",
          [](PyChecker& c, const std::string& call, int64_t step) {
            return c.core().preheat().take_sample(freebench::api_of_call(call), step);
          },
          "call"_a, "step"_a)
      .def(
          "preheat_record",
          [](PyChecker& c, const std::string& call, const std::string& dtype, double max_ratio,
             bool cpu_consistent) {
            c.core().preheat().record(freebench::api_of_call(call), dtype_from_name(dtype), max_ratio,
                                      cpu_consistent);
          },
          "call"_a, "dtype"_a, "max_ratio"_a, "cpu_consistent"_a)
      .def(
          "preheat_calls_per_step",
          [](PyChecker& c, const std::string& call) {
            return c.core().preheat().calls_per_step(freebench::api_of_call(call));
          },
          "call"_a)
      .def("count_checked", [](PyChecker& c) { c.core().results().count_checked(); })
      .def_prop_ro("checked_calls", [](PyChecker& c) { return c.core().results().checked_calls(); })
      .def_prop_ro("flagged_outputs", [](PyChecker& c) { return (int64_t)c.core().results().rows().size(); })
      .def("end_line", [](PyChecker& c) { return c.core().results().end_line(); })
      .def(
          "write_summary",
          [](PyChecker& c) {
            const auto& cfg = c.core().config();
            c.core().results().write_summary(cfg.pert_mode, cfg.handler_type);
          },
          "Writes free_benchmark_summary.json (atomically).");
}
