// A dump.json / stack.json / construct.json a user hands us: the streamed reader, run_ut's view of
// it and the side-file readers give records or one FileError line; and msprobe repair either
// refuses it or leaves a file the strict parser reads (checked: a violation aborts).
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::dump_json(data, size);
  return 0;
}
