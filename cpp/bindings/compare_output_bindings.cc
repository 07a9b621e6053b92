// Bindings of compare's orchestration and outputs (the per-rank job, compare.json, rank pairing,
// merge_result). The work runs in C++ with the GIL released; Python only prints the reports.
//   compare_job(framework, npu_json, bench_json, output_dir, suffix="", stack_json=None,
//               stack_mode=False, auto_analyze=True, fuzzy_match=False, timestamp="", threads=0,
//               progress=None, name_mapper=None, save_data_mapping=False, html_report=True,
//               replay=None) -> CompareJobReport
//       replay: run_ut's float64 replay of a suspect (CompareJob::replay), or None.
//       Also writes divergence{suffix}_{ts}.json and (html_report) compare_report{suffix}_{ts}.html.
//   merge_rank_divergence([rank divergence files], out_path) -> first suspect line
//       stack_json None: look for stack.json beside npu_json (1.2.1's default).
//       progress(stage, done, total) is called at most ~100 times per stage ("read", "compare").
//       name_mapper: a NameMapper (msprobe.core.compare_mappings.name_mapper) or None.
//   load_compare_json(path) -> CompareJson;  pair_rank_dirs(npu_step, bench_step) -> [RankPair]
//   path_kind(path) -> "missing" | "file" | "folder" | "other"
//   merge_results(input_dir, output_dir, api, compare_index, empty_config=False, timestamp="")
//       -> MergeReport
//   write_compare_xlsx_rows(header, rows, fills, path)   a table given as Python values
//   read_xlsx(path, first_only=False) -> [(sheet name, [[value...]...])]
//   mapping_yaml_text([(key, value)]) -> str
//   timestamp_now() lives in check_bindings.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "json_to_python.h"
#include "msprobe/base/error.h"
#include "msprobe/compare/compare_xlsx.h"
#include "msprobe/compare/mapping_yaml.h"
#include "msprobe/format/xlsx_reader.h"
#include "msprobe/jobs/compare_input.h"
#include "msprobe/jobs/compare_job.h"
#include "msprobe/jobs/merge_result.h"
#include "record_class.h"
#include "tensor_from_python.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using namespace msprobe::compare;
using msprobe::read_xlsx;
using msprobe::RecordClass;
using msprobe::XlsxSheet;

nb::object cell_to_python(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kEmpty: return nb::none();
    case Cell::Kind::kString: return nb::str(c.s.c_str(), c.s.size());
    case Cell::Kind::kBool: return nb::bool_(c.d != 0);
    case Cell::Kind::kNumber: return nb::float_(c.d);
  }
  return nb::none();
}

Cell cell_from_python(nb::handle h) {
  if (h.is_none()) return Cell::empty();
  if (PyBool_Check(h.ptr())) return Cell::boolean(h.ptr() == Py_True);
  if (PyLong_Check(h.ptr())) return Cell::num(PyLong_AsDouble(h.ptr()));
  if (PyFloat_Check(h.ptr())) return Cell::num(PyFloat_AsDouble(h.ptr()));
  if (PyUnicode_Check(h.ptr())) return Cell::str(nb::cast<std::string>(h));
  throw nb::type_error("write_compare_xlsx_rows: cells must be None, bool, int, float or str");
}

// Thrown through the core when the progress callback raised (Ctrl-C arrives there too): the
// job stops and the Python exception is re-raised once the GIL is back.
struct ProgressAborted {};

// Hands the core's progress (always reported on the calling thread) to a Python callable
// progress(stage, done, total), at most at every 1 % of a stage.
class PyProgress {
 public:
  explicit PyProgress(nb::object fn) : fn_(std::move(fn)) {}
  ProgressFn function() {
    if (fn_.is_none()) return {};
    return [this](const char* stage, size_t done, size_t total) {
      if (error_) return;
      const size_t step = total / 100 + 1;
      const std::string s = stage != nullptr ? stage : "";
      if (s == last_stage_ && done != total && done / step == last_bucket_) return;
      last_stage_ = s;
      last_bucket_ = done / step;
      {
        nb::gil_scoped_acquire gil;
        try {
          fn_(s, done, total);
        } catch (nb::python_error& e) {
          error_ = std::make_unique<nb::python_error>(std::move(e));
        }
      }
      if (error_) throw ProgressAborted{};
    };
  }
  void rethrow() {
    if (error_) {
      nb::python_error e = std::move(*error_);
      error_.reset();
      throw e;
    }
  }

