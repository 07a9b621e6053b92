// msprobe._core.summarize_dump(dump_path) -> [RankDumpSummary];
// overflow_report(dump_path) -> OverflowReport (rows of RankOverflowSummary, OverflowFirst).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "msprobe/dump/dump_summary.h"
#include "msprobe/dump/overflow_report.h"
#include "record_class.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using msprobe::OverflowFirst;
using msprobe::OverflowReport;
using msprobe::RankDumpSummary;
using msprobe::RankOverflowSummary;
using msprobe::RecordClass;

// `rank` is None for a run that is not distributed (-1 in the core).
template <typename T>
nb::object rank_or_none(const T& t) {
  return t.rank < 0 ? nb::none() : nb::object(nb::int_(t.rank));
}

}  // namespace

void bind_summary(nb::module_& m) {
  RecordClass<RankDumpSummary>(m, "RankDumpSummary", "What one step/rank folder of a dump holds.")
      .ro("dir", &RankDumpSummary::dir, "'step0/rank0'")
      .ro("task", &RankDumpSummary::task)
      .ro("level", &RankDumpSummary::level)
      .ro("entries", &RankDumpSummary::entries)
      .ro("forward", &RankDumpSummary::forward)
      .ro("backward", &RankDumpSummary::backward)
      .ro("other", &RankDumpSummary::other)
      .ro("tensor_files", &RankDumpSummary::tensor_files)
      .ro("incomplete", &RankDumpSummary::incomplete, "'' or why the dump is incomplete");
  RecordClass<OverflowFirst>(m, "OverflowFirst", "An overflowing entry and where it happened.")
      .ro("dir", &OverflowFirst::dir)
      .ro("step", &OverflowFirst::step)
      .state("rank", &OverflowFirst::rank)
      .prop("rank", &rank_or_none<OverflowFirst>, "None when not distributed")
      .ro("entry", &OverflowFirst::entry)
      .ro("kind", &OverflowFirst::kind)
      .ro("time", &OverflowFirst::time)
      .ro("source", &OverflowFirst::source, "'file:line in function: text', or ''");
  RecordClass<RankOverflowSummary>(m, "RankOverflowSummary", "overflow_check's findings in one step/rank.")
      .ro("dir", &RankOverflowSummary::dir)
      .ro("step", &RankOverflowSummary::step)
      .state("rank", &RankOverflowSummary::rank)
      .prop("rank", &rank_or_none<RankOverflowSummary>, "None when not distributed")
      .ro("overflows", &RankOverflowSummary::overflows)
      .ro("culprits", &RankOverflowSummary::culprits, "entries that made inf/NaN from finite inputs")
      .ro("limit_reached", &RankOverflowSummary::limit_reached)
      .ro("first", &RankOverflowSummary::first)
      .ro("first_culprit", &RankOverflowSummary::first_culprit);
  RecordClass<OverflowReport>(m, "OverflowReport", "overflow_check's findings over a whole dump.")
      .ro("rows", &OverflowReport::rows, "by step, then rank")
      .ro("earliest", &OverflowReport::earliest)
      .ro("earliest_culprit", &OverflowReport::earliest_culprit);
  m.def(
      "summarize_dump",
      [](const std::string& path) {
        nb::gil_scoped_release release;
        return msprobe::summarize_dump(path);
      },
      "dump_path"_a);
  m.def(
      "overflow_report",
      [](const std::string& path) {
        nb::gil_scoped_release release;
        return msprobe::read_overflow_report(path);
      },
      "dump_path"_a,
      "The overflow_summary.json files of a dump: per step/rank rows and the earliest overflow and "
      "culprit across steps and ranks.");
}
