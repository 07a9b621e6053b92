// msprobe._core.repair_dump: `msprobe repair` and the repair a new session does before writing.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "msprobe/dump/dump_repair.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {
const char* action_name(msprobe::RepairResult::Action a) {
  switch (a) {
    case msprobe::RepairResult::Action::kIntact: return "intact";
    case msprobe::RepairResult::Action::kTrimmed: return "trimmed";
    case msprobe::RepairResult::Action::kRewritten: return "rewritten";
    case msprobe::RepairResult::Action::kRemoved: return "removed";
    case msprobe::RepairResult::Action::kFailed: return "failed";
  }
  return "?";
}
}  // namespace

void bind_repair(nb::module_& m) {
  m.def(
      "repair_dump",
      [](const std::string& path, bool quick, const std::string& rank_folder) {
        msprobe::RepairOptions opt;
        opt.quick = quick;
        opt.rank_folder = rank_folder;
        std::vector<msprobe::RepairResult> results;
        {
          nb::gil_scoped_release release;
          results = msprobe::repair_dump_tree(path, opt);
        }
        std::vector<std::tuple<std::string, std::string, std::string>> out;
        for (auto& r : results) out.emplace_back(r.path, action_name(r.action), r.message);
        return out;
      },
      "path"_a, "quick"_a = false, "rank_folder"_a = "",
      "Repairs the dump files under path; returns (path, action, message) for each file that was "
      "not intact (action: trimmed, rewritten, removed or failed).");
}
