// The monitor's ur_distribution (1.2.1's TrainerMon, docs 19): Adam's update and ratio of each
// parameter, histogrammed at every monitored step; the histograms of the steps side by side
// make a heat map (bins down, steps across) that the Python side draws into TensorBoard.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace monitor {

// 1.2.1's histogram: 30 bins over [-1, 1].
constexpr int kHeatmapBins = 30;
constexpr double kHeatmapMin = -1.0, kHeatmapMax = 1.0;

// torch.histc(x, bins=kHeatmapBins, min=-1, max=1) of the values: NaN and values outside
// [-1, 1] are left out, 1 falls in the last bin. T is float or double (torch computes the bin
// in the tensor's dtype).
template <typename T>
void histc_add(const T* x, int64_t n, double* counts);

// A heat map: counts[bin][column], a column per monitored step.
struct MonitorHeatmap {
  std::string tag;  // "{param}/adam_update", "{param}/rank{R}/adam_ratio" (1.2.1's names)
  std::vector<std::vector<double>> counts;
};

// Adam's moments of one parameter before a step.
struct AdamMoments {
  const TensorView* exp_avg = nullptr;
  const TensorView* exp_avg_sq = nullptr;
  double step = 0;  // the optimizer's step count of this parameter (state["step"])
};

class AdamHeatmaps {
 public:
  // For each parameter: with m^ = exp_avg / (1 - beta1^step), v^ = exp_avg_sq / (1 - beta2^step),
  // update = m^ / (sqrt(v^) + eps) and ratio = m^ / sqrt(v^) (computed in float32, float64 for
  // float64 moments, as torch does), one pass over both moments; their histograms become the
  // next column of the heat maps update_tags[i] and ratio_tags[i].
  void add(const std::vector<std::string>& update_tags, const std::vector<std::string>& ratio_tags,
           const std::vector<AdamMoments>& moments, double beta1, double beta2, double eps);
  // The heat maps that got a column since the last take, whole: the update ones, then the ratio
  // ones (1.2.1's drawing order).
  std::vector<MonitorHeatmap> take();
  // Forgets every heat map (monitoring stopped).
  void clear();

 private:
  std::map<std::string, std::vector<std::vector<double>>> columns_;  // tag -> columns
  std::vector<std::string> fresh_update_, fresh_ratio_;
};

}  // namespace monitor
}  // namespace msprobe
