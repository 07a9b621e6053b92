// Tests of the monitor's mg_direction and ur_distribution kernels: sign matches of a gradient and
// Adam's exp_avg as 1.2.1's torch formula gives them, and the update / ratio histograms as
// torch.histc bins them.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/monitor/adam_heatmaps.h"
#include "msprobe/monitor/sign_matches.h"
#include "tensor_views.h"

using namespace msprobe;
using namespace msprobe::monitor;
using msprobe::test::kNaN;
using msprobe::test::view_of;

TEST(SignMatches, SameOppositeAndZeroCountOneNoughtAndHalf) {
  // Same sign, opposite, a zero on either side, and NaN (torch.sign(NaN) is 0).
  std::vector<float> g{1.0f, -2.0f, 0.0f, 3.0f, (float)kNaN, -1.0f, 4.0f, 5.0f};
  std::vector<float> m{2.0f, -1.0f, 1.0f, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  // products 1, 1, 0, 0, 0, -1, 1, 1: sum 3, (3 / 8 + 1) / 2
  EXPECT_EQ(sign_matches(view_of(g, DType::kFloat32), view_of(m, DType::kFloat32)), 0.6875);
}

TEST(SignMatches, StridedAndMixedDtypes) {
  // A transposed 2x3 gradient against a contiguous 3x2 exp_avg in logical order.
  std::vector<double> g{1, 2, 3, -4, -5, -6};  // [[1, 2, 3], [-4, -5, -6]] transposed: 1, -4, 2, -5, 3, -6
  std::vector<float> m{1, -1, 1, -1, 1, 1};
  const double r =
      sign_matches(view_of(g, DType::kFloat64, {3, 2}, {1, 3}), view_of(m, DType::kFloat32, {3, 2}));
  EXPECT_EQ(r, (4.0 / 6.0 + 1.0) / 2.0);  // 5 same, 1 opposite
}

TEST(SignMatches, BatchGivesOneWithoutExpAvgAndRejectsSizeMismatch) {
  std::vector<float> g{1.0f, -1.0f}, m{-1.0f, 1.0f}, three{1.0f, 1.0f, 1.0f};
  const TensorView vg = view_of(g, DType::kFloat32), vm = view_of(m, DType::kFloat32);
  const std::vector<double> r = sign_matches({&vg, &vg}, {&vm, nullptr});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], 0.0);
  EXPECT_EQ(r[1], 1.0);
  EXPECT_THROW(sign_matches(vg, view_of(three, DType::kFloat32)), InvalidInput);
}

TEST(AdamHeatmaps, HistcBinsEdgesOutsideAndNaN) {
  std::vector<float> x{-1.0f, 1.0f, 0.0f, -1.0001f, 1.0001f, (float)kNaN, 0.999f, -0.95f};
  std::vector<double> counts(kHeatmapBins, 0.0);
  histc_add(x.data(), (int64_t)x.size(), counts.data());
  std::vector<double> expected(kHeatmapBins, 0.0);
  expected[0] = 1;   // -1
  expected[29] = 2;  // 1 (the last bin holds its right edge) and 0.999
  expected[15] = 1;  // 0
  expected[0] += 1;  // -0.95: (0.05 * 30) / 2 = 0.75
  EXPECT_EQ(counts, expected);
}

TEST(AdamHeatmaps, UpdateAndRatioColumnsPerStep) {
  // Bias correction: step 1 with beta1 0.5, beta2 0.75 divides m by 0.5 and v by 0.25.
  std::vector<float> m{0.25f, -0.25f, 0.0f, 0.5f}, v{0.25f, 0.25f, 0.0f, 0.0625f};
  const TensorView vm = view_of(m, DType::kFloat32), vv = view_of(v, DType::kFloat32);
  AdamHeatmaps maps;
  // m^ = 0.5, -0.5, 0, 1; sqrt(v^) = 1, 1, 0, 0.5: ratio 0.5, -0.5, NaN (0/0, left out), 2 (outside).
  maps.add({"p/adam_update"}, {"p/adam_ratio"}, {AdamMoments{&vm, &vv, 1.0}}, 0.5, 0.75, 3.0);
  maps.add({"p/adam_update"}, {"p/adam_ratio"}, {AdamMoments{&vm, &vv, 1.0}}, 0.5, 0.75, 3.0);
  const std::vector<MonitorHeatmap> taken = maps.take();
  ASSERT_EQ(taken.size(), 4u);  // the tags of both calls: updates, then ratios
  EXPECT_EQ(taken[0].tag, "p/adam_update");
  EXPECT_EQ(taken[2].tag, "p/adam_ratio");
  const MonitorHeatmap& ratio = taken[2];
  ASSERT_EQ(ratio.counts.size(), (size_t)kHeatmapBins);
  ASSERT_EQ(ratio.counts[0].size(), 2u);  // a column per call
  // 0.5 -> bin (1.5 * 30) / 2 = 22; -0.5 -> 7
  for (int b = 0; b < kHeatmapBins; ++b) {
    const double want = (b == 22 || b == 7) ? 1.0 : 0.0;
    EXPECT_EQ(ratio.counts[(size_t)b][0], want) << b;
    EXPECT_EQ(ratio.counts[(size_t)b][1], want) << b;
  }
  // update with eps 3: 0.5 / 4, -0.5 / 4, 0 / 3, 1 / 3.5 -> bins 16, 13, 15, 19
  const MonitorHeatmap& update = taken[0];
  for (int b = 0; b < kHeatmapBins; ++b) {
    const double want = (b == 16 || b == 13 || b == 15 || b == 19) ? 1.0 : 0.0;
    EXPECT_EQ(update.counts[(size_t)b][1], want) << b;
  }
  EXPECT_TRUE(maps.take().empty());
  maps.clear();
  maps.add({"p/adam_update"}, {"p/adam_ratio"}, {AdamMoments{&vm, &vv, 1.0}}, 0.5, 0.75, 3.0);
  EXPECT_EQ(maps.take()[0].counts[0].size(), 1u);  // cleared: a fresh map
}

TEST(AdamHeatmaps, MomentsOfDifferentSizesAreRejected) {
  std::vector<float> m{1.0f, 2.0f}, v{1.0f};
  const TensorView vm = view_of(m, DType::kFloat32), vv = view_of(v, DType::kFloat32);
  AdamHeatmaps maps;
  EXPECT_THROW(maps.add({"u"}, {"r"}, {AdamMoments{&vm, &vv, 1.0}}, 0.9, 0.999, 1e-8), InvalidInput);
}
