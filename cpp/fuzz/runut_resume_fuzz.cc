// run_ut -csv_path resume: a result CSV and a details CSV (input: the two files separated by a
// "@@@@" line) are validated and repaired, or refused with one line.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::runut_resume(data, size);
  return 0;
}
