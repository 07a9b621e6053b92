// Bindings of the MindSpore compare name mappings (-am/-cm/-dm), NameMapper subclasses that
// compare_dumps(name_mapper=...) takes. The tables come from yaml files loaded in Python.
//   ApiMapper(builtin: {ms_api: pt_api}, user: [UserApiMapping])   .skipped_entries -> [ms_api]
//   UserApiMapping(): fields ms_api, pt_api (str), ms_args ... pt_parameters_grad ([str])
//   CellMapper(table: {"{path}.{Class}": "{path}.{Class}"})
//   DataMapper(pairs: [(npu row, bench row)])
//   LayerMapper(npu_dump_json, bench_dump_json, table: [(type, [(origin, target)])])
//       .data_mapping() -> [(npu row, bench row | "N/A")]   .entry_mapping() -> [(entry, entry)]
//   .npu_key(row) -> str, .prepare(npu_rows, bench_rows), .data_mapping() -> [(str, str)] | None
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unordered_map.h>
#include <nanobind/stl/vector.h>

#include "msprobe/compare/name_mapping.h"

namespace nb = nanobind;
using namespace nb::literals;
using namespace msprobe::compare;

void bind_name_mapping(nb::module_& m) {
  nb::class_<UserApiMapping>(m, "UserApiMapping", "One entry of a user -am table.")
      .def(nb::init<>())
      .def_rw("ms_api", &UserApiMapping::ms_api)
      .def_rw("pt_api", &UserApiMapping::pt_api)
      .def_rw("ms_args", &UserApiMapping::ms_args)
      .def_rw("pt_args", &UserApiMapping::pt_args)
      .def_rw("ms_output", &UserApiMapping::ms_output)
      .def_rw("pt_output", &UserApiMapping::pt_output)
      .def_rw("ms_parameters", &UserApiMapping::ms_parameters)
      .def_rw("pt_parameters", &UserApiMapping::pt_parameters)
      .def_rw("ms_parameters_grad", &UserApiMapping::ms_parameters_grad)
      .def_rw("pt_parameters_grad", &UserApiMapping::pt_parameters_grad);

  nb::class_<ApiMapper, NameMapper>(m, "ApiMapper", "-am: MindSpore API names to PyTorch's.")
      .def(nb::init<std::unordered_map<std::string, std::string>, std::vector<UserApiMapping>>(), "builtin"_a,
           "user"_a)
      .def("prepare", &ApiMapper::prepare, "npu_rows"_a, "bench_rows"_a)
      .def("npu_key", &ApiMapper::npu_key, "row"_a)
      .def_prop_ro("skipped_entries", &ApiMapper::skipped_entries);

  nb::class_<CellMapper, NameMapper>(m, "CellMapper", "-cm: MindSpore cells to PyTorch modules.")
      .def(nb::init<std::unordered_map<std::string, std::string>>(), "table"_a)
      .def("prepare", &CellMapper::prepare, "npu_rows"_a, "bench_rows"_a)
      .def("npu_key", &CellMapper::npu_key, "row"_a);

  nb::class_<DataMapper, NameMapper>(m, "DataMapper", "-dm: explicit (npu row, bench row) pairs.")
      .def(nb::init<std::vector<std::pair<std::string, std::string>>>(), "pairs"_a)
      .def("data_mapping", [](const DataMapper& d) { return *d.data_mapping(); });

  nb::class_<LayerMapper, NameMapper>(m, "LayerMapper", "-lm: row pairs from both dumps' layer trees.")
      .def(nb::init<const std::string&, const std::string&, const LayerMapper::Table&>(), "npu_dump_json"_a,
           "bench_dump_json"_a, "table"_a, nb::call_guard<nb::gil_scoped_release>())
      .def("data_mapping", [](const LayerMapper& d) { return *d.data_mapping(); })
      .def("entry_mapping", &LayerMapper::entry_mapping);
}
