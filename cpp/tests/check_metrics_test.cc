// Accuracy metrics, standards and the per-output verdict: hand-computed values (many from the
// original's own unit tests, accuracy-checker spec §9) and edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/check/metrics.h"
#include "msprobe/check/number_format.h"
#include "msprobe/check/output_compare.h"
#include "msprobe/check/standards.h"
#include "tensor_views.h"

using namespace msprobe;
using namespace msprobe::check;

namespace {

using msprobe::test::kInf;
using msprobe::test::kNaN;
using msprobe::test::view_of;

std::vector<uint16_t> half(const std::vector<float>& v) {
  std::vector<uint16_t> h;
  for (float x : v) h.push_back(float_to_half(x));
  return h;
}
std::vector<uint16_t> bf16(const std::vector<float>& v) {
  std::vector<uint16_t> h;
  for (float x : v) h.push_back(float_to_bf16(x));
  return h;
}

}  // namespace

TEST(CheckStandards, ApiLists) {
  EXPECT_EQ(standard_for_api("conv2d"), Standard::kThousandth);
  EXPECT_EQ(standard_for_api("conv1d"), Standard::kThousandth);
  EXPECT_EQ(standard_for_api("__matmul__"), Standard::kUlp);
  EXPECT_EQ(standard_for_api("linear"), Standard::kUlp);
  EXPECT_EQ(standard_for_api("mul"), Standard::kAbsoluteThreshold);
  EXPECT_EQ(standard_for_api("__rmul__"), Standard::kAbsoluteThreshold);
  EXPECT_EQ(standard_for_api("abs"), Standard::kBinaryConsistency);
  EXPECT_EQ(standard_for_api("topk"), Standard::kBinaryConsistency);
  EXPECT_EQ(standard_for_api("test_api"), Standard::kAccumulativeError);
  EXPECT_EQ(standard_for_api("mean"), Standard::kBenchmark);
  EXPECT_EQ(standard_for_api("linalg.norm"), Standard::kBenchmark);
  // api_precision_compare: non-float dtypes are binary whatever the name
  EXPECT_EQ(standard_for_precision_row("matmul", "torch.int64"), Standard::kBinaryConsistency);
  EXPECT_EQ(standard_for_precision_row("mean", "torch.bool"), Standard::kBinaryConsistency);
  EXPECT_EQ(standard_for_precision_row("mean", "<class 'int'>"), Standard::kBinaryConsistency);
  EXPECT_EQ(standard_for_precision_row("matmul", "torch.bfloat16"), Standard::kUlp);
  EXPECT_EQ(standard_for_precision_row("mean", "torch.float64"), Standard::kBenchmark);
  EXPECT_STREQ(standard_label(Standard::kThousandth), "双千指标法");
  EXPECT_STREQ(status_text(Status::kWarning), "Warning");
  EXPECT_STREQ(status_text(Status::kBlank), " ");
}

TEST(CheckStandards, Thresholds) {
  // spec §9 test_standard_config
  EXPECT_EQ(thresholds_for(DType::kFloat16).small_value, std::ldexp(1.0, -10));
  EXPECT_EQ(thresholds_for(DType::kBFloat16).small_value, std::ldexp(1.0, -10));
  EXPECT_EQ(thresholds_for(DType::kFloat32).small_value, std::ldexp(1.0, -20));
  EXPECT_EQ(thresholds_for(DType::kInt32).small_value, std::ldexp(1.0, -20));
  EXPECT_EQ(thresholds_for(DType::kFloat16).small_value_atol_abs, std::ldexp(1.0, -16));
  EXPECT_EQ(thresholds_for(DType::kBFloat16).small_value_atol_abs, 1e-16);
  EXPECT_EQ(thresholds_for(DType::kFloat32).small_value_atol_abs, std::ldexp(1.0, -30));
  EXPECT_EQ(thresholds_for(DType::kFloat16).small_value_atol_bench, 1e-16);
  EXPECT_EQ(thresholds_for(DType::kFloat16).rtol, std::ldexp(1.0, -10));
  EXPECT_EQ(thresholds_for(DType::kBFloat16).rtol, std::ldexp(1.0, -8));
  EXPECT_EQ(thresholds_for(DType::kFloat32).rtol, std::ldexp(1.0, -20));
  EXPECT_EQ(thresholds_for_name("torch.float16").minimum_err, std::ldexp(1.0, -11));
  EXPECT_EQ(thresholds_for_name("torch.bfloat16").minimum_err, std::ldexp(1.0, -8));
  EXPECT_EQ(thresholds_for_name("torch.float32").minimum_err, std::ldexp(1.0, -14));
  EXPECT_EQ(thresholds_for_name("torch.float64").minimum_err, std::ldexp(1.0, -14));
  EXPECT_EQ(thresholds_for_name("torch.float16").accumulative_eb_threshold, std::ldexp(1.0, -20));
  EXPECT_EQ(ulp_params_for(DType::kFloat32)->error_threshold, 32.0);
  EXPECT_EQ(ulp_params_for(DType::kBFloat16)->min_exponent, -126);
  EXPECT_EQ(ulp_params_for(DType::kFloat64), nullptr);
}

