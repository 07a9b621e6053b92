// Bindings of grad_probe (cpp/include/msprobe/grad, jobs/grad_compare_job.h). Results cross as
// typed classes; the work runs with the GIL released.
//   GradStepWriter(config, dump_path, rank)
//       .write_step(step, names, grads) -> GradStepFiles     one call per optimizer step
//   grad_matched_dirs(dir1, dir2, prefix) -> [int]
//   grad_compare(rank_dir1, rank_dir2, out_dir) -> GradCompareOutput
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "msprobe/grad/grad_step_writer.h"
#include "msprobe/jobs/grad_compare_job.h"
#include "tensor_from_python.h"

namespace nb = nanobind;
using namespace nb::literals;
using namespace msprobe::grad;

namespace {

GradStepFiles write_step(const GradStepWriter& w, int64_t step, const std::vector<std::string>& names,
                         nb::sequence grads) {
  std::vector<msprobe::PyTensor> held;
  std::vector<msprobe::TensorView> views;
  const size_t n = nb::len(grads);
  held.reserve(n);
  views.reserve(n);
  for (nb::handle g : grads) {
    held.push_back(msprobe::host_tensor_arg(g, "GradStepWriter.write_step"));
    views.push_back(held.back().view);
  }
  nb::gil_scoped_release release;
  return w.write_step(step, names, views);
}

}  // namespace

void bind_grad(nb::module_& m) {
  nb::class_<GradStepFiles>(m, "GradStepFiles", "What one grad_probe step wrote (read-only).")
      .def_ro("csv_path", &GradStepFiles::csv_path)
      .def_ro("rows", &GradStepFiles::rows)
      .def_ro("direction_files", &GradStepFiles::direction_files);

  nb::class_<GradStepWriter>(m, "GradStepWriter",
                             "grad_probe's files of one rank: grad_summary_{step}.csv and step{step}/*.npy.")
      .def(nb::init<const msprobe::GradProbeConfig&, std::string, int64_t>(), "config"_a, "dump_path"_a,
           "rank"_a)
      .def("header", &GradStepWriter::header, "The csv header row.")
      .def_prop_ro("rank_dir", &GradStepWriter::rank_dir)
      .def("write_step", &write_step, "step"_a, "names"_a, "grads"_a,
           "Summarises the host tensors `grads` (one pass each) and writes the step's files.");

  nb::class_<GradSimilarities>(m, "GradSimilarities", "Direction agreement per name and step (read-only).")
      .def_ro("steps", &GradSimilarities::steps)
      .def_ro("names", &GradSimilarities::names, "Parameters, then \"summary\".")
      .def_ro("values", &GradSimilarities::values, "values[name][step].");

  nb::class_<GradDivergence::Param>(m, "GradDivergenceParam",
                                    "A parameter whose directions part (read-only).")
      .def_ro("name", &GradDivergence::Param::name)
      .def_ro("similarity", &GradDivergence::Param::similarity)
      .def_ro("previous", &GradDivergence::Param::previous);

  nb::class_<GradDivergence>(m, "GradDivergence",
                             "The first step where two runs' directions part (read-only).")
      .def_ro("found", &GradDivergence::found)
      .def_ro("step", &GradDivergence::step)
      .def_ro("params", &GradDivergence::params);

  nb::class_<GradCompareOutput>(m, "GradCompareOutput", "One rank's GradComparator result (read-only).")
      .def_ro("similarities", &GradCompareOutput::similarities)
      .def_ro("divergence", &GradCompareOutput::divergence)
      .def_ro("csv_path", &GradCompareOutput::csv_path)
      .def_ro("json_path", &GradCompareOutput::json_path)
      .def_ro("line", &GradCompareOutput::line);

  m.def("grad_matched_dirs", &matched_numbered_dirs, "dir1"_a, "dir2"_a, "prefix"_a,
        "N of the folders {prefix}N in both dir1 and dir2, ascending.");
  m.def(
      "grad_compare",
      [](const std::string& d1, const std::string& d2, const std::string& out) {
        nb::gil_scoped_release release;
        return run_grad_compare(d1, d2, out);
      },
      "rank_dir1"_a, "rank_dir2"_a, "out_dir"_a,
      "Writes out_dir/similarities.csv and grad_divergence.json for two rank folders.");
}
