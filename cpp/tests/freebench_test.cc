// free_benchmark's judge (cpp/include/msprobe/freebench/): the ratio verdict and its thresholds,
// the CPU benchmark errors, the preheat's sampling and thresholds, the CSV rows and the summary.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "msprobe/freebench/fuzz_checker.h"
#include "msprobe/freebench/fuzz_compare.h"
#include "msprobe/freebench/fuzz_results.h"
#include "msprobe/freebench/preheat.h"
#include "tensor_views.h"
#include "test_files.h"

namespace msprobe {
namespace freebench {
namespace {

using test::kInf;
using test::kNaN;
using test::view_of;

TEST(FreeBenchCompare, ThresholdsPerDtype) {
  EXPECT_DOUBLE_EQ(ratio_threshold(DType::kFloat16, false), 1.002);
  EXPECT_DOUBLE_EQ(ratio_threshold(DType::kBFloat16, false), 1.004);
  EXPECT_DOUBLE_EQ(ratio_threshold(DType::kFloat32, false), 1.0002);
  EXPECT_DOUBLE_EQ(ratio_threshold(DType::kFloat64, false), 1.0002);
  EXPECT_DOUBLE_EQ(ratio_threshold(DType::kFloat16, true), 1.0);
  EXPECT_DOUBLE_EQ(ratio_floor(DType::kFloat32, false), 1e-4);
  EXPECT_DOUBLE_EQ(ratio_floor(DType::kBFloat16, false), 1e-2);
  EXPECT_DOUBLE_EQ(ratio_floor(DType::kFloat32, true), 1e-3);
}

TEST(FreeBenchCompare, RatioBothWays) {
  std::vector<float> o{1.0f, 2.0f, 4.0f}, p{1.0f, 2.5f, 2.0f};
  const RatioStats s = ratio_stats(view_of(o, DType::kFloat32), view_of(p, DType::kFloat32), 1e-4);
  EXPECT_FLOAT_EQ(s.max_ratio, 2.0f);
  EXPECT_FLOAT_EQ(s.min_ratio, 0.8f);
  const RatioVerdict v = judge_ratio(s, 1e-4, 1.0002);
  EXPECT_FALSE(v.consistent);
  EXPECT_DOUBLE_EQ(v.ratio, 2.0);
}

TEST(FreeBenchCompare, TinyValuesAreClampedAndNanIsOne) {
  std::vector<float> o{1e-9f, 0.0f, static_cast<float>(kNaN), 3.0f},
      p{2e-9f, 1e-7f, static_cast<float>(kNaN), 3.0f};
  const RatioStats s = ratio_stats(view_of(o, DType::kFloat32), view_of(p, DType::kFloat32), 1e-4);
  const RatioVerdict v = judge_ratio(s, 1e-4, 1.0002);
  EXPECT_TRUE(v.consistent);
  EXPECT_DOUBLE_EQ(v.ratio, 1.0);
}

TEST(FreeBenchCompare, SignFlipBeyondTheFloor) {
  std::vector<float> o{1.0f, 0.5f}, p{1.0f, -0.5f};
  const RatioVerdict v =
      judge_ratio(ratio_stats(view_of(o, DType::kFloat32), view_of(p, DType::kFloat32), 1e-4), 1e-4, 1.0002);
  EXPECT_TRUE(v.symbol_flipping);
  EXPECT_FALSE(v.consistent);
  std::vector<float> tiny_o{1e-5f}, tiny_p{-1e-5f};  // product -1e-10 > -(1e-4)^2: not a flip
  const RatioVerdict t = judge_ratio(
      ratio_stats(view_of(tiny_o, DType::kFloat32), view_of(tiny_p, DType::kFloat32), 1e-4), 1e-4, 1.0002);
  EXPECT_FALSE(t.symbol_flipping);
}

TEST(FreeBenchCompare, InfRatioIsTheDtypesLargest) {
  std::vector<float> o{static_cast<float>(kInf)}, p{1.0f};
  const RatioStats s = ratio_stats(view_of(o, DType::kFloat32), view_of(p, DType::kFloat32), 1e-4);
  EXPECT_DOUBLE_EQ(s.max_ratio, (double)std::numeric_limits<float>::max());
}

TEST(FreeBenchCompare, EmptyAndMismatched) {
  std::vector<float> none;
  EXPECT_TRUE(judge_ratio(ratio_stats(view_of(none, DType::kFloat32), view_of(none, DType::kFloat32), 1e-4),
                          1e-4, 1.0002)
                  .consistent);
  std::vector<float> a{1, 2}, b{1};
  EXPECT_THROW(ratio_stats(view_of(a, DType::kFloat32), view_of(b, DType::kFloat32), 1e-4), InvalidInput);
}

TEST(FreeBenchCompare, NumbersAsPython) {
  EXPECT_TRUE(judge_float(1.0, 1.0 + 1e-12).consistent);
  EXPECT_FALSE(judge_float(1.0, 1.001).consistent);
  EXPECT_TRUE(judge_float(0.0, 0.0).consistent);  // both shifted by 1e-8
}

TEST(FreeBenchCompare, BenchmarkErrors) {
  std::vector<float> actual{0.5f, 2.0f, 4.0f}, golden{0.5f, 2.0f, 4.0f};
  BenchmarkErrors e = benchmark_errors(view_of(actual, DType::kFloat32), view_of(golden, DType::kFloat32));
  EXPECT_TRUE(benchmark_consistent(DType::kFloat32, e));
  golden[1] = 2.01f;
  e = benchmark_errors(view_of(actual, DType::kFloat32), view_of(golden, DType::kFloat32));
  EXPECT_NEAR(e.rel_err, 0.01 / 2.01, 1e-6);
  EXPECT_FALSE(benchmark_consistent(DType::kFloat32, e));
  EXPECT_TRUE(benchmark_consistent(DType::kBFloat16, benchmark_errors(view_of(actual, DType::kFloat32),
                                                                      view_of(actual, DType::kFloat32))));
  golden[0] = kInf;  // not comparable: consistent
  EXPECT_TRUE(benchmark_consistent(
      DType::kFloat32, benchmark_errors(view_of(actual, DType::kFloat32), view_of(golden, DType::kFloat32))));
}

TEST(FreeBenchPreheat, CountsThenSamplesAndMovesTheThreshold) {
  Preheat p(/*preheat_step=*/2, /*max_sample=*/5, false);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(p.counting("Torch.add", 0));
  EXPECT_EQ(p.calls_per_step("Torch.add"), 4);
  EXPECT_DOUBLE_EQ(p.threshold("Torch.add", DType::kFloat32), 2.05);
  // Step 1: ceil(4/2) = 2 samples, calls number (2*(i-1)+1) % 4: 1 and 3.
  EXPECT_TRUE(p.take_sample("Torch.add", 1));
  p.record("Torch.add", DType::kFloat32, 1.01, true);
  EXPECT_DOUBLE_EQ(p.threshold("Torch.add", DType::kFloat32), 2.05);  // one sample of two
  EXPECT_FALSE(p.take_sample("Torch.add", 1));
  EXPECT_TRUE(p.take_sample("Torch.add", 1));
  p.record("Torch.add", DType::kFloat32, 1.02, true);
  // All consistent and below the threshold: narrowed to 1 + 1.05/2.
  EXPECT_NEAR(p.threshold("Torch.add", DType::kFloat32), 1.525, 1e-12);
  EXPECT_FALSE(p.take_sample("Torch.add", 1));
  // Past preheat_step: no more samples.
  EXPECT_FALSE(p.take_sample("Torch.add", 2));
}

TEST(FreeBenchPreheat, SeparatedSamplesFixTheThreshold) {
  Preheat p(3, 5, false);
  for (int i = 0; i < 3; ++i) p.counting("Torch.mm", 0);
  ASSERT_TRUE(p.take_sample("Torch.mm", 1));
  p.record("Torch.mm", DType::kFloat16, 1.5, false);
  // Only inconsistent samples: the threshold drops to the smallest inconsistent ratio.
  EXPECT_DOUBLE_EQ(p.threshold("Torch.mm", DType::kFloat16), 1.5);
  p.record("Torch.mm", DType::kFloat16, 1.01, false);  // preheat over for this dtype
  EXPECT_DOUBLE_EQ(p.threshold("Torch.mm", DType::kFloat16), 1.5);
}

TEST(FreeBenchResults, ApiOfCall) {
  EXPECT_EQ(api_of_call("Torch.matmul.0.forward"), "Torch.matmul");
  EXPECT_EQ(api_of_call("Tensor.add_.12.backward"), "Tensor.add_");
  EXPECT_EQ(api_of_call("Mint.add.3"), "Mint.add");
}

TEST(FreeBenchResults, CsvAppendsAndSummaryRanks) {
  const std::string dir = test::temp_dir("freebench");
  FreeBenchmarkConfig cfg;
  cfg.pert_mode = "bit_noise";
  FuzzChecker c(cfg, dir, Framework::kPyTorch);
  std::vector<float> o{1.0f, 2.0f}, mild{1.0f, 2.002f}, far{1.0f, 4.0f}, flip{1.0f, -2.0f};
  const auto src = [] { return SourceLine{"/u/train.py", "main", "y = f(x)", 12}; };
  EXPECT_TRUE(c.check_tensor({"Torch.a.0.forward", 0, 0, -1}, view_of(o, DType::kFloat32),
                             view_of(o, DType::kFloat32), src)
                  .consistent);
  EXPECT_FALSE(c.check_tensor({"Torch.b.0.forward", 0, 0, -1}, view_of(o, DType::kFloat32),
                              view_of(mild, DType::kFloat32), src)
                   .consistent);
  EXPECT_FALSE(c.check_tensor({"Torch.c.0.forward", 1, 0, 1}, view_of(o, DType::kFloat32, {1, 2}),
                              view_of(far, DType::kFloat32), src)
                   .consistent);
  EXPECT_FALSE(c.check_tensor({"Torch.d.0.forward", 1, 0, -1}, view_of(o, DType::kFloat32),
                              view_of(flip, DType::kFloat32), nullptr)
                   .consistent);
  EXPECT_EQ(test::read_file(dir + "/free_benchmark.csv"),
            "rank,pert_mode,stage,step,api_name,max_rel,dtype,shape,output_index\r\n"
            "0,bit_noise,forward,0,Torch.b.0.forward,0.0010000325170169688,torch.float32,torch.Size([2]),\r\n"
            "0,bit_noise,forward,1,Torch.c.0.forward,1.0,torch.float32,\"torch.Size([1, 2])\",1\r\n"
            "0,bit_noise,forward,1,Torch.d.0.forward,symbol_flipping,torch.float32,torch.Size([2]),\r\n");
  const std::string json = c.results().summary_json("bit_noise", "check");
  const size_t d = json.find("\"Torch.d\""), cc = json.find("\"Torch.c\""), b = json.find("\"Torch.b\"");
  ASSERT_NE(d, std::string::npos);
  EXPECT_LT(d, cc);  // a sign flip ranks first, then by how far past the limit
  EXPECT_LT(cc, b);
  EXPECT_NE(json.find("\"line\": 12"), std::string::npos);
  EXPECT_NE(c.results().end_line().find("worst: Torch.d"), std::string::npos);
}

// MindSpore 1.2.1's measure: inf and NaN extremes read as 1, a negative min(o/p) is a sign flip
// (ratio 8.0), otherwise the larger maximum either way, judged against the dtype's threshold.
TEST(FreeBenchCompare, MindSporeNorms) {
  RatioVerdict v = judge_ms_norms({1.0001, 1.0, 0.9999}, 1.0002);
  EXPECT_TRUE(v.consistent);
  EXPECT_DOUBLE_EQ(v.ratio, 1.0001);
  v = judge_ms_norms({1.0, 2.0, 0.5}, 1.0002);
  EXPECT_FALSE(v.consistent);
  EXPECT_DOUBLE_EQ(v.ratio, 2.0);
  v = judge_ms_norms({std::numeric_limits<double>::infinity(), std::nan(""), 1.0}, 1.0002);
  EXPECT_TRUE(v.consistent);
  EXPECT_DOUBLE_EQ(v.ratio, 1.0);
  v = judge_ms_norms({1.0, 1.0, -0.5}, 1.004);
  EXPECT_TRUE(v.symbol_flipping);
  EXPECT_FALSE(v.consistent);
  EXPECT_DOUBLE_EQ(v.ratio, 8.0);
  EXPECT_FALSE(judge_ms_norms({1.0, 1.0, -std::numeric_limits<double>::infinity()}, 1.0002).symbol_flipping);
  EXPECT_FALSE(judge_ms_norms({1.00001, 1.0, 1.0}, 1.0).consistent);  // no_change: any change
}

// Over host tensors: quotients where the divisor is above the floor, NaN skipped, float16
// quotients rounded to float16, the original rounded to the perturbed dtype first.
TEST(FreeBenchCompare, MindSporeNormsOfHostTensors) {
  const float nan = std::nanf("");
  std::vector<float> o{1.0f, 2.0f, -3.0f, nan, 1e-6f}, p{1.0f, 4.0f, 3.0f, 1.0f, 2.0f};
  MsNorms n = ms_norms(view_of(o, DType::kFloat32), view_of(p, DType::kFloat32), 1e-4);
  EXPECT_DOUBLE_EQ(n.max_forward, 1.0);  // 1, 0.5, -1, NaN (skipped), 5e-7
  EXPECT_DOUBLE_EQ(n.min_forward, -1.0);
  EXPECT_DOUBLE_EQ(n.max_backward, 2.0);  // 1, 2, -1, NaN, 1 (|o| below the floor)
  EXPECT_TRUE(judge_ms_norms(n, 1.0002).symbol_flipping);
  std::vector<uint16_t> o16{float_to_half(1.0f)}, p16{float_to_half(3.0f)};
  n = ms_norms(view_of(o16, DType::kFloat16), view_of(p16, DType::kFloat16), 1e-3);
  EXPECT_DOUBLE_EQ(n.max_forward, (double)round_to_half(1.0f / 3.0f));
  EXPECT_NE(n.max_forward, (double)(1.0f / 3.0f));
  EXPECT_DOUBLE_EQ(n.max_backward, 3.0);
  EXPECT_DOUBLE_EQ(n.min_forward, (double)round_to_half(1.0f / 3.0f));
  std::vector<float> one{1.0f}, three{3.0f};  // both below the floor: the ratio is 1 either way
  EXPECT_DOUBLE_EQ(ms_norms(view_of(one, DType::kFloat32), view_of(three, DType::kFloat32), 5.0).max_backward,
                   1.0);
}

TEST(FreeBenchResults, MindSporeNormsRow) {
  const std::string dir = test::temp_dir("freebench_ms_norms");
  FreeBenchmarkConfig cfg;
  cfg.pert_mode = "bit_noise";
  FuzzChecker c(cfg, dir, Framework::kMindSpore);
  // max_rel: the float32 read of the ratio, less one, as Python prints it.
  const double ratio = (double)2.0f;
  c.check_ms_norms({"Mint.sub.0", 1, -1, -1}, DType::kFloat32, {5, 4}, {ratio, 1.0, 0.5}, nullptr);
  c.check_ms_norms({"Mint.split.0", 1, -1, 1}, DType::kFloat16, {3}, {1.0, 1.0, -1.0}, nullptr);
  c.check_ms_norms({"Mint.add.0", 1, -1, -1}, DType::kFloat32, {2}, {1.0, 1.0, 1.0}, nullptr);
  const std::string csv = test::read_file(dir + "/free_benchmark.csv");
  EXPECT_NE(csv.find("\r\n,bit_noise,forward,1,Mint.sub.0,1.0,Float32,\"(5, 4)\",\r\n"), std::string::npos);
  EXPECT_NE(csv.find("\r\n,bit_noise,forward,1,Mint.split.0,7.0,Float16,\"(3,)\",1\r\n"), std::string::npos);
  EXPECT_EQ(csv.find("Mint.add.0"), std::string::npos);
  EXPECT_EQ(c.results().rows()[1].measure, "symbol_flipping");  // ranked first in the summary
}

TEST(FreeBenchResults, MindSporeFormat) {
  const std::string dir = test::temp_dir("freebench_ms");
  FreeBenchmarkConfig cfg;
  FuzzChecker c(cfg, dir, Framework::kMindSpore);
  std::vector<float> o{1.0f, 2.0f}, p{1.0f, 4.0f};
  c.check_tensor({"Mint.add.0", 0, -1, -1}, view_of(o, DType::kFloat32, {2}), view_of(p, DType::kFloat32),
                 nullptr);
  const std::string csv = test::read_file(dir + "/free_benchmark.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\r')),
            "rank,pert_type,stage,step,api_name,max_rel,dtype,shape,output_index");
  EXPECT_NE(csv.find("\r\n,improve_precision,forward,0,Mint.add.0,1.0,Float32,\"(2,)\",\r\n"),
            std::string::npos);
}

}  // namespace
}  // namespace freebench
}  // namespace msprobe

