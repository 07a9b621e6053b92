// msprobe._core.report: the HTML report. render_dump_report(path) for one dump;
// render_compare_report(parts, runs) for compare tables given from Python (tests, integrations
// that hold a table already); write_report_file(path, html).
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <memory>

#include "msprobe/base/error.h"
#include "msprobe/compare/divergence.h"
#include "msprobe/jobs/pair_report.h"
#include "msprobe/report/check_report.h"
#include "msprobe/report/compare_report.h"
#include "msprobe/report/dump_report.h"
#include "msprobe/report/free_benchmark_report.h"
#include "msprobe/report/grad_report.h"
#include "msprobe/report/monitor_report.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using msprobe::compare::Cell;
using msprobe::compare::CompareTable;

Cell to_cell(nb::handle v) {
  if (v.is_none()) return Cell::empty();
  if (nb::isinstance<nb::bool_>(v)) return Cell::boolean(nb::cast<bool>(v));
  if (nb::isinstance<nb::int_>(v) || nb::isinstance<nb::float_>(v)) return Cell::num(nb::cast<double>(v));
  if (nb::isinstance<nb::str>(v)) return Cell::str(nb::cast<std::string>(v));
  throw msprobe::InvalidInput("report: a table cell must be str, int, float, bool or None");
}

std::string text(nb::dict d, const char* key) {
  return d.contains(key) && !d[key].is_none() ? nb::cast<std::string>(d[key]) : std::string();
}

// Everything one rank needs, owned here for the time of rendering.
struct OwnedRank {
  CompareTable table;
  std::vector<std::pair<std::string, std::string>> construct;
  std::unordered_map<std::string, std::string> parents;
  std::unordered_map<std::string, std::vector<std::string>> stacks;
  std::vector<msprobe::compare::Suspect> suspects;
  bool has_construct = false, has_stacks = false;
};

std::string render_compare(nb::list parts, nb::list runs, const std::string& title,
                           const std::string& generated_at) {
  using namespace msprobe;
  std::vector<std::unique_ptr<OwnedRank>> owned;
  report::ReportInput in;
  in.title = title;
  in.generated_at = generated_at;
  for (nb::handle h : runs) {
    nb::dict d = nb::cast<nb::dict>(h);
    in.runs.push_back(
        {text(d, "label"), text(d, "path"), text(d, "framework"), text(d, "level"), text(d, "task")});
  }
  for (nb::handle h : parts) {
    nb::dict d = nb::cast<nb::dict>(h);
    auto o = std::make_unique<OwnedRank>();
    std::string mode = text(d, "mode");
    o->table.mode = mode == "tensor" ? compare::CompareMode::kTensor
                    : mode == "md5"  ? compare::CompareMode::kMd5
                                     : compare::CompareMode::kStatistics;
    for (nb::handle c : nb::cast<nb::list>(d["header"])) o->table.header.push_back(nb::cast<std::string>(c));
    for (nb::handle row : nb::cast<nb::list>(d["rows"])) {
      std::vector<Cell> cells;
      for (nb::handle c : nb::cast<nb::list>(row)) cells.push_back(to_cell(c));
      if (cells.size() != o->table.header.size())
        throw InvalidInput("report: row " + std::to_string(o->table.rows.size()) + " has " +
                           std::to_string(cells.size()) + " cells, the header " +
                           std::to_string(o->table.header.size()));
      o->table.rows.push_back(std::move(cells));
    }
    o->table.fills.assign(o->table.rows.size(), compare::Fill::kNone);
    if (d.contains("fills")) {
      size_t r = 0;
      for (nb::handle f : nb::cast<nb::list>(d["fills"])) {
        std::string s = nb::cast<std::string>(f);
        if (r < o->table.fills.size())
          o->table.fills[r] = s == "red"      ? compare::Fill::kRed
                              : s == "yellow" ? compare::Fill::kYellow
                                              : compare::Fill::kNone;
        ++r;
      }
    }
    if (d.contains("construct") && !d["construct"].is_none()) {
      for (auto [k, v] : nb::cast<nb::dict>(d["construct"])) {
        std::string child = nb::cast<std::string>(k), parent = v.is_none() ? "" : nb::cast<std::string>(v);
        o->construct.emplace_back(child, parent);
        o->parents[child] = parent;
      }
      o->has_construct = true;
    }
    if (d.contains("stacks") && !d["stacks"].is_none()) {
      for (auto [k, v] : nb::cast<nb::dict>(d["stacks"])) {
        std::vector<std::string> lines;
        for (nb::handle l : nb::cast<nb::list>(v)) lines.push_back(nb::cast<std::string>(l));
        o->stacks[nb::cast<std::string>(k)] = std::move(lines);
      }
      o->has_stacks = true;
    }
    report::RankInput r;
    r.rank = d.contains("rank") ? nb::cast<int>(d["rank"]) : -1;
    r.step = d.contains("step") ? nb::cast<int>(d["step"]) : -1;
    compare::DivergenceContext ctx;
    ctx.rank = r.rank;
    ctx.step = r.step;
    ctx.stacks = o->has_stacks ? &o->stacks : nullptr;
    ctx.parents = o->has_construct ? &o->parents : nullptr;
    o->suspects = compare::find_suspects(o->table, ctx);
    compare::mark_suspect_rows(o->table, o->suspects);
    r.table = &o->table;
    r.suspects = &o->suspects;
    r.construct = o->has_construct ? &o->construct : nullptr;
    r.stacks = o->has_stacks ? &o->stacks : nullptr;
    in.ranks.push_back(r);
    owned.push_back(std::move(o));
  }
  nb::gil_scoped_release release;
  return report::render_compare_report(in);
}

}  // namespace

