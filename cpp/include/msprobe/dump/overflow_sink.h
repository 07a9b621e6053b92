// Task overflow_check while an entry is rendered: whether inf/NaN appeared among its inputs or
// its outputs, and the tensors whose files are written only if the entry turns out to overflow
// (1.2.1 keeps them by reference too and saves them when the entry is decided).
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace msprobe {

// A tensor kept until its entry is decided; the adapter derives it to hold its own object.
struct HeldTensor {
  HeldTensor(std::string stem_, bool requires_grad_)
      : stem(std::move(stem_)), requires_grad(requires_grad_) {}
  virtual ~HeldTensor() = default;
  std::string stem;  // data_name without the extension
  bool requires_grad;
};

struct OverflowSink {
  bool inputs = false, outputs = false;
  std::vector<std::unique_ptr<HeldTensor>> held;
  bool overflowed() const { return inputs || outputs; }
};

using SinkPtr = std::shared_ptr<OverflowSink>;

}  // namespace msprobe
