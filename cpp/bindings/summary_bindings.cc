// msprobe._core.summarize_dump(dump_path) -> list of dicts; overflow_report(dump_path) -> dict.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "msprobe/dump/dump_summary.h"
#include "msprobe/dump/overflow_report.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {
nb::object first_dict(const std::optional<msprobe::OverflowFirst>& f) {
  if (!f) return nb::none();
  nb::dict d;
  d["dir"] = f->dir;
  d["step"] = f->step;
  d["rank"] = f->rank < 0 ? nb::object(nb::none()) : nb::object(nb::int_(f->rank));
  d["entry"] = f->entry;
  d["kind"] = f->kind;
  d["time"] = f->time;
  d["source"] = f->source;
  return d;
}
}  // namespace

void bind_summary(nb::module_& m) {
  m.def("summarize_dump", [](const std::string& path) {
    nb::list out;
    for (const auto& r : msprobe::summarize_dump(path)) {
      nb::dict d;
      d["dir"] = r.dir;
      d["task"] = r.task;
      d["level"] = r.level;
      d["entries"] = r.entries;
      d["forward"] = r.forward;
      d["backward"] = r.backward;
      d["other"] = r.other;
      d["tensor_files"] = r.tensor_files;
      d["incomplete"] = r.incomplete;
      out.append(d);
    }
    return out;
  });
  m.def(
      "overflow_report",
      [](const std::string& path) {
        const msprobe::OverflowReport r = msprobe::read_overflow_report(path);
        nb::list rows;
        for (const auto& row : r.rows) {
          nb::dict d;
          d["dir"] = row.dir;
          d["step"] = row.step;
          d["rank"] = row.rank < 0 ? nb::object(nb::none()) : nb::object(nb::int_(row.rank));
          d["overflows"] = row.overflows;
          d["culprits"] = row.culprits;
          d["limit_reached"] = row.limit_reached;
          d["first"] = first_dict(row.first);
          d["first_culprit"] = first_dict(row.first_culprit);
          rows.append(d);
        }
        nb::dict out;
        out["rows"] = rows;
        out["earliest"] = first_dict(r.earliest);
        out["earliest_culprit"] = first_dict(r.earliest_culprit);
        return out;
      },
      "dump_path"_a,
      "The overflow_summary.json files of a dump: per step/rank rows and the earliest overflow and "
      "culprit across steps and ranks.");
}
