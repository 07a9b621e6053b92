#include "msprobe/monitor/collective_stats.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace msprobe {
namespace monitor {

CollectiveStats::CollectiveStats(std::vector<std::string> ops, double eps) : eps_(eps) {
  for (const std::string& op : ops) {
    ops_.push_back(monitor_op_from_name(op));
    counts_ = counts_ || ops_.back() == MonitorOp::kZeros || ops_.back() == MonitorOp::kNans;
  }
}

// The statistics of parts taken as one tensor: each part in one pass, then combined (norms as
// the root of the summed squares, zeros and means weighted by the parts' sizes).
MonitorStats CollectiveStats::stats_of(const std::vector<const TensorView*>& parts) const {
  if (parts.size() == 1) return monitor_stats(*parts[0], eps_, counts_);
  MonitorStats all;
  const double nan = std::nan("");
  all.id = nan;
  double squares = 0, zeros = 0, sum = 0;
  int64_t numel = 0;
  bool first = true;
  for (const TensorView* t : parts) {
    const MonitorStats s = monitor_stats(*t, eps_, counts_);
    const int64_t n = t->numel();
    if (n == 0) continue;
    all.min = first ? s.min : (std::isnan(s.min) || std::isnan(all.min) ? nan : std::min(all.min, s.min));
    all.max = first ? s.max : (std::isnan(s.max) || std::isnan(all.max) ? nan : std::max(all.max, s.max));
    first = false;
    squares += s.norm * s.norm;
    zeros += s.zeros * (double)n;
    sum += s.mean * (double)n;
    all.nans += s.nans;
    numel += n;
  }
  if (numel == 0) {
    all.min = all.max = all.norm = all.zeros = all.mean = nan;
    return all;
  }
  if (numel == 1) all.id = all.min;
  all.norm = std::sqrt(squares);
  all.zeros = zeros / (double)numel;
  all.mean = sum / (double)numel;
  return all;
}

void CollectiveStats::add(const std::vector<std::string>& tags,
                          const std::vector<std::vector<const TensorView*>>& parts) {
  std::vector<MonitorStats> stats;
  stats.reserve(parts.size());
  for (size_t i = 0; i < tags.size() && i < parts.size(); ++i) stats.push_back(stats_of(parts[i]));
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < stats.size(); ++i) {
    const std::string collective = tags[i].substr(0, tags[i].find('/'));
    collective_order_.emplace(collective, collective_order_.size());
    auto [it, fresh] = sums_.try_emplace(tags[i]);
    Sum& s = it->second;
    if (fresh) {
      tags_.push_back(tags[i]);
      s.collective = collective;
      s.acc.assign(ops_.size(), 0.0);
    }
    for (size_t j = 0; j < ops_.size(); ++j) {
      const double v = stats[i].get(ops_[j]);
      double& a = s.acc[j];
      switch (ops_[j]) {
        case MonitorOp::kMin:
          if (s.calls == 0 || v < a) a = v;
          break;
        case MonitorOp::kMax:
          if (s.calls == 0 || v > a) a = v;
          break;
        case MonitorOp::kId: a = std::nan(""); break;
        default:  // norm, nans: added; zeros, mean: added, then divided by the calls
          a += v;
      }
    }
    ++s.calls;
  }
}

CollectiveRows CollectiveStats::take() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> order = tags_;
  std::stable_sort(order.begin(), order.end(), [this](const std::string& a, const std::string& b) {
    return collective_order_.at(sums_.at(a).collective) < collective_order_.at(sums_.at(b).collective);
  });
  CollectiveRows rows;
  for (const std::string& tag : order) {
    Sum& s = sums_.at(tag);
    for (size_t j = 0; j < ops_.size(); ++j) {
      if (ops_[j] == MonitorOp::kZeros || ops_[j] == MonitorOp::kMean) s.acc[j] /= (double)s.calls;
    }
    rows.tags.push_back(tag);
    rows.values.push_back(std::move(s.acc));
  }
  tags_.clear();
  sums_.clear();
  return rows;
}

void CollectiveStats::move_into(MonitorWriter& writer, const std::string& prefix) {
  CollectiveRows rows = take();
  if (!rows.tags.empty())
    writer.add_values(prefix, rows.tags, std::move(rows.values), /*group=*/"", /*numbered=*/false);
}

void CollectiveStats::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  tags_.clear();
  sums_.clear();
}

}  // namespace monitor
}  // namespace msprobe