 private:
  nb::object fn_;
  std::string last_stage_;
  size_t last_bucket_ = (size_t)-1;
  std::unique_ptr<nb::python_error> error_;
};

// CompareJob::replay through a Python callable (run_ut's replay machinery): replay(entry,
// api_type, api_name, npu_record, bench_record, npu_tensor_dir, bench_tensor_dir,
// npu_grad_record, bench_grad_record) -> (NPU-input outputs, bench-input outputs), lists of
// float64 tensors (the grad records are None for a forward suspect). Called with the GIL taken;
// the tensors are judged while it is held, as views of their own memory. `fn` outlives the job.
ReplayFn replay_through(nb::handle fn) {
  return [fn](const ReplayRequest& r, const ReplayJudge& judge) {
    nb::gil_scoped_acquire gil;
    std::string error;
    try {
      nb::object out =
          fn(r.entry, r.api_type, r.api_name, msprobe::json_to_python(r.npu_record),
             msprobe::json_to_python(r.bench_record), r.npu_tensor_dir, r.bench_tensor_dir,
             msprobe::json_to_python(r.npu_grad_record), msprobe::json_to_python(r.bench_grad_record));
      std::vector<msprobe::PyTensor> npu, bench;
      for (nb::handle t : nb::borrow<nb::sequence>(out[0]))
        npu.push_back(msprobe::host_tensor_arg(t, "replay"));
      for (nb::handle t : nb::borrow<nb::sequence>(out[1]))
        bench.push_back(msprobe::host_tensor_arg(t, "replay"));
      std::vector<msprobe::TensorView> npu_views, bench_views;
      for (const auto& t : npu) npu_views.push_back(t.view);
      for (const auto& t : bench) bench_views.push_back(t.view);
      judge(npu_views, bench_views);
    } catch (nb::python_error& e) {
      error = nb::cast<std::string>(nb::str(e.type().attr("__name__"))) + ": " +
              nb::cast<std::string>(nb::str(e.value()));
    }
    if (!error.empty()) throw msprobe::InvalidInput(error.substr(0, error.find('\n')));
  };
}

CompareJobReport compare_job_py(const std::string& framework, const std::string& npu_json,
                                const std::string& bench_json, const std::string& output_dir,
                                const std::string& suffix, nb::object stack_json, bool stack_mode,
                                bool auto_analyze, bool fuzzy_match, const std::string& timestamp,
                                int threads, nb::object progress, std::shared_ptr<NameMapper> name_mapper,
                                bool save_data_mapping, bool html_report, nb::object replay,
                                const std::string& redump_suspect, const std::string& redump_first_source,
                                nb::object redump_noise) {
  CompareJob job;
  job.redump_suspect = redump_suspect;
  job.redump_first_source = redump_first_source;
  if (!redump_noise.is_none()) {
    const auto t = nb::cast<std::tuple<double, double, double>>(redump_noise);
    job.redump_noise = {std::get<0>(t), std::get<1>(t), std::get<2>(t), true};
  }
  if (!replay.is_none()) job.replay = replay_through(replay);
  job.framework = framework;
  job.npu_json = npu_json;
  job.bench_json = bench_json;
  job.output_dir = output_dir;
  job.suffix = suffix;
  if (!stack_json.is_none()) {
    job.stack_json_given = true;
    job.stack_json = nb::cast<std::string>(stack_json);
  }
  job.stack_mode = stack_mode;
  job.auto_analyze = auto_analyze;
  job.fuzzy_match = fuzzy_match;
  job.timestamp = timestamp;
  job.threads = threads;
  job.name_mapper = std::move(name_mapper);
  job.save_data_mapping = save_data_mapping;
  job.html_report = html_report;
  PyProgress py_progress(progress);
  CompareJobReport r;
  try {
    nb::gil_scoped_release release;
    r = run_compare_job(job, py_progress.function());
  } catch (const ProgressAborted&) {
  }
  py_progress.rethrow();
  return r;
}

const char* path_kind_py(const std::string& path) {
  switch (path_kind(path)) {
    case PathKind::kMissing: return "missing";
    case PathKind::kFile: return "file";
    case PathKind::kFolder: return "folder";
    case PathKind::kOther: return "other";
  }
  return "other";
}

