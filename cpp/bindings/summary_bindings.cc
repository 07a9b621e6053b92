// msprobe._core.summarize_dump(dump_path) -> list of dicts.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "msprobe/dump/dump_summary.h"

namespace nb = nanobind;

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
      out.append(d);
    }
    return out;
  });
}