namespace msprobe {
namespace freebench {
namespace {

// The contiguous fp32 kernel (AVX2 where the CPU has it) and the strided reader agree, NaN and
// inf included, over lengths that leave a scalar tail.
TEST(FreeBenchCompare, VectorKernelMatchesStridedPath) {
  for (int64_t n : {1, 7, 8, 9, 31, 1000}) {
    std::vector<float> o(2 * n), p(2 * n);
    for (int64_t i = 0; i < 2 * n; ++i) {
      o[i] = (float)std::sin(0.37 * (double)i) * 3;
      p[i] = o[i] * (1.0f + 1e-3f * (float)(i % 5));
    }
    if (n > 4) {
      o[2] = test::kNaN;
      p[6] = test::kInf;
      o[8 % (2 * n)] = 1e-7f;
    }
    std::vector<float> oc(n), pc(n);
    for (int64_t i = 0; i < n; ++i) {
      oc[i] = o[2 * i];
      pc[i] = p[2 * i];
    }
    const RatioStats flat = ratio_stats(view_of(oc, DType::kFloat32), view_of(pc, DType::kFloat32), 1e-4);
    const RatioStats strided =
        ratio_stats(view_of(o, DType::kFloat32, {n}, {2}), view_of(p, DType::kFloat32, {n}, {2}), 1e-4);
    EXPECT_EQ(flat.min_ratio, strided.min_ratio) << n;
    EXPECT_EQ(flat.max_ratio, strided.max_ratio) << n;
    EXPECT_TRUE(flat.min_product == strided.min_product ||
                (std::isnan(flat.min_product) && std::isnan(strided.min_product)))
        << n;
  }
}

// Views of the same layout (a transpose, a slice) read by memory order give the reductions of
// the logical order; different layouts go through the element reader.
TEST(FreeBenchCompare, SameLayoutViews) {
  std::vector<float> o(24), p(24);
  for (int i = 0; i < 24; ++i) {
    o[i] = (float)(i + 1) * (i % 3 ? 1.f : -1.f);
    p[i] = o[i] * (i == 17 ? 1.5f : 1.0f);
  }
  auto check = [&](std::vector<int64_t> shape, std::vector<int64_t> st, std::vector<int64_t> pst) {
    const RatioStats a =
        ratio_stats(view_of(o, DType::kFloat32, shape, st), view_of(p, DType::kFloat32, shape, pst), 1e-4);
    // The logical elements copied out, compared contiguously.
    std::vector<float> oc, pc;
    TensorView ov = view_of(o, DType::kFloat32, shape, st), pv = view_of(p, DType::kFloat32, shape, pst);
    oc.resize(ov.numel());
    pc.resize(pv.numel());
    ov.copy_contiguous(oc.data());
    pv.copy_contiguous(pc.data());
    const RatioStats b = ratio_stats(view_of(oc, DType::kFloat32), view_of(pc, DType::kFloat32), 1e-4);
    EXPECT_EQ(a.min_ratio, b.min_ratio);
    EXPECT_EQ(a.max_ratio, b.max_ratio);
    EXPECT_EQ(a.min_product, b.min_product);
  };
  check({4, 6}, {1, 4}, {1, 4});  // transpose of a 6x4 block: dense
  check({2, 3}, {6, 1}, {6, 1});  // a slice with gaps: run by run
  check({3, 2}, {1, 6}, {1, 6});  // strided, runs of one
  check({4, 6}, {1, 4}, {6, 1});  // different layouts
  EXPECT_EQ(ratio_stats(view_of(o, DType::kFloat32, {2, 3}, {6, 1}),
                        view_of(p, DType::kFloat32, {2, 3}, {6, 1}), 1e-4)
                .max_ratio,
            1.0);  // element 17 is outside that slice
}

}  // namespace
}  // namespace freebench
}  // namespace msprobe
