// Bindings of the compare engine (1.2.1's `compare`).
//   compare_dumps(npu_json, bench_json, framework="pytorch", stack_mode=False, stack_path="",
//                 fuzzy_match=False, threads=0, name_mapper=None, progress=None) -> CompareTable
//       progress(stage, done, total) is called on the calling thread ("read" / "compare").
//   CompareTable: the result table, kept in C++ (a writer binding takes it as is)
//       .mode -> "statistics" | "tensor" | "md5"     .stack_mode -> bool
//       .header -> [str]    .num_rows -> int    .fills -> ["" | "red" | "yellow", ...]
//       .rows() -> [[cell, ...], ...]   .row(i) -> [cell, ...]
//         cells as 1.2.1's DataFrame holds them: str, float, int, bool or None
//       .written_rows() -> rows as 1.2.1 writes them into the xlsx (inf/nan/bool/None as text)
//       .column(name) -> index or -1
//       .notes -> [str]: one line per torn input file read up to its last complete record, or
//         incomplete dump (its probe disabled itself: dump.json's "probe_disabled")
//   NameMapper: base class of the name mappings (-cm/-am/-dm/-lm), bound by their owners.
//   (DataMapper, ApiMapper, CellMapper: name_mapping_bindings.cc.)
#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "msprobe/compare/compare_run.h"
#include "msprobe/compare/compare_table.h"
#include "msprobe/compare/name_mapper.h"
#include "msprobe/format/xlsx_writer.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using namespace msprobe::compare;
using msprobe::written_cell;

nb::object cell_to_python(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kEmpty: return nb::none();
    case Cell::Kind::kString: return nb::str(c.s.data(), c.s.size());
    case Cell::Kind::kBool: return nb::bool_(c.d != 0);
    case Cell::Kind::kNumber:
      if (c.is_int) return nb::int_((long long)c.d);
      return nb::float_(c.d);
  }
  return nb::none();
}

nb::list row_to_python(const std::vector<Cell>& row, bool written) {
  nb::list out;
  for (const Cell& c : row) out.append(cell_to_python(written ? written_cell(c) : c));
  return out;
}

const char* mode_name(CompareMode m) {
  switch (m) {
    case CompareMode::kStatistics: return "statistics";
    case CompareMode::kTensor: return "tensor";
    case CompareMode::kMd5: return "md5";
  }
  return "";
}

}  // namespace

void bind_compare(nb::module_& m) {
  nb::class_<NameMapper>(m, "NameMapper",
                         "Name mapping of a compare (-cm/-am/-dm/-lm); the default maps nothing.")
      .def(nb::init<>());

  nb::class_<CompareTable>(m, "CompareTable", "Result table of compare_dumps, held in C++.")
      .def_prop_ro("mode", [](const CompareTable& t) { return mode_name(t.mode); })
      .def_ro("stack_mode", &CompareTable::stack_mode)
      .def_ro("header", &CompareTable::header)
      .def_ro("notes", &CompareTable::notes)
      .def_prop_ro("num_rows", [](const CompareTable& t) { return t.rows.size(); })
      .def_prop_ro("fills",
                   [](const CompareTable& t) {
                     std::vector<std::string> out;
                     out.reserve(t.fills.size());
                     for (Fill f : t.fills)
                       out.push_back(f == Fill::kRed ? "red" : f == Fill::kYellow ? "yellow" : "");
                     return out;
                   })
      .def("rows",
           [](const CompareTable& t) {
             nb::list out;
             for (const auto& r : t.rows) out.append(row_to_python(r, false));
             return out;
           })
      .def("written_rows",
           [](const CompareTable& t) {
             nb::list out;
             for (const auto& r : t.rows) out.append(row_to_python(r, true));
             return out;
           })
      .def(
          "row",
          [](const CompareTable& t, size_t i) {
            if (i >= t.rows.size()) throw nb::index_error("row index out of range");
            return row_to_python(t.rows[i], false);
          },
          "i"_a)
      .def("column", &CompareTable::column, "name"_a);

  m.def(
      "compare_dumps",
      [](const std::string& npu, const std::string& bench, const std::string& framework, bool stack_mode,
         const std::string& stack_path, bool fuzzy_match, int threads,
         std::shared_ptr<NameMapper> name_mapper, nb::object progress) {
        CompareOptions opt;
        opt.framework = framework;
        opt.stack_mode = stack_mode;
        opt.stack_path = stack_path;
        opt.fuzzy_match = fuzzy_match;
        opt.threads = threads;
        opt.name_mapper = std::move(name_mapper);
        ProgressFn fn;
        if (!progress.is_none()) {
          fn = [progress](const char* stage, size_t done, size_t total) {
            nb::gil_scoped_acquire gil;
            progress(stage, done, total);
          };
        }
        nb::gil_scoped_release release;
        return compare_dumps(npu, bench, opt, fn);
      },
      "npu_json"_a, "bench_json"_a, "framework"_a = "pytorch", "stack_mode"_a = false, "stack_path"_a = "",
      "fuzzy_match"_a = false, "threads"_a = 0, "name_mapper"_a.none() = nb::none(),
      "progress"_a.none() = nb::none(),
      "Compares two dumps as msprobe 1.2.1 does; returns the CompareTable. Raises ConfigError / "
      "MsprobeFileError (one line) on unusable input.");
}
