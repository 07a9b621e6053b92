// JSON parser (config.json, dump.json, stack.json, construct.json): any bytes give a value or a
// JsonParseError, whole or walked a value at a time.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msprobe_fuzz::json(data, size);
  return 0;
}
