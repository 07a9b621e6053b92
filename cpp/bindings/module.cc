// nanobind module msprobe._core: thin bindings over the C++ core.
#include <nanobind/nanobind.h>

namespace nb = nanobind;

void bind_errors(nb::module_& m);
void bind_stats(nb::module_& m);
void bind_formats(nb::module_& m);
void bind_config(nb::module_& m);
void bind_session(nb::module_& m);
void bind_summary(nb::module_& m);
void bind_runut(nb::module_& m);
void bind_check(nb::module_& m);
void bind_kernel(nb::module_& m);
void bind_report(nb::module_& m);
void bind_compare(nb::module_& m);
void bind_reader(nb::module_& m);
void bind_name_mapping(nb::module_& m);
void bind_compare_output(nb::module_& m);
void bind_repair(nb::module_& m);
void bind_device(nb::module_& m);
void bind_freebench(nb::module_& m);
void bind_opgen(nb::module_& m);
void bind_grad(nb::module_& m);
void bind_monitor(nb::module_& m);

NB_MODULE(_core, m) {
  m.doc() = "msprobe C++ core";
  // The debugger is a process-lifetime singleton, as in the original; it is flushed by an
  // atexit handler, so objects alive at interpreter exit are expected.
  nb::set_leak_warnings(false);
  bind_errors(m);  // first: later bindings use its exception classes and translators
  bind_stats(m);
  bind_formats(m);
  bind_config(m);
  bind_session(m);
  bind_summary(m);
  bind_runut(m);
  bind_check(m);
  bind_kernel(m);
  bind_report(m);
  bind_compare(m);
  bind_reader(m);
  bind_name_mapping(m);  // after bind_compare: subclasses of its NameMapper
  bind_compare_output(m);
  bind_repair(m);
  bind_device(m);
  bind_freebench(m);  // after bind_config: takes a DumpConfig
  bind_opgen(m);
  bind_grad(m);  // after bind_config: takes its GradProbeConfig
  bind_monitor(m);
}
