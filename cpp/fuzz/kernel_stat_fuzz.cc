// MindSpore L2 statistics on CPU: a mapping.csv and a tensor file (separated by a "@@@@" line)
// in an iteration folder are turned into statistic.csv rows; contents never make it throw.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::kernel_stat(data, size);
  return 0;
}
