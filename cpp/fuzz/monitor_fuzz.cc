// The training monitor's config.json, anomaly.json and csv files: accepted, or refused with one
// InvalidInput / FileError line.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::monitor(data, size);
  return 0;
}
