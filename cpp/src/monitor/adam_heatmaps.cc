// ur_distribution: both moments are read once, block by block in logical order, and the update
// and ratio of each element binned as torch.histc bins it.
#include "msprobe/monitor/adam_heatmaps.h"

#include <algorithm>
#include <cmath>

#include "msprobe/base/error.h"
#include "msprobe/tensor/element_reader.h"

namespace msprobe {
namespace monitor {
namespace {

constexpr int64_t kBlock = 4096;

// Adam's update and ratio of a parameter in T (float for every dtype but float64), binned.
template <typename T>
void update_ratio_histograms(const AdamMoments& mv, double beta1, double beta2, double eps, double* update,
                             double* ratio) {
  // torch: 1 - beta ** step with step a float32 tensor, then tensor / tensor.
  const T bc1 = (T)1 - (T)std::pow((T)beta1, (T)mv.step);
  const T bc2 = (T)1 - (T)std::pow((T)beta2, (T)mv.step);
  const T e = (T)eps;
  ElementReader rm(*mv.exp_avg), rv(*mv.exp_avg_sq);
  std::vector<T> m(kBlock), v(kBlock), u(kBlock), r(kBlock);
  const int64_t n = mv.exp_avg->numel();
  for (int64_t off = 0; off < n; off += kBlock) {
    const int64_t k = std::min(kBlock, n - off);
    rm.read(k, m.data());
    rv.read(k, v.data());
    for (int64_t i = 0; i < k; ++i) {
      const T m_hat = m[i] / bc1;
      const T root = std::sqrt(v[i] / bc2);
      u[i] = m_hat / (root + e);
      r[i] = m_hat / root;
    }
    histc_add(u.data(), k, update);
    histc_add(r.data(), k, ratio);
  }
}

}  // namespace

template <typename T>
void histc_add(const T* x, int64_t n, double* counts) {
  const T left = (T)kHeatmapMin, right = (T)kHeatmapMax;
  const int64_t last = kHeatmapBins;  // number of edges - 1
  for (int64_t i = 0; i < n; ++i) {
    const T v = x[i];
    if (!(v >= left && v <= right)) continue;  // outside, or NaN
    // torch's linear interpolation of the bin, in the tensor's dtype.
    int64_t pos = static_cast<int64_t>((v - left) * (T)last / (right - left));
    if (pos == last) pos -= 1;  // the last bin holds its right edge
    counts[pos] += 1;
  }
}

template void histc_add<float>(const float*, int64_t, double*);
template void histc_add<double>(const double*, int64_t, double*);

void AdamHeatmaps::add(const std::vector<std::string>& update_tags,
                       const std::vector<std::string>& ratio_tags, const std::vector<AdamMoments>& moments,
                       double beta1, double beta2, double eps) {
  MSPROBE_CHECK(update_tags.size() == moments.size() && ratio_tags.size() == moments.size(), InvalidInput,
                "AdamHeatmaps.add: as many update and ratio tags as parameters");
  for (size_t i = 0; i < moments.size(); ++i) {
    const AdamMoments& mv = moments[i];
    MSPROBE_CHECK(
        mv.exp_avg && mv.exp_avg_sq && mv.exp_avg->numel() == mv.exp_avg_sq->numel(), InvalidInput,
        "ur_distribution: " + update_tags[i] + ": exp_avg and exp_avg_sq must be tensors of one size");
    std::vector<double> update(kHeatmapBins, 0.0), ratio(kHeatmapBins, 0.0);
    if (mv.exp_avg->dtype == DType::kFloat64) {
      update_ratio_histograms<double>(mv, beta1, beta2, eps, update.data(), ratio.data());
    } else {
      update_ratio_histograms<float>(mv, beta1, beta2, eps, update.data(), ratio.data());
    }
    columns_[update_tags[i]].push_back(std::move(update));
    columns_[ratio_tags[i]].push_back(std::move(ratio));
    fresh_update_.push_back(update_tags[i]);
    fresh_ratio_.push_back(ratio_tags[i]);
  }
}

std::vector<MonitorHeatmap> AdamHeatmaps::take() {
  std::vector<MonitorHeatmap> out;
  for (const auto* fresh : {&fresh_update_, &fresh_ratio_}) {
    for (const std::string& tag : *fresh) {
      const auto& cols = columns_[tag];
      MonitorHeatmap h;
      h.tag = tag;
      h.counts.assign(kHeatmapBins, std::vector<double>(cols.size()));
      for (size_t c = 0; c < cols.size(); ++c) {
        for (int b = 0; b < kHeatmapBins; ++b) h.counts[(size_t)b][c] = cols[c][(size_t)b];
      }
      out.push_back(std::move(h));
    }
  }
  fresh_update_.clear();
  fresh_ratio_.clear();
  return out;
}

void AdamHeatmaps::clear() {
  columns_.clear();
  fresh_update_.clear();
  fresh_ratio_.clear();
}

}  // namespace monitor
}  // namespace msprobe
