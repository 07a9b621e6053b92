// Task overflow_check while an entry is rendered: whether inf/NaN appeared among its inputs or
// its outputs, and the tensors whose files are written only if the entry turns out to overflow
// (1.2.1 keeps them by reference too and saves them when the entry is decided). Most records
// are lazy: a scan for inf/NaN decides the entry, and the statistics are computed only for the
// entries that are written.
#pragma once
#include <nanobind/nanobind.h>

#include <memory>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace msprobe {

// A record not rendered yet is written as "\x02{index in held}\x02" (JsonWriter escapes control
// characters in strings, so the byte never occurs otherwise).
constexpr char kLazyMark = '\x02';

struct HeldTensor {
  nb::object tensor;  // a value the core can view (a host copy for device tensors)
  std::string stem;   // data_name without the extension
  bool requires_grad;
  int depth = 0;      // lazy: the JSON depth its record is rendered at
  bool lazy = false;  // its record is rendered only if the entry overflows
};

struct OverflowSink {
  bool inputs = false, outputs = false;
  std::vector<HeldTensor> held;
  bool overflowed() const { return inputs || outputs; }
};

using SinkPtr = std::shared_ptr<OverflowSink>;

}  // namespace msprobe
