// .pt reader (torch.save zip / zip64, the restricted pickle program) through the dump reader's
// TensorStore: a tensor whose every element lies in the file, or PtUnsupported / FileError.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::pt(data, size);
  return 0;
}
