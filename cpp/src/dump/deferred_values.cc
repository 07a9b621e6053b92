#include "msprobe/dump/deferred_values.h"

#include <algorithm>
#include <iterator>

#include "msprobe/dump/deferred_text.h"

namespace msprobe {

DeferredValue& DeferredValues::add(JsonWriter& w, std::string stem, SinkPtr sink, bool output_side,
                                   std::unique_ptr<DeferredPayload> payload) {
  DeferredValue d;
  d.id = next_id_++;
  d.depth = w.depth();
  w.raw(deferred_marker(d.id));
  d.stem = std::move(stem);
  d.sink = std::move(sink);
  d.output_side = output_side;
  d.since = std::chrono::steady_clock::now();
  d.payload = std::move(payload);
  values_.push_back(std::move(d));
  return values_.back();
}

double DeferredValues::age_s() const {
  if (values_.empty()) return 0.0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - values_.front().since).count();
}

std::vector<const DeferredValue*> DeferredValues::announce() {
  std::vector<const DeferredValue*> fresh;
  for (size_t i = announced_; i < values_.size(); ++i) fresh.push_back(&values_[i]);
  announced_ = values_.size();
  return fresh;
}

std::vector<DeferredValue> DeferredValues::take(size_t n) {
  n = std::min(n, values_.size());
  std::vector<DeferredValue> out;
  if (n == values_.size()) {
    out.swap(values_);
  } else {
    out.assign(std::make_move_iterator(values_.begin()),
               std::make_move_iterator(values_.begin() + (std::ptrdiff_t)n));
    values_.erase(values_.begin(), values_.begin() + (std::ptrdiff_t)n);
  }
  announced_ = announced_ > n ? announced_ - n : 0;
  return out;
}

}  // namespace msprobe
