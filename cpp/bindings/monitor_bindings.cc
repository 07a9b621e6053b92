// Bindings of the training monitor (cpp/include/msprobe/monitor). Reports cross as typed classes;
// statistics run with the GIL released.
//   load_monitor_config(path) -> MonitorConfig
//   MonitorWriter(dir, ops, eps, ndigits, step_count_per_record, rules, csv)
//       .add(prefix, tags, tensors, group="")   one call per hook or per step; None: not a tensor
//       .add_sign_matches(prefix, tags, grads, exp_avgs)   mg_direction; exp_avg None: 1.0
//       .flush(prefix, step) -> MonitorFlush, .begin_flush_step(prefixes, step),
//       .flush_step(prefixes, step) -> [MonitorFlush]
//   AdamHeatmaps().add(update_tags, ratio_tags, exp_avgs, exp_avg_sqs, steps, beta1, beta2, eps),
//                      .take() -> [MonitorHeatmap]        ur_distribution
//   CollectiveStats(ops, eps).add(tags, parts) / .move_into(writer, prefix)   cc_distribution
//   monitor_stats(tensor, eps) -> MonitorStats, parallel_workers() -> int
//   AnomalyFile(dir, rank, pp_stage, group_mates).write(alerts)     anomaly.json
//   read_anomalies(data_path), earliest_anomalies(entries, top_k, steps),
//   write_anomaly_analysis(out_dir, entries)                         anomaly_analyse
//   read_monitor_csv_series(rank_dir, data_type) -> MonitorCsvSeries   csv2tensorboard_by_step
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/base/parallel_for.h"
#include "msprobe/monitor/adam_heatmaps.h"
#include "msprobe/monitor/anomaly_file.h"
#include "msprobe/monitor/collective_stats.h"
#include "msprobe/monitor/module_struct.h"
#include "msprobe/monitor/monitor_config.h"
#include "msprobe/monitor/monitor_csv_series.h"
#include "msprobe/monitor/monitor_writer.h"
#include "msprobe/tensor/element_reader.h"
#include "record_class.h"
#include "tensor_from_python.h"

namespace nb = nanobind;
using namespace nb::literals;
using namespace msprobe::monitor;
using msprobe::RecordClass;

namespace {

// Host views of a sequence of tensors; None or anything else that is not a tensor is a nullptr.
struct HeldTensors {
  std::vector<msprobe::PyTensor> held;
  std::vector<const msprobe::TensorView*> views;
  HeldTensors(nb::sequence tensors, const char* what) {
    std::vector<bool> present;
    held.reserve(nb::len(tensors));
    for (nb::handle t : tensors) {
      const bool is_tensor = !t.is_none() && nb::hasattr(t, "__dlpack__");
      present.push_back(is_tensor);
      if (is_tensor) held.push_back(msprobe::host_tensor_arg(t, what));
    }
    size_t k = 0;
    for (bool p : present) views.push_back(p ? &held[k++].view : nullptr);
  }
};

void add_tensors(MonitorWriter& w, const std::string& prefix, const std::vector<std::string>& tags,
                 nb::sequence tensors, const std::string& group) {
  HeldTensors h(tensors, "MonitorWriter.add");
  nb::gil_scoped_release release;
  w.add(prefix, tags, h.views, group);
}

void add_sign_matches(MonitorWriter& w, const std::string& prefix, const std::vector<std::string>& tags,
                      nb::sequence grads, nb::sequence exp_avgs) {
  HeldTensors g(grads, "MonitorWriter.add_sign_matches"), m(exp_avgs, "MonitorWriter.add_sign_matches");
  nb::gil_scoped_release release;
  w.add_sign_matches(prefix, tags, g.views, m.views);
}

void add_heatmaps(AdamHeatmaps& h, const std::vector<std::string>& update_tags,
                  const std::vector<std::string>& ratio_tags, nb::sequence exp_avgs, nb::sequence exp_avg_sqs,
                  nb::handle steps, double beta1, double beta2, double eps) {
  HeldTensors m(exp_avgs, "AdamHeatmaps.add"), v(exp_avg_sqs, "AdamHeatmaps.add");
  msprobe::PyTensor s = msprobe::host_tensor_arg(steps, "AdamHeatmaps.add steps");
  const size_t n = m.views.size();
  MSPROBE_CHECK(v.views.size() == n && (size_t)s.view.numel() == n, InvalidInput,
                "AdamHeatmaps.add: as many exp_avg_sq and steps as exp_avg");
  nb::gil_scoped_release release;
  std::vector<double> step_counts(n);
  msprobe::ElementReader(s.view).read((int64_t)n, step_counts.data());
  std::vector<AdamMoments> moments(n);
  for (size_t i = 0; i < n; ++i) moments[i] = AdamMoments{m.views[i], v.views[i], step_counts[i]};
  h.add(update_tags, ratio_tags, moments, beta1, beta2, eps);
}

// parts: one sequence of host tensors per tag.
void add_collective(CollectiveStats& c, const std::vector<std::string>& tags, nb::sequence parts) {
  std::vector<HeldTensors> held;
  held.reserve(nb::len(parts));
  for (nb::handle part : parts) held.emplace_back(nb::borrow<nb::sequence>(part), "CollectiveStats.add");
  std::vector<std::vector<const msprobe::TensorView*>> views;
  for (const HeldTensors& h : held) {
    for (const msprobe::TensorView* v : h.views) {
      MSPROBE_CHECK(v != nullptr, InvalidInput, "CollectiveStats.add: every part is a tensor");
    }
    views.push_back(h.views);
  }
  nb::gil_scoped_release release;
  c.add(tags, views);
}

}  // namespace