TEST(CheckMetrics, BenchmarkHandComputed) {
  // spec §9 test_algorithm: b = fp16 [1, 1, 9], d = [5, 2, 1]
  const auto b = half({1, 1, 9}), d = half({5, 2, 1});
  FloatMetrics m =
      compute_float_metrics(view_of(b, DType::kFloat16), view_of(d, DType::kFloat16), Standard::kBenchmark);
  EXPECT_EQ(m.max_abs_err.value, 8.0);
  EXPECT_EQ(m.max_abs_err.kind, NumKind::kFloat16);
  EXPECT_NEAR(m.rmse.value, 5.196, 1e-3);
  EXPECT_NEAR(m.eb.value, 1.0 / 3, 1e-15);
  EXPECT_NEAR(m.max_rel_err.value, 3.996, 1e-3);
  EXPECT_NEAR(m.mean_rel_err.value, 1.961, 1e-3);
  EXPECT_EQ(m.small_value_err_ratio.kind, NumKind::kInt);  // no small values: literal 0
  EXPECT_EQ(m.small_value_err_ratio.value, 0);
  EXPECT_FALSE(m.error_rate.set);
  EXPECT_FALSE(m.max_ulp_err.set);
}

TEST(CheckMetrics, SmallValueErrorRatio) {
  // fp32 device, fp64 bench: small values are |b| <= 2^-20, atol 2^-30
  const std::vector<double> b = {1e-7, 2e-7, 0.5, 1.0};
  const std::vector<float> d = {(float)1e-7, (float)(2e-7 + 1e-8), 0.5f, 1.0f};
  FloatMetrics m =
      compute_float_metrics(view_of(b, DType::kFloat64), view_of(d, DType::kFloat32), Standard::kBenchmark);
  EXPECT_DOUBLE_EQ(m.small_value_err_ratio.value, 0.5);
  EXPECT_EQ(m.max_rel_err.value, 0.0);  // the two normal values are exact
  EXPECT_EQ(m.max_rel_err.kind, NumKind::kFloat64);
}

TEST(CheckMetrics, AbsoluteThresholdInfNan) {
  // spec §2.4: [1,inf,nan,inf,2] vs [1,inf,nan,3,inf] -> 0.25 (only b=2, d=inf fails)
  const std::vector<double> b = {1, kInf, kNaN, kInf, 2};
  const std::vector<float> d = {1, (float)kInf, (float)kNaN, 3, (float)kInf};
  FloatMetrics m = compute_float_metrics(view_of(b, DType::kFloat64), view_of(d, DType::kFloat32),
                                         Standard::kAbsoluteThreshold);
  EXPECT_DOUBLE_EQ(m.inf_nan_error_ratio.value, 0.25);
  EXPECT_EQ(m.rel_err_ratio.value, 0.0);
  EXPECT_EQ(m.abs_err_ratio.kind, NumKind::kInt);  // no small values
  // cosine of data with inf/nan is NaN and fails
  EXPECT_TRUE(std::isnan(m.cosine.value));
  EXPECT_FALSE(m.cosine.pass);
  EXPECT_EQ(m.cosine.message, "Dump data has NaN when comparing with Cosine Similarity.");
  EXPECT_TRUE(std::isnan(m.max_abs_err.value));
}

