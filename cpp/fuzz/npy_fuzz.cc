// .npy reader (MindSpore tensors, run_ut inputs): never throws for contents; when it accepts a
// file, statistics over every element stay inside the mapping.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::npy(data, size);
  return 0;
}
