// Bindings of the training monitor (cpp/include/msprobe/monitor). Reports cross as typed classes;
// statistics run with the GIL released.
//   load_monitor_config(path) -> MonitorConfig
//   MonitorWriter(dir, ops, eps, ndigits, step_count_per_record, rules, csv)
//       .add(prefix, tags, tensors, group="")   one call per hook or per step; None: not a tensor
//       .flush(prefix, step) -> MonitorFlush
//   CollectiveStats(ops, eps).add(tags, parts) / .move_into(writer, prefix)   cc_distribution
//   monitor_stats(tensor, eps) -> MonitorStats
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

#include "msprobe/monitor/anomaly_file.h"
#include "msprobe/monitor/collective_stats.h"
#include "msprobe/monitor/module_struct.h"
#include "msprobe/monitor/monitor_config.h"
#include "msprobe/monitor/monitor_csv_series.h"
#include "msprobe/monitor/monitor_writer.h"
#include "record_class.h"
#include "tensor_from_python.h"

namespace nb = nanobind;
using namespace nb::literals;
using namespace msprobe::monitor;
using msprobe::RecordClass;

namespace {

void add_tensors(MonitorWriter& w, const std::string& prefix, const std::vector<std::string>& tags,
                 nb::sequence tensors, const std::string& group) {
  std::vector<msprobe::PyTensor> held;
  std::vector<const msprobe::TensorView*> views;
  const size_t n = nb::len(tensors);
  held.reserve(n);
  std::vector<bool> present;
  for (nb::handle t : tensors) {
    const bool is_tensor = !t.is_none() && nb::hasattr(t, "__dlpack__");
    present.push_back(is_tensor);
    if (is_tensor) held.push_back(msprobe::host_tensor_arg(t, "MonitorWriter.add"));
  }
  size_t k = 0;
  for (bool p : present) views.push_back(p ? &held[k++].view : nullptr);
  nb::gil_scoped_release release;
  w.add(prefix, tags, views, group);
}

// parts: one sequence of host tensors per tag.
void add_collective(CollectiveStats& c, const std::vector<std::string>& tags, nb::sequence parts) {
  std::vector<std::vector<msprobe::PyTensor>> held;
  held.reserve(nb::len(parts));
  for (nb::handle part : parts) {
    held.emplace_back();
    for (nb::handle t : nb::borrow<nb::sequence>(part)) {
      held.back().push_back(msprobe::host_tensor_arg(t, "CollectiveStats.add"));
    }
  }
  std::vector<std::vector<const msprobe::TensorView*>> views(held.size());
  for (size_t i = 0; i < held.size(); ++i) {
    for (const msprobe::PyTensor& t : held[i]) views[i].push_back(&t.view);
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
      .def(
          "flush",
          [](MonitorWriter& w, const std::string& prefix, int64_t step) {
            nb::gil_scoped_release release;
            return w.flush(prefix, step);
          },
          "prefix"_a, "step"_a, "Writes the rows of `prefix` as `step` and checks the alert rules.")
      .def("pending", &MonitorWriter::pending, "prefix"_a,
           "The rows of `prefix` not yet flushed (nothing written).")
      .def("end_step", &MonitorWriter::end_step, "Call ids start again from 0.")
      .def("clear", &MonitorWriter::clear, "Drops every row not flushed.");

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