void bind_report(nb::module_& root) {
  nb::module_ m = root.def_submodule("report", "The self-contained HTML report");
  m.def(
      "render_dump_report",
      [](const std::string& path, const std::string& title) {
        nb::gil_scoped_release release;
        return msprobe::report::render_dump_report(path, title);
      },
      "dump_path"_a, "title"_a = "",
      "The statistics view of one dump (dump.json, a rank folder or a dump_path) as HTML text.");
  m.def(
      "render_pair_report",
      [](const std::string& npu, const std::string& bench, const std::string& title,
         const std::string& framework, std::shared_ptr<msprobe::compare::NameMapper> name_mapper) {
        msprobe::compare::CompareOptions options;
        options.framework = framework;
        options.name_mapper = std::move(name_mapper);
        nb::gil_scoped_release release;
        return msprobe::report::render_pair_report(npu, bench, options, title);
      },
      "npu_path"_a, "bench_path"_a, "title"_a = "", "framework"_a = "pytorch",
      "name_mapper"_a.none() = nb::none(),
      "Compares two dumps (compare engine, first-divergence suspects) and returns the report page.");
  m.def(
      "render_check_report",
      [](const std::string& details_csv, const std::string& title) {
        nb::gil_scoped_release release;
        return msprobe::report::render_check_report(details_csv, title);
      },
      "details_csv"_a, "title"_a = "", "The page of a run_ut or api_precision_compare details CSV.");
  m.def("free_benchmark_summary_of", &msprobe::report::free_benchmark_summary_of, "path"_a,
        "free_benchmark_summary.json of a dump_path (or the file itself); \"\" when there is none.");
  m.def(
      "render_free_benchmark_report",
      [](const std::string& summary_json, const std::string& title) {
        nb::gil_scoped_release release;
        return msprobe::report::render_free_benchmark_report(summary_json, title);
      },
      "summary_json"_a, "title"_a = "",
      "The page of a free_benchmark run: flagged APIs ranked, with stacks.");
  m.def("check_report_path", &msprobe::report::check_report_path, "details_csv"_a,
        "Where the page of a details CSV goes: *_report_{stamp}.html beside it.");
  m.def("render_compare_report", &render_compare, "parts"_a, "runs"_a, "title"_a = "", "generated_at"_a = "",
        "A compare report from tables given as dicts {header, rows, fills, mode, rank, step, "
        "construct, stacks}; suspects are found by the C++ first-divergence analysis.");
  m.def("is_monitor_output", &msprobe::report::is_monitor_output, "path"_a,
        "Whether path is a training monitor output (MONITOR_OUTPUT_DIR, or one rank folder of it).");
  m.def(
      "render_monitor_report",
      [](const std::string& path, const std::string& title) {
        nb::gil_scoped_release release;
        return msprobe::report::render_monitor_report(path, title);
      },
      "path"_a, "title"_a = "",
      "The page of a training monitor output: each statistic along the steps, anomalies marked.");
  m.def("is_grad_compare_output", &msprobe::report::is_grad_compare_output, "path"_a,
        "Whether path is a GradComparator output (similarities.csv in it or in its rank folders).");
  m.def(
      "render_grad_report",
      [](const std::string& path, const std::string& title) {
        nb::gil_scoped_release release;
        return msprobe::report::render_grad_report(path, title);
      },
      "path"_a, "title"_a = "",
      "The page of a GradComparator output: similarity along the steps, first divergence.");
  m.def(
      "write_report_file",
      [](const std::string& path, const std::string& html) {
        nb::gil_scoped_release release;
        msprobe::report::write_report_file(path, html);
      },
      "path"_a, "html"_a);
}