MergeReport merge_results_py(const std::string& input_dir, const std::string& output_dir,
                             const std::vector<std::string>& api,
                             const std::vector<std::string>& compare_index, bool empty_config,
                             const std::string& timestamp) {
  MergeConfig cfg;
  cfg.empty = empty_config;
  cfg.api = api;
  cfg.compare_index = compare_index;
  MergeReport r;
  {
    nb::gil_scoped_release release;
    r = merge_results(input_dir, output_dir, cfg, timestamp);
  }
  return r;
}

void write_compare_xlsx_rows_py(const std::vector<std::string>& header, nb::iterable rows,
                                const std::vector<std::string>& fills, const std::string& path) {
  CompareTable t;
  t.header = header;
  for (nb::handle row : rows) {
    std::vector<Cell> cells;
    for (nb::handle v : nb::borrow<nb::iterable>(row)) cells.push_back(cell_from_python(v));
    t.rows.push_back(std::move(cells));
  }
  for (const std::string& f : fills) {
    if (f == "red")
      t.fills.push_back(Fill::kRed);
    else if (f == "yellow")
      t.fills.push_back(Fill::kYellow);
    else if (f.empty() || f == "none")
      t.fills.push_back(Fill::kNone);
    else
      throw msprobe::InvalidInput("fill must be 'red', 'yellow' or 'none', got '" + f + "'");
  }
  nb::gil_scoped_release release;
  write_compare_xlsx(t, path);
}

nb::list read_xlsx_py(const std::string& path, bool first_only) {
  std::vector<XlsxSheet> sheets;
  {
    nb::gil_scoped_release release;
    sheets = read_xlsx(path, first_only);
  }
  nb::list out;
  for (const XlsxSheet& s : sheets) {
    nb::list rows;
    for (const auto& r : s.rows) {
      nb::list cells;
      for (const Cell& c : r) cells.append(cell_to_python(c));
      rows.append(cells);
    }
    out.append(nb::make_tuple(s.name, rows));
  }
  return out;
}

}  // namespace

void bind_report_classes(nb::module_& m) {
  RecordClass<AdvisorResult>(m, "AdvisorResult",
                             "What the advisor found in a compare table (advisor_{ts}.txt).")
      .ro("found", &AdvisorResult::found, "a failing row exists")
      .ro("line", &AdvisorResult::line, "its row index as 1.2.1 prints it, or 'NA'")
      .ro("suspect_node", &AdvisorResult::suspect_node)
      .ro("message", &AdvisorResult::message)
      .ro("warnings", &AdvisorResult::warnings)
      .ro("first_divergence", &AdvisorResult::first_divergence)
      .prop(
          "lines", [](const AdvisorResult& a) { return advisor_lines(a); }, "the advisor file's lines");
  RecordClass<CompareJobReport>(m, "CompareJobReport",
                                "One compare job's outputs (paths are '' when a file was not written).")
      .rw("suffix", &CompareJobReport::suffix)
      .rw("error", &CompareJobReport::error, "'' or why this rank failed (multi-rank compare)")
      .ro("xlsx_path", &CompareJobReport::xlsx_path)
      .ro("advisor_path", &CompareJobReport::advisor_path)
      .ro("data_mapping_path", &CompareJobReport::data_mapping_path)
      .ro("divergence_path", &CompareJobReport::divergence_path)
      .ro("report_path", &CompareJobReport::report_path)
      .ro("first_divergence", &CompareJobReport::first_divergence)
      .ro("next_steps", &CompareJobReport::next_steps,
          "the first suspect's next step, one line ('' when none)")
      .ro("redump_check", &CompareJobReport::redump_check,
          "the re-dump's verdict on the suspect it was made for, one line ('' when none)")
      .ro("replay", &CompareJobReport::replay,
          "the first suspect's replay verdict, one line ('' when not replayed)")
      .ro("suspects", &CompareJobReport::suspects)
      .ro("rows", &CompareJobReport::rows)
      .ro("red_rows", &CompareJobReport::red_rows)
      .ro("yellow_rows", &CompareJobReport::yellow_rows)
      .ro("stack_mode", &CompareJobReport::stack_mode)
      .ro("warnings", &CompareJobReport::warnings)
      .ro("advisor", &CompareJobReport::advisor);
  RecordClass<CompareJson>(m, "CompareJson", "compare.json of `msprobe compare -i`, validated.")
      .ro("npu_path", &CompareJson::npu_path)
      .ro("bench_path", &CompareJson::bench_path)
      .state("stack_path", &CompareJson::stack_path)
      .state("has_stack_path", &CompareJson::has_stack_path)
      .prop(
          "stack_path",
          [](const CompareJson& c) {
            return c.has_stack_path ? nb::object(nb::str(c.stack_path.c_str())) : nb::none();
          },
          "None when absent (stack.json is then looked for next to the NPU dump.json)")
      .ro("is_print_compare_log", &CompareJson::is_print_compare_log)
      .ro("rank_id", &CompareJson::has_rank_id, "MindSpore graph-mode (L2) rank_id / step_id lists")
      .ro("suspect", &CompareJson::suspect, "the suspect a scoped re-dump was made for ('' when none)")
      .ro("suspect_first_source", &CompareJson::suspect_first_source)
      .prop(
          "suspect_noise",
          [](const CompareJson& c) {
            if (!c.suspect_noise.fitted) return nb::object(nb::none());
            return nb::object(nb::make_tuple(c.suspect_noise.typical_increment, c.suspect_noise.base,
                                             c.suspect_noise.spread));
          },
          "(typical_increment, base, spread) of the compare that proposed the re-dump, or None");
  RecordClass<RankPair>(m, "RankPair", "One rank pair of a step-folder compare.")
      .ro("npu_rank", &RankPair::npu_rank)
      .ro("bench_rank", &RankPair::bench_rank)
      .ro("npu_dump_json", &RankPair::npu_dump_json)
      .ro("bench_dump_json", &RankPair::bench_dump_json)
      .ro("suffix", &RankPair::suffix)
      .ro("error", &RankPair::error, "'' or why this pair cannot run (a missing dump.json)");
  RecordClass<MergeReport>(m, "MergeReport", "merge_result's workbook and messages.")
      .ro("path", &MergeReport::path)
      .ro("warnings", &MergeReport::warnings)
      .ro("infos", &MergeReport::infos);
}

