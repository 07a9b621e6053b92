// What a reader dropped from a torn file: a kill can cut dump.json, stack.json or construct.json at
// any byte, and every complete record of the surviving prefix is still read. The note says, once,
// where the cut was and what was left out.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace msprobe {
namespace reader {

struct RepairNote {
  bool torn = false;         // the file ended before its JSON was complete
  uint64_t valid_bytes = 0;  // bytes up to the end of the last complete record
  size_t records_kept = 0;
  std::string message;  // one line: "<file>: cut at byte N; kept K entries, dropped ..."
};

}  // namespace reader
}  // namespace msprobe