void bind_monitor(nb::module_& m) {
  RecordClass<AlertRule>(m, "MonitorAlertRule", "An alert rule of the monitor config.")
      .ro("rule_name", &AlertRule::rule_name)
      .ro("threshold", &AlertRule::threshold);
  RecordClass<MonitorTarget>(m, "MonitorTarget", "A target module and its input/output specs.")
      .ro("module", &MonitorTarget::module)
      .ro("specs", &MonitorTarget::specs);
  RecordClass<MonitorConfig>(m, "MonitorConfig", "The training monitor's config.json, checked (read-only).")
      .ro("targets", &MonitorConfig::targets)
      .ro("print_struct", &MonitorConfig::print_struct)
      .ro("module_ranks", &MonitorConfig::module_ranks)
      .ro("xy_distribution", &MonitorConfig::xy_distribution)
      .ro("all_xy", &MonitorConfig::all_xy)
      .ro("forward_only", &MonitorConfig::forward_only)
      .ro("backward_only", &MonitorConfig::backward_only)
      .ro("wg_distribution", &MonitorConfig::wg_distribution)
      .ro("mv_distribution", &MonitorConfig::mv_distribution)
      .ro("param_distribution", &MonitorConfig::param_distribution)
      .ro("ur_distribution", &MonitorConfig::ur_distribution)
      .ro("mg_direction", &MonitorConfig::mg_direction)
      .ro("cc_enable", &MonitorConfig::cc_enable)
      .ro("cc_codeline", &MonitorConfig::cc_codeline)
      .ro("cc_pre_hook", &MonitorConfig::cc_pre_hook)
      .ro("cc_log_only", &MonitorConfig::cc_log_only)
      .ro("ops", &MonitorConfig::ops)
      .ro("eps", &MonitorConfig::eps)
      .ro("ndigits", &MonitorConfig::ndigits)
      .ro("alert_rules", &MonitorConfig::alert_rules)
      .ro("alert_dump", &MonitorConfig::alert_dump)
      .ro("format", &MonitorConfig::format)
      .ro("step_interval", &MonitorConfig::step_interval)
      .ro("start_step", &MonitorConfig::start_step)
      .ro("collect_times", &MonitorConfig::collect_times)
      .ro("step_count_per_record", &MonitorConfig::step_count_per_record)
      .ro("squash_name", &MonitorConfig::squash_name)
      .ro("switch", &MonitorConfig::switch_on)
      .ro("append_output", &MonitorConfig::append_output)
      .ro("warnings", &MonitorConfig::warnings);
  RecordClass<MonitorStats>(m, "MonitorStats", "The monitor's statistics of one tensor.")
      .ro("min", &MonitorStats::min)
      .ro("max", &MonitorStats::max)
      .ro("norm", &MonitorStats::norm)
      .ro("zeros", &MonitorStats::zeros)
      .ro("nans", &MonitorStats::nans)
      .ro("mean", &MonitorStats::mean)
      .ro("id", &MonitorStats::id);
  RecordClass<MonitorAlert>(m, "MonitorAlert", "A value that broke an alert rule.")
      .ro("tag", &MonitorAlert::tag)
      .ro("op", &MonitorAlert::op)
      .ro("step", &MonitorAlert::step)
      .ro("value", &MonitorAlert::value)
      .ro("baseline", &MonitorAlert::baseline)
      .ro("rule", &MonitorAlert::rule)
      .ro("call_id", &MonitorAlert::call_id)
      .ro("threshold", &MonitorAlert::threshold)
      .ro("message", &MonitorAlert::message)
      .ro("line", &MonitorAlert::line);
  RecordClass<MonitorFlush>(m, "MonitorFlush", "What one flush of the monitor wrote and found.")
      .ro("prefix", &MonitorFlush::prefix)
      .ro("step", &MonitorFlush::step)
      .ro("csv_path", &MonitorFlush::csv_path)
      .ro("tags", &MonitorFlush::tags)
      .ro("values", &MonitorFlush::values, "values[i][j]: tags[i], ops[j]")
      .ro("alerts", &MonitorFlush::alerts);

  RecordClass<AnomalyEntry>(m, "AnomalyEntry", "An alert as anomaly.json keeps it.")
      .ro("rank", &AnomalyEntry::rank)
      .ro("step", &AnomalyEntry::step)
      .ro("micro_step", &AnomalyEntry::micro_step)
      .ro("pp_stage", &AnomalyEntry::pp_stage)
      .ro("vpp_stage", &AnomalyEntry::vpp_stage)
      .ro("call_id", &AnomalyEntry::call_id)
      .ro("tag_name", &AnomalyEntry::tag_name)
      .ro("message", &AnomalyEntry::message)
      .ro("group_mates", &AnomalyEntry::group_mates);
  nb::class_<AnomalyFile>(m, "AnomalyFile", "A rank's anomaly.json.")
      .def(nb::init<const std::string&, int64_t, int64_t, std::vector<int64_t>>(), "dir"_a, "rank"_a,
           "pp_stage"_a, "group_mates"_a)
      .def("write", &AnomalyFile::write, "alerts"_a, "Adds the alerts and rewrites the file.")
      .def_prop_ro("path", &AnomalyFile::path);
  m.def("read_anomalies", &read_anomalies, "data_path"_a, "The entries of every rank folder's anomaly.json.");
  m.def("earliest_anomalies", &earliest_anomalies, "entries"_a, "top_k"_a, "steps"_a,
        "The top_k earliest entries in 1.2.1's order, of the given steps (all when empty).");
  m.def("write_anomaly_analysis", &write_anomaly_analysis, "out_dir"_a, "entries"_a,
        "Writes out_dir/anomaly_analyse.json.");
  RecordClass<MonitorSeries>(m, "MonitorSeries", "One name's values along steps.")
      .ro("name", &MonitorSeries::name)
      .ro("steps", &MonitorSeries::steps)
      .ro("values", &MonitorSeries::values, "values[i][j]: steps[i], ops[j]");
  RecordClass<MonitorCsvSeries>(m, "MonitorCsvSeries", "A data type of a rank's monitor csv files.")
      .ro("data_type", &MonitorCsvSeries::data_type)
      .ro("ops", &MonitorCsvSeries::ops)
      .ro("series", &MonitorCsvSeries::series);
  m.def("monitor_data_types", &monitor_data_types, "The monitor's csv data types (file prefixes).");
  m.def(
      "read_monitor_csv_series",
      [](const std::string& dir, const std::string& data_type) {
        nb::gil_scoped_release release;
        return read_monitor_csv_series(dir, data_type);
      },
      "rank_dir"_a, "data_type"_a, "Every {data_type}_{a}-{b}.csv of rank_dir as series along steps.");
  m.def(
      "write_module_struct",
      [](const std::string& path, const std::vector<std::pair<std::string, ModuleStruct>>& modules) {
        write_module_struct(path, modules);
      },
      "path"_a, "modules"_a,
      "Writes print_struct's module_struct.json: [(module, [(part, [(key, text)])])].");
  m.def("load_monitor_config", &load_monitor_config, "path"_a,
        "Reads and checks a monitor config.json; ConfigError names the field.");
  m.def(
      "monitor_stats",
      [](nb::handle t, double eps) {
        msprobe::PyTensor h = msprobe::host_tensor_arg(t, "monitor_stats");
        nb::gil_scoped_release release;
        return monitor_stats(h.view, eps);
      },
      "tensor"_a, "eps"_a = 1e-8, "The monitor's statistics of a host tensor, in one pass.");
  m.def("parallel_workers", &msprobe::parallel_workers,
        "Threads beside the caller that read a large batch of tensors (MSPROBE_STATS_THREADS caps the "
        "threads in all).");
  m.def("monitor_csv_number", &monitor_csv_number, "value"_a, "ndigits"_a,
        "A value as 1.2.1's monitor csv writes it (rounded as numpy, repr).");

  nb::class_<MonitorWriter>(m, "MonitorWriter", "The monitor's statistics and files of one rank.")
      .def(
          "__init__",
          [](MonitorWriter* w, std::string dir, std::vector<std::string> ops, double eps, int64_t ndigits,
             int64_t step_count_per_record, std::vector<AlertRule> rules, bool csv, int64_t rank) {
            MonitorWriterOptions o;
            o.dir = std::move(dir);
            o.ops = std::move(ops);
            o.eps = eps;
            o.ndigits = ndigits;
            o.step_count_per_record = step_count_per_record;
            o.rules = std::move(rules);
            o.csv = csv;
            o.rank = rank;
            new (w) MonitorWriter(std::move(o));
          },
          "dir"_a, "ops"_a, "eps"_a, "ndigits"_a, "step_count_per_record"_a, "rules"_a, "csv"_a, "rank"_a = 0)
      .def("add", &add_tensors, "prefix"_a, "tags"_a, "tensors"_a, "group"_a = "",
           "Summarises host tensors (None: not a tensor) for the next flush of `prefix`; the rows "
           "of one `group` are flushed together.")
      .def("add_sign_matches", &add_sign_matches, "prefix"_a, "tags"_a, "grads"_a, "exp_avgs"_a,
           "mg_direction: the statistics of each gradient's sign matches with its exp_avg (None: 1.0).")
      .def(
          "flush",
          [](MonitorWriter& w, const std::string& prefix, int64_t step) {
            nb::gil_scoped_release release;
            return w.flush(prefix, step);
          },
          "prefix"_a, "step"_a, "Writes the rows of `prefix` as `step` and checks the alert rules.")
      .def(
          "flush_step",
          [](MonitorWriter& w, const std::vector<std::string>& prefixes, int64_t step) {
            nb::gil_scoped_release release;
            return w.flush_step(prefixes, step);
          },
          "prefixes"_a, "step"_a,
          "The end of a monitored step: the background flush of begin_flush_step waited for, each prefix "
          "flushed in order, then end_step; the flushes that had rows.")
      .def("begin_flush_step", &MonitorWriter::begin_flush_step, "prefixes"_a, "step"_a,
           "Takes the rows of each prefix now and writes them as `step` on another thread (while the "
           "optimizer "
           "steps); flush_step returns the result.")
      .def("pending", &MonitorWriter::pending, "prefix"_a,
           "The rows of `prefix` not yet flushed (nothing written).")
      .def("end_step", &MonitorWriter::end_step, "Call ids start again from 0.")
      .def(
          "clear",
          [](MonitorWriter& w) {
            nb::gil_scoped_release release;
            w.clear();
          },
          "Drops every row not flushed (once a background flush is written).");

  RecordClass<MonitorHeatmap>(m, "MonitorHeatmap", "A heat map of histograms along steps (ur_distribution).")
      .ro("tag", &MonitorHeatmap::tag)
      .ro("counts", &MonitorHeatmap::counts, "counts[bin][column], a column per monitored step");
  m.attr("HEATMAP_BINS") = kHeatmapBins;
  nb::class_<AdamHeatmaps>(m, "AdamHeatmaps",
                           "Adam's update and ratio histograms along steps (ur_distribution).")
      .def(nb::init<>())
      .def("add", &add_heatmaps, "update_tags"_a, "ratio_tags"_a, "exp_avgs"_a, "exp_avg_sqs"_a, "steps"_a,
           "beta1"_a, "beta2"_a, "eps"_a,
           "Histograms Adam's bias-corrected update and ratio of each parameter (steps: a tensor of their "
           "optimizer step counts) as the next column of its heat maps.")
      .def("take", &AdamHeatmaps::take, "The heat maps that got a column since the last take.")
      .def("clear", &AdamHeatmaps::clear, "Forgets every heat map.");
  RecordClass<CollectiveRows>(m, "CollectiveRows", "A step's aggregated statistics of the collectives.")
      .ro("tags", &CollectiveRows::tags)
      .ro("values", &CollectiveRows::values, "values[i][j]: tags[i], ops[j]");
  nb::class_<CollectiveStats>(
      m, "CollectiveStats",
      "cc_distribution: statistics of the collectives' tensors, aggregated over a step.")
      .def(nb::init<std::vector<std::string>, double>(), "ops"_a, "eps"_a)
      .def("add", &add_collective, "tags"_a, "parts"_a,
           "One call: tags[i] summarises the host tensors parts[i] (a list argument: all of them as one).")
      .def("take", &CollectiveStats::take, "The aggregates since the last take, forgotten.")
      .def(
          "move_into",
          [](CollectiveStats& c, MonitorWriter& w, const std::string& prefix) {
            nb::gil_scoped_release release;
            c.move_into(w, prefix);
          },
          "writer"_a, "prefix"_a,
          "The aggregates since the last take added to the writer's rows of `prefix`.")
      .def("clear", &CollectiveStats::clear, "Forgets the calls not taken yet.");
}
