// GradComparator's similarities.csv (read back by `msprobe report`): a table with its first
// divergence, or one FileError line.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::grad_similarities(data, size);
  return 0;
}
