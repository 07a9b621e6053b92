// merge_result's xlsx reader (compare results written by us, by 1.2.1's openpyxl, or re-saved by
// a spreadsheet program): the sheets, every cell readable, or one FileError line.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::xlsx(data, size);
  return 0;
}
