// The CSV reader of the accuracy checker (details / result CSVs of run_ut, api_precision_compare
// inputs): a table whose every cell can be read, or one FileError line.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::csv(data, size);
  return 0;
}