TEST(CheckMetrics, AbsoluteThresholdRelAndAbs) {
  // bf16 device: rtol 2^-8; small |b| <= 2^-10 with atol 1e-16
  const std::vector<float> b = {1.0f, 2.0f, 1e-4f, 0.0f};
  const auto d = bf16({1.0f + 1.0f / 64, 2.0f, 1e-4f, 0.0f});
  FloatMetrics m = compute_float_metrics(view_of(b, DType::kFloat32), view_of(d, DType::kBFloat16),
                                         Standard::kAbsoluteThreshold);
  EXPECT_DOUBLE_EQ(m.rel_err_ratio.value, 0.5);  // 1/64 > 2^-8 fails, exact 2 passes
  // bf16(1e-4) differs from the fp32 1e-4: a small-value error at atol 1e-16
  EXPECT_DOUBLE_EQ(m.abs_err_ratio.value, 0.5);
  EXPECT_EQ(m.inf_nan_error_ratio.kind, NumKind::kInt);
}

TEST(CheckMetrics, UlpGoldens) {
  {  // fp32: b = 2.0, d = fp32(2.0001) -> 419 ULP
    const std::vector<double> b = {2.0};
    const std::vector<float> d = {2.0001f};
    FloatMetrics m =
        compute_float_metrics(view_of(b, DType::kFloat64), view_of(d, DType::kFloat32), Standard::kUlp);
    EXPECT_DOUBLE_EQ(m.max_ulp_err.value, 419.0);
    EXPECT_EQ(m.max_ulp_err.kind, NumKind::kFloat64);
    EXPECT_DOUBLE_EQ(m.ulp_err_proportion.value, 1.0);
  }
  {  // fp16: b = 2, d = fp16(2.001) = 2.001953125 -> 1 ULP
    const std::vector<float> b = {2.0f};
    const auto d = half({2.001f});
    FloatMetrics m =
        compute_float_metrics(view_of(b, DType::kFloat32), view_of(d, DType::kFloat16), Standard::kUlp);
    EXPECT_DOUBLE_EQ(m.max_ulp_err.value, 1.0);
    EXPECT_EQ(m.max_ulp_err.kind, NumKind::kFloat32);
    EXPECT_DOUBLE_EQ(m.ulp_err_proportion.value, 0.0);  // not > 1
  }
  {  // bf16: b = 1, d = 1 + 2^-7 -> 1 ULP
    const std::vector<float> b = {1.0f};
    const auto d = bf16({1.0f + 1.0f / 128});
    FloatMetrics m =
        compute_float_metrics(view_of(b, DType::kFloat32), view_of(d, DType::kBFloat16), Standard::kUlp);
    EXPECT_DOUBLE_EQ(m.max_ulp_err.value, 1.0);
  }
  {  // fp32 proportion with [T-1, T+1, T-1], T = 32 -> 1/3; a zero bench uses exponent 0
    const std::vector<double> b = {1.0, 1.0, 0.0};
    const std::vector<float> d = {1.0f + 31 * 0x1p-23f, 1.0f + 33 * 0x1p-23f, 31 * 0x1p-23f};
    FloatMetrics m =
        compute_float_metrics(view_of(b, DType::kFloat64), view_of(d, DType::kFloat32), Standard::kUlp);
    EXPECT_DOUBLE_EQ(m.ulp_err_proportion.value, 1.0 / 3);
    EXPECT_DOUBLE_EQ(m.max_ulp_err.value, 33.0);
    EXPECT_NEAR(m.mean_ulp_err.value, 95.0 / 3, 1e-12);
  }
  {  // fp16 proportion with T = 1: [0, 2, 0] ULP -> 1/3
    const std::vector<float> b = {1.0f, 1.0f, 4.0f};
    const auto d = half({1.0f, 1.0f + 2 * 0x1p-10f, 4.0f});
    FloatMetrics m =
        compute_float_metrics(view_of(b, DType::kFloat32), view_of(d, DType::kFloat16), Standard::kUlp);
    EXPECT_DOUBLE_EQ(m.ulp_err_proportion.value, 1.0 / 3);
  }
}