void bind_compare_output(nb::module_& m) {
  bind_report_classes(m);
  m.def("compare_job", &compare_job_py, "framework"_a, "npu_json"_a, "bench_json"_a, "output_dir"_a,
        "suffix"_a = "", "stack_json"_a.none() = nb::none(), "stack_mode"_a = false, "auto_analyze"_a = true,
        "fuzzy_match"_a = false, "timestamp"_a = "", "threads"_a = 0, "progress"_a.none() = nb::none(),
        "name_mapper"_a.none() = nb::none(), "save_data_mapping"_a = false, "html_report"_a = true,
        "replay"_a.none() = nb::none(), "redump_suspect"_a = "", "redump_first_source"_a = "",
        "redump_noise"_a.none() = nb::none(),
        "Compares one rank and writes its xlsx (and advisor), divergence json and HTML report; returns the "
        "report.");
  m.def(
      "merge_rank_divergence",
      [](const std::vector<std::string>& rank_files, const std::string& out_path) {
        nb::gil_scoped_release release;
        return merge_rank_divergence(rank_files, out_path);
      },
      "rank_files"_a, "out_path"_a,
      "Ranks the suspects of several ranks' divergence files together into out_path; returns the "
      "first suspect's line.");
  m.def("load_compare_json", &load_compare_json, "path"_a);
  m.def(
      "pair_rank_dirs",
      [](const std::string& npu, const std::string& bench) {
        nb::gil_scoped_release release;
        return pair_rank_dirs(npu, bench);
      },
      "npu_step_dir"_a, "bench_step_dir"_a);
  m.def("path_kind", &path_kind_py, "path"_a);
  m.def("merge_results", &merge_results_py, "input_dir"_a, "output_dir"_a, "api"_a, "compare_index"_a,
        "empty_config"_a = false, "timestamp"_a = "");
  m.def("write_compare_xlsx_rows", &write_compare_xlsx_rows_py, "header"_a, "rows"_a, "fills"_a, "path"_a);
  m.def("read_xlsx", &read_xlsx_py, "path"_a, "first_only"_a = false);
  m.def("mapping_yaml_text", &mapping_yaml_text, "pairs"_a,
        "The text compare -lm leaves in data_mapping_{ts}.yaml (PyYAML's yaml.dump of the pairs).");
}
