// Task overflow_check while an entry is rendered: whether inf/NaN appeared among its inputs or
// its outputs, and the tensors whose files are written only if the entry turns out to overflow
// (1.2.1 keeps them by reference too and saves them when the entry is decided).
#pragma once
#include <nanobind/nanobind.h>

#include <memory>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace msprobe {

struct HeldTensor {
  nb::object tensor;  // a value the core can view (a host copy for device tensors)
  std::string stem;   // data_name without the extension
  bool requires_grad;
};

struct OverflowSink {
  bool inputs = false, outputs = false;
  std::vector<HeldTensor> held;
  bool overflowed() const { return inputs || outputs; }
};

using SinkPtr = std::shared_ptr<OverflowSink>;

}  // namespace msprobe