TEST(CheckMetrics, UlpEdgeCases) {
  {  // bf16 with a bench below 2^-120: 2^(7 - eb) overflows float32 -> inf ULP (as numpy)
    const std::vector<float> b = {0x1p-125f, 1.0f};
    const auto d = bf16({0x1p-125f * 1.5f, 1.0f});
    FloatMetrics m =
        compute_float_metrics(view_of(b, DType::kFloat32), view_of(d, DType::kBFloat16), Standard::kUlp);
    EXPECT_TRUE(std::isinf(m.max_ulp_err.value));
    EXPECT_DOUBLE_EQ(m.ulp_err_proportion.value, 0.5);
  }
  {  // subnormal fp16 values: exponent clamped at -14
    const std::vector<float> b = {0x1p-20f};
    const auto d = half({0x1p-20f + 0x1p-24f});
    FloatMetrics m =
        compute_float_metrics(view_of(b, DType::kFloat32), view_of(d, DType::kFloat16), Standard::kUlp);
    EXPECT_DOUBLE_EQ(m.max_ulp_err.value, 1.0);  // 2^-24 * 2^(10+14)
  }
  {  // NaN bench -> NaN max and mean; inf bench -> NaN
    const std::vector<double> b = {kNaN, 1.0};
    const std::vector<float> d = {1.0f, 1.0f};
    FloatMetrics m =
        compute_float_metrics(view_of(b, DType::kFloat64), view_of(d, DType::kFloat32), Standard::kUlp);
    EXPECT_TRUE(std::isnan(m.max_ulp_err.value));
    EXPECT_TRUE(std::isnan(m.mean_ulp_err.value));
    EXPECT_DOUBLE_EQ(m.ulp_err_proportion.value, 0.0);
  }
}

TEST(CheckMetrics, RelativeIndicators) {
  // spec §9 test_thousandth_standard: R(0.001) of [0.0005, 0.002, 0.003, 0.0008] = 0.5
  const std::vector<double> b = {1, 1, 1, 1};
  const std::vector<float> d = {1.0005f, 1.002f, 1.003f, 1.0008f};
  FloatMetrics m =
      compute_float_metrics(view_of(b, DType::kFloat64), view_of(d, DType::kFloat32), Standard::kThousandth);
  EXPECT_DOUBLE_EQ(m.thousandth.value, 0.5);
  EXPECT_DOUBLE_EQ(m.rel_err_thousandth.value, 0.5);
  EXPECT_DOUBLE_EQ(m.hundredth.value, 1.0);
  EXPECT_DOUBLE_EQ(m.ten_thousandth.value, 0.0);
  // NaN relative errors count as "not below"
  const std::vector<double> b2 = {kNaN, 1};
  const std::vector<float> d2 = {1, 1};
  FloatMetrics m2 = compute_float_metrics(view_of(b2, DType::kFloat64), view_of(d2, DType::kFloat32),
                                          Standard::kThousandth);
  EXPECT_DOUBLE_EQ(m2.thousandth.value, 0.5);
}

TEST(CheckMetrics, BinaryErrorRate) {
  const std::vector<uint8_t> b = {1, 0, 1, 0}, d = {1, 0, 0, 0};
  EXPECT_DOUBLE_EQ(binary_error_rate(view_of(b, DType::kBool), view_of(d, DType::kBool)), 0.25);
  const std::vector<int64_t> i64 = {1, 2, 3};
  const std::vector<int32_t> i32 = {1, 2, 4};
  EXPECT_DOUBLE_EQ(binary_error_rate(view_of(i64, DType::kInt64), view_of(i32, DType::kInt32)), 1.0 / 3);
  const std::vector<float> f = {1.0f, (float)kNaN};
  EXPECT_DOUBLE_EQ(binary_error_rate(view_of(f, DType::kFloat32), view_of(f, DType::kFloat32)), 0.5);
}

