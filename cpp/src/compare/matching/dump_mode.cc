// 1.2.1's get_dump_mode (see dump_mode.h).
#include "dump_mode.h"

#include "msprobe/base/error.h"

namespace msprobe {
namespace compare {

CompareMode detect_mode(const ParsedDump& npu, const ParsedDump& bench) {
  auto shown = [](const std::string& t) { return t.empty() ? std::string("None") : t; };
  if (npu.task.empty() || bench.task.empty())
    throw InvalidInput("Please check the dump task is correct, npu's task is " + shown(npu.task) +
                       ", bench's task is " + shown(bench.task) + ".");
  if (npu.task != bench.task)
    throw InvalidInput("Please check the dump task is consistent: npu's task is " + npu.task +
                       ", bench's task is " + bench.task + ".");
  if (npu.task == "tensor") return CompareMode::kTensor;
  if (npu.task == "statistics") {
    if (npu.has_md5 != bench.has_md5)
      throw InvalidInput(
          "Please check the dump task is consistent, dump mode of npu and bench should both be "
          "statistics or md5.");
    return npu.has_md5 ? CompareMode::kMd5 : CompareMode::kStatistics;
  }
  throw InvalidInput("Compare applies only to task is tensor or statistics (task is " + npu.task + ").");
}

}  // namespace compare
}  // namespace msprobe
