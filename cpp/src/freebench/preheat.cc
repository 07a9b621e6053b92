#include "msprobe/freebench/preheat.h"

#include <algorithm>
#include <set>

#include "msprobe/freebench/fuzz_compare.h"

namespace msprobe {
namespace freebench {
namespace {
constexpr double kInitialThreshold = 2.05;
constexpr double kThresholdStep = 2.0;

int64_t lookup(const std::unordered_map<std::string, int64_t>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? 0 : it->second;
}
}  // namespace

bool Preheat::counting(const std::string& api, int64_t step) {
  if (step != 0) return false;
  ++per_step_[api];
  return true;
}

double Preheat::threshold(const std::string& api, DType dtype) {
  auto& m = thresholds_[api];
  return m.emplace(dtype, kInitialThreshold).first->second;
}

int64_t Preheat::calls_per_step(const std::string& api) const { return lookup(per_step_, api); }
int64_t Preheat::called(const std::string& api) const { return lookup(called_, api); }

int64_t Preheat::samples_per_step(const std::string& api) const {
  const int64_t total = lookup(per_step_, api);
  const int64_t ceil_div = (total + preheat_step_ - 1) / preheat_step_;
  return std::min(ceil_div, max_sample_);
}

bool Preheat::take_sample(const std::string& api, int64_t step) {
  if (step != step_) {  // a new step: the samples and call counts start again
    record_.clear();
    called_.clear();
    sampled_.clear();
    step_ = step;
  }
  if (preheat_step_ <= step) return false;
  const int64_t seq = ++called_[api];
  const int64_t total = lookup(per_step_, api);
  if (total == 0) return false;
  std::set<int64_t> wanted;
  for (int64_t i = 1; i <= samples_per_step(api); ++i) {
    int64_t c = (preheat_step_ * (i - 1) + step) % total;
    wanted.insert(c == 0 ? total : c);
  }
  if (!wanted.count(seq)) return false;
  ++sampled_[api];
  return true;
}

double Preheat::adjusted(const std::string& api, DType dtype,
                         const std::vector<std::pair<double, bool>>& results) {
  std::vector<double> con, incon;
  for (const auto& [ratio, ok] : results) (ok ? con : incon).push_back(ratio);
  const double old = threshold(api, dtype);
  double next = old;
  if (!con.empty() && !incon.empty()) {
    const double min_incon = *std::min_element(incon.begin(), incon.end());
    if (min_incon > *std::max_element(con.begin(), con.end())) {
      next = std::min(min_incon, old);
      preheating_[api][dtype] = false;
    }
  } else if (!con.empty()) {
    // Consistent with the CPU everywhere: widen when a ratio went past the threshold, else narrow.
    if (*std::max_element(con.begin(), con.end()) > old)
      next = 1 + (old - 1) * kThresholdStep;
    else
      next = 1 + (old - 1) / kThresholdStep;
  } else {
    next = std::min(*std::min_element(incon.begin(), incon.end()), old);
    preheating_[api][dtype] = false;
  }
  return next;
}

void Preheat::record(const std::string& api, DType dtype, double max_ratio, bool cpu_consistent) {
  auto& flags = preheating_[api];
  auto f = flags.find(dtype);
  if (f != flags.end() && !f->second) return;
  record_[api][dtype].emplace_back(max_ratio, cpu_consistent);
  if (lookup(sampled_, api) < samples_per_step(api)) return;
  for (const auto& [dt, results] : record_[api]) {
    const double next = adjusted(api, dt, results);
    thresholds_[api][dt] = std::max(next, ratio_threshold(dt, no_change_));
  }
}

}  // namespace freebench
}  // namespace msprobe