TEST(CheckMetrics, Cosine) {
  const std::vector<float> v = {1, 2, 3};
  CosineResult c = cosine_similarity(view_of(v, DType::kFloat32), view_of(v, DType::kFloat32));
  EXPECT_TRUE(c.has_value);
  EXPECT_DOUBLE_EQ(c.value, 1.0);
  EXPECT_TRUE(c.pass);
  const std::vector<float> z = {0, 0, 0};
  c = cosine_similarity(view_of(z, DType::kFloat32), view_of(z, DType::kFloat32));
  EXPECT_FALSE(c.has_value);
  EXPECT_TRUE(c.pass);
  EXPECT_EQ(c.message, "All the data in device and bench outputs are zero.");
  c = cosine_similarity(view_of(v, DType::kFloat32), view_of(z, DType::kFloat32));
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.message, "All the data is zero in device dump data.");
  c = cosine_similarity(view_of(z, DType::kFloat32), view_of(v, DType::kFloat32));
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.message, "All the data is zero in bench dump data.");
  const std::vector<float> one = {5};
  c = cosine_similarity(view_of(one, DType::kFloat32), view_of(one, DType::kFloat32));
  EXPECT_FALSE(c.has_value);
  EXPECT_TRUE(c.pass);
  EXPECT_EQ(c.message,
            "All the data in device dump data is scalar. Please refer to other compare algorithms.");
  const std::vector<float> opp = {-1, -2, -3};
  c = cosine_similarity(view_of(v, DType::kFloat32), view_of(opp, DType::kFloat32));
  EXPECT_DOUBLE_EQ(c.value, -1.0);
  EXPECT_FALSE(c.pass);
  // float64 data whose squares overflow: the scaled second pass gives the right answer
  const std::vector<double> big = {1e200, 2e200, 3e200};
  c = cosine_similarity(view_of(big, DType::kFloat64), view_of(big, DType::kFloat64));
  EXPECT_NEAR(c.value, 1.0, 1e-15);
  // max |x| <= 2.22e-16 counts as all-zero data (1.2.1 compares with float eps)
  const std::vector<double> tiny = {1e-300, 2e-300, 3e-300};
  c = cosine_similarity(view_of(tiny, DType::kFloat64), view_of(tiny, DType::kFloat64));
  EXPECT_FALSE(c.has_value);
  EXPECT_EQ(c.message, "All the data in device and bench outputs are zero.");
}

TEST(CheckMetrics, StridedViewsMatchContiguous) {
  std::vector<float> base(6 * 7);
  for (size_t i = 0; i < base.size(); ++i) base[i] = std::sin((double)i) * 3;
  std::vector<float> dev(base.size());
  for (size_t i = 0; i < base.size(); ++i) dev[i] = base[i] * 1.001f + 1e-4f;
  // transposed views vs their contiguous copies
  TensorView bt = view_of(base, DType::kFloat32, {7, 6}, {1, 7});
  TensorView dt = view_of(dev, DType::kFloat32, {7, 6}, {1, 7});
  std::vector<float> bc(base.size()), dc(dev.size());
  bt.copy_contiguous(bc.data());
  dt.copy_contiguous(dc.data());
  FloatMetrics a = compute_float_metrics(bt, dt, Standard::kBenchmark);
  FloatMetrics b = compute_float_metrics(view_of(bc, DType::kFloat32, {7, 6}),
                                         view_of(dc, DType::kFloat32, {7, 6}), Standard::kBenchmark);
  EXPECT_EQ(a.rmse.value, b.rmse.value);
  EXPECT_EQ(a.max_rel_err.value, b.max_rel_err.value);
  EXPECT_EQ(a.mean_rel_err.value, b.mean_rel_err.value);
  EXPECT_EQ(a.cosine.value, b.cosine.value);
}

TEST(CheckMetrics, RejectsBadInput) {
  const std::vector<float> a = {1, 2}, b = {1, 2, 3};
  EXPECT_THROW(
      compute_float_metrics(view_of(a, DType::kFloat32), view_of(b, DType::kFloat32), Standard::kBenchmark),
      InvalidInput);
  const std::vector<int64_t> i = {1, 2};
  EXPECT_THROW(
      compute_float_metrics(view_of(i, DType::kInt64), view_of(a, DType::kFloat32), Standard::kBenchmark),
      InvalidInput);
}

