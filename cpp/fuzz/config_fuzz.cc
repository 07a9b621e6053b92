// config.json through the validator, for both frameworks: a DumpConfig or one InvalidInput /
// FileError line.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::config(data, size);
  return 0;
}
