// api_precision_compare inputs: an NPU and a GPU details CSV (separated by a "@@@@" line) give
// the two output files or one error line.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::precision_compare(data, size);
  return 0;
}