TEST(CheckOutput, OldChainVerdicts) {
  // spec §9 test_compare: fp16 [1,2,3] vs [1.1,2.1,3.1] -> error; [1.0001..] -> pass;
  // [1.01..] -> Warning; fp32 vs [1.01..] -> error
  const std::vector<float> b = {1, 2, 3};
  auto run16 = [&](std::vector<float> d) {
    const auto h = half(d);
    return compare_output_tensor("gelu", view_of(b, DType::kFloat32), view_of(h, DType::kFloat16));
  };
  EXPECT_EQ(run16({1.1f, 2.1f, 3.1f}).status, Status::kError);
  OutputCompareResult p = run16({1.0001f, 2.0001f, 3.0001f});
  EXPECT_EQ(p.status, Status::kPass);
  EXPECT_EQ(p.message,
            "\nMax abs error is less than 0.001, consider as pass, skip other check and set to "
            "SPACE.\n");
  OutputCompareResult w = run16({1.01f, 2.01f, 3.01f});
  EXPECT_EQ(w.status, Status::kWarning);
  EXPECT_DOUBLE_EQ(w.hundredth.value, 1.0);
  EXPECT_DOUBLE_EQ(w.thousandth.value, 0.0);
  EXPECT_FALSE(w.ten_thousandth.set);
  const std::vector<double> b64 = {1, 2, 3};
  const std::vector<float> d32 = {1.01f, 2.01f, 3.01f};
  OutputCompareResult e =
      compare_output_tensor("gelu", view_of(b64, DType::kFloat64), view_of(d32, DType::kFloat32));
  EXPECT_EQ(e.status, Status::kError);
  EXPECT_TRUE(e.ten_thousandth.set);
  EXPECT_FALSE(e.hundredth.set);
  // identical fp32 data under a benchmark name: pass, with the benchmark columns filled
  const std::vector<double> same64 = {0.5, -1.5, 2.5, 3.5};
  const std::vector<float> same32 = {0.5f, -1.5f, 2.5f, 3.5f};
  OutputCompareResult s =
      compare_output_tensor("softmax", view_of(same64, DType::kFloat64), view_of(same32, DType::kFloat32));
  EXPECT_EQ(s.status, Status::kPass);
  const auto cells = s.detail_cells();
  ASSERT_EQ(cells.size(), 22u);
  EXPECT_EQ(cells[0], "torch.float64");
  EXPECT_EQ(cells[1], "torch.float32");
  EXPECT_EQ(cells[2], "(4,)");
  EXPECT_EQ(cells[3], "1.00000000000000");
  EXPECT_EQ(cells[4], "0.00000000000000");
  EXPECT_EQ(cells[5], " ");
  EXPECT_EQ(cells[10], "0.00000000000000");  // rmse
  EXPECT_EQ(cells[11], "0");                 // no small values
  EXPECT_EQ(cells[20], "pass");
}

TEST(CheckOutput, IntsShapesAndDtypes) {
  const std::vector<int64_t> a = {1, 2, 3}, b = {1, 2, 4};
  OutputCompareResult r =
      compare_output_tensor("argmax", view_of(a, DType::kInt64), view_of(b, DType::kInt64));
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_DOUBLE_EQ(r.error_rate.value, 1.0 / 3);
  EXPECT_EQ(r.message, "Compare algorithm is not supported for int64 data. Only judged by Error Rate.\n");
  const std::vector<float> f6(6, 1.0f);
  r = compare_output_tensor("add", view_of(f6, DType::kFloat32, {2, 3}),
                            view_of(f6, DType::kFloat32, {3, 2}));
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_EQ(r.message, "The shape of benchtorch.Size([2, 3]) and nputorch.Size([3, 2]) not equal.");
  const std::vector<int8_t> i8 = {1, 2};
  r = compare_output_tensor("add", view_of(i8, DType::kInt8), view_of(i8, DType::kInt8));
  EXPECT_EQ(r.message, "Bench out dtype is int8 but npu output dtype is int8, cannot compare.");
  const std::vector<float> f2 = {1, 2};
  const std::vector<int64_t> i2 = {1, 2};
  r = compare_output_tensor("add", view_of(f2, DType::kFloat32), view_of(i2, DType::kInt64));
  EXPECT_EQ(r.message, "Bench out dtype is float32 but npu output dtype is int64, cannot compare.");
  const std::vector<float> none;
  r = compare_output_tensor("add", view_of(none, DType::kFloat32, {0}), view_of(none, DType::kFloat32, {0}));
  EXPECT_EQ(r.message, "There is not bench calculation result.");
  // float64 device: no new standard, message first
  const std::vector<double> d64 = {1, 2, 3};
  r = compare_output_tensor("add", view_of(d64, DType::kFloat64), view_of(d64, DType::kFloat64));
  EXPECT_EQ(r.status, Status::kPass);
  EXPECT_EQ(r.message.rfind("The data type torch.float64 is not supported for new precision standard.\n", 0),
            0u);
  EXPECT_EQ(python_tuple_text({}), "()");
  EXPECT_EQ(python_tuple_text({5}), "(5,)");
}

