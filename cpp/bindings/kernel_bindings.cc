// Bindings of MindSpore level L2 (kernel dump): the dump configuration file msprobe generates
// and the CPU statistics conversion of a MindSpore tensor dump.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/config/dump_config.h"
#include "msprobe/kernel/kernel_dump_config.h"
#include "msprobe/kernel/kernel_overflow_filter.h"
#include "msprobe/kernel/kernel_stat_csv.h"

namespace nb = nanobind;
using namespace nb::literals;

void bind_kernel(nb::module_& m) {
  using namespace msprobe;
  m.def(
      "kernel_dump_json",
      [](const DumpConfig& cfg, const std::string& kind, const std::string& saved_data) {
        if (kind != "kbyk" && kind != "graph" && kind != "graph_overflow")
          throw InvalidInput("kind must be kbyk, graph or graph_overflow, got \"" + kind + "\"");
        const KernelDumpKind k = kind == "graph"  ? KernelDumpKind::kGraph
                                 : kind == "kbyk" ? KernelDumpKind::kKbyk
                                                  : KernelDumpKind::kGraphOverflow;
        return kernel_dump_json(cfg, k, saved_data);
      },
      "cfg"_a, "kind"_a, "saved_data"_a = "",
      "Text of kernel_kbyk_dump.json (kind 'kbyk'), kernel_graph_dump.json ('graph') or "
      "kernel_graph_overflow_check.json ('graph_overflow'), as 1.2.1 writes it.");
  m.def(
      "write_text_file_atomic",
      [](const std::string& path, const std::string& text) { msprobe::write_file_atomically(path, text); },
      "path"_a, "text"_a, nb::call_guard<nb::gil_scoped_release>(),
      "Writes a file through a temporary and a rename (mode 0640).");
  m.def("kernel_statistic_categories", &kernel_statistic_categories, "cfg"_a);
  m.def("kernel_statistic_header", &kernel_statistic_header, "categories"_a);
  m.def(
      "convert_kernel_tensor_dump",
      [](const std::string& dump_path, const std::vector<std::string>& categories, bool final_pass) {
        KernelStatOptions opts;
        opts.categories = categories;
        opts.final_pass = final_pass;
        KernelStatResult r;
        {
          nb::gil_scoped_release release;
          r = convert_kernel_tensor_dump(dump_path, opts);
        }
        return nb::make_tuple(r.converted, r.problems);
      },
      "dump_path"_a, "categories"_a, "final_pass"_a = false,
      "Turns the .npy files of a MindSpore tensor dump into statistic.csv rows; returns "
      "(files converted, ['path: problem', ...]).");
  m.def(
      "filter_kernel_overflow_dump",
      [](const std::string& dump_path, bool final_pass) {
        KernelOverflowResult r;
        {
          nb::gil_scoped_release release;
          r = filter_kernel_overflow_dump(dump_path, final_pass);
        }
        return nb::make_tuple(r.removed, r.problems);
      },
      "dump_path"_a, "final_pass"_a = false,
      "overflow_check on a CPU: removes the tensor files of kernels without inf/NaN; returns "
      "(files removed, ['path: problem', ...]).");
}
