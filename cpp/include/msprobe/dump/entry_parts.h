// One dump.json entry value assembled key by key ("input_args", "input_kwargs", "output",
// "parameters", "input"...): each part is `"key": value` rendered at depth 3, the object at 2.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "msprobe/dump/deferred_text.h"
#include "msprobe/dump/overflow_sink.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {

class EntryParts {
 public:
  template <typename Fn>
  void part(const char* key, Fn&& fn) {
    std::string text;
    append_json_string(text, key);
    text += ": ";
    JsonWriter w(text, 3);
    fn(w);
    parts_.push_back(std::move(text));
  }
  bool empty() const { return parts_.empty(); }
  // The entry's value at depth 2 ("{}" without parts).
  std::string finish() const;
  // overflow_check: decided already (no inf/NaN, no value still to read): nothing to write.
  bool finite_and_complete() const;

  SinkPtr sink;  // overflow_check: what the parts saw

 private:
  std::vector<std::string> parts_;
};

}  // namespace msprobe