TEST(CheckOutput, MergeAnyErrorWins) {
  // 1.2.1 gives Warning for [error, Warning]; the fix keeps the error.
  EXPECT_EQ(merge_output_statuses({Status::kError, Status::kWarning}), Status::kError);
  EXPECT_EQ(merge_output_statuses({Status::kWarning, Status::kError}), Status::kError);
  EXPECT_EQ(merge_output_statuses({Status::kPass, Status::kWarning, Status::kSkip}), Status::kWarning);
  EXPECT_EQ(merge_output_statuses({Status::kSkip}), Status::kPass);
  EXPECT_EQ(merge_output_statuses({}), Status::kPass);
}

TEST(CheckOutput, Dropout) {
  std::vector<float> a(120, 1.0f), b(120, 1.0f);
  for (int i = 0; i < 60; ++i) a[i] = b[i] = 0;
  EXPECT_EQ(compare_dropout(view_of(a, DType::kFloat32), view_of(b, DType::kFloat32)).status, Status::kPass);
  std::vector<float> ones(120, 1.0f);
  DropoutResult r = compare_dropout(view_of(a, DType::kFloat32), view_of(ones, DType::kFloat32));
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_EQ(r.value, 0);
  std::vector<float> c(100, 1.0f), d(100, 1.0f);
  for (int i = 0; i < 67; ++i) c[i] = 0;
  for (int i = 0; i < 34; ++i) d[i] = 0;
  EXPECT_EQ(compare_dropout(view_of(c, DType::kFloat32), view_of(d, DType::kFloat32)).status, Status::kError);
}

TEST(CheckFormat, Numbers) {
  EXPECT_EQ(format_fixed(0.123456), "0.12345600000000");
  EXPECT_EQ(format_fixed(0.25), "0.25000000000000");
  EXPECT_EQ(format_fixed(kNaN), "nan");
  EXPECT_EQ(format_fixed(-kNaN), "nan");
  EXPECT_EQ(format_fixed(-kInf), "-inf");
  EXPECT_EQ(format_fixed(1e20), "100000000000000000000.00000000000000");
  EXPECT_EQ(format_fixed(-0.0), "-0.00000000000000");
  EXPECT_EQ(format_float32(0.0074305534), "0.0074305534");
  EXPECT_EQ(format_float32(0.0001), "1e-04");
  EXPECT_EQ(format_float32(1e-5), "1e-05");
  EXPECT_EQ(format_float32(123456789.0), "123456790.0");
  EXPECT_EQ(format_float32(1e16), "1e+16");
  EXPECT_EQ(format_float32(3.4e38), "3.4e+38");
  EXPECT_EQ(format_float32(100.0), "100.0");
  EXPECT_EQ(format_float32(0.1), "0.1");
  EXPECT_EQ(format_float32(kInf), "inf");
  EXPECT_EQ(format_float16(0.00012345678), "0.0001235");
  EXPECT_EQ(format_float16(2.5), "2.5");
  Num n;
  EXPECT_EQ(format_metric(n), " ");
  n.set = true;
  n.kind = NumKind::kInt;
  n.value = 1;
  EXPECT_EQ(format_metric(n), "1");
}

TEST(CheckFormat, PythonFloatParsing) {
  double v;
  EXPECT_TRUE(parse_python_float("1_000", v));
  EXPECT_EQ(v, 1000);
  EXPECT_TRUE(parse_python_float(" 5. ", v));
  EXPECT_EQ(v, 5);
  EXPECT_TRUE(parse_python_float(".5", v));
  EXPECT_EQ(v, 0.5);
  EXPECT_TRUE(parse_python_float("+1e-3", v));
  EXPECT_EQ(v, 1e-3);
  EXPECT_TRUE(parse_python_float("-Infinity", v));
  EXPECT_EQ(v, -kInf);
  EXPECT_TRUE(parse_python_float("NaN", v));
  EXPECT_TRUE(std::isnan(v));
  EXPECT_TRUE(parse_python_float("1e400", v));
  EXPECT_EQ(v, kInf);
  EXPECT_TRUE(parse_python_float("1e-400", v));
  EXPECT_EQ(v, 0.0);
  EXPECT_TRUE(parse_python_float("0.00000000000000", v));
  EXPECT_EQ(v, 0.0);
  for (const char* bad :
       {"", " ", "1__0", "_1", "1_", ".", "1e", "0x10", "abc", "1.5.2", "inf5", "nan(1)", "1 2"}) {
    EXPECT_FALSE(parse_python_float(bad, v)) << bad;
  }
}
