// Values written now as markers (deferred_text.h) and read later, oldest first: what the core
// keeps of each (where it goes, its tensor file name, its overflow_check sink, its age); the
// adapter keeps its own object in the payload.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "msprobe/dump/overflow_sink.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {

struct DeferredPayload {
  virtual ~DeferredPayload() = default;
};

struct DeferredValue {
  uint64_t id = 0;
  int depth = 0;     // rendered at the depth of its marker
  std::string stem;  // tensor file name without extension
  SinkPtr sink;      // overflow_check: the entry part it belongs to
  bool output_side = false;
  std::chrono::steady_clock::time_point since;
  std::unique_ptr<DeferredPayload> payload;
};

class DeferredValues {
 public:
  // Writes a new value's marker at w's position and keeps it.
  DeferredValue& add(JsonWriter& w, std::string stem, SinkPtr sink, bool output_side,
                     std::unique_ptr<DeferredPayload> payload);
  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  // Seconds since the oldest was written (0 when none).
  double age_s() const;
  // The values added since the last call (for an adapter that starts reading them in batches).
  std::vector<const DeferredValue*> announce();
  // Removes and returns the `n` oldest.
  std::vector<DeferredValue> take(size_t n);

 private:
  std::vector<DeferredValue> values_;
  size_t announced_ = 0;  // values_[0, announced_) were returned by announce()
  uint64_t next_id_ = 1;
};

}  // namespace msprobe
