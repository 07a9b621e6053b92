// Statistics computed on a device: the numbers a framework's reductions give must produce the
// same record as compute_stats() over the same values.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/dump/external_stats.h"
#include "msprobe/format/json_value.h"

namespace msprobe {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

// What torch.aminmax / mean / linalg.vector_norm report for float values: NaN propagates.
ExternalStats framework_numbers(const std::vector<double>& v, bool with_extremes) {
  ExternalStats e;
  double mx = -kInf, mn = kInf, s = 0, q = 0;
  bool nan = false;
  double fmx = -kInf, fmn = kInf, nmx = -kInf, nmn = kInf;
  for (double x : v) {
    if (std::isnan(x)) nan = true;
    mx = std::max(mx, x);
    mn = std::min(mn, x);
    s += x;
    q += x * x;
    if (std::isfinite(x)) fmx = std::max(fmx, x), fmn = std::min(fmn, x);
    if (!std::isnan(x)) nmx = std::max(nmx, x), nmn = std::min(nmn, x);
  }
  e.max = nan ? kNan : mx;
  e.min = nan ? kNan : mn;
  e.mean = s / (double)v.size();
  e.norm = std::sqrt(q);
  if (with_extremes) e.extremes = ExternalExtremes{fmx, fmn, nmx, nmn};
  return e;
}

TensorView view_of(const std::vector<float>& v) {
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kFloat32;
  t.shape = {(int64_t)v.size()};
  return t;
}

void expect_same_value(const StatValue& a, const StatValue& b, const char* what) {
  ASSERT_EQ((int)a.kind, (int)b.kind) << what;
  if (a.kind == StatValue::Kind::kFloat) {
    if (std::isnan(b.f)) {
      EXPECT_TRUE(std::isnan(a.f)) << what;
    } else {
      EXPECT_EQ(a.f, b.f) << what;
    }
  } else {
    EXPECT_EQ(a.b, b.b) << what;
    EXPECT_EQ(a.i, b.i) << what;
  }
}

void expect_same_optional(const std::optional<double>& a, const std::optional<double>& b, const char* what) {
  ASSERT_EQ(a.has_value(), b.has_value()) << what;
  if (!a) return;
  if (std::isnan(*b))
    EXPECT_TRUE(std::isnan(*a)) << what;
  else
    EXPECT_EQ(*a, *b) << what;
}

void expect_same_stats(const TensorStats& ext, const TensorStats& host) {
  expect_same_value(ext.max, host.max, "max");
  expect_same_value(ext.min, host.min, "min");
  expect_same_value(ext.mean, host.mean, "mean");
  expect_same_value(ext.norm, host.norm, "norm");
  expect_same_optional(ext.max_except_inf_nan, host.max_except_inf_nan, "max_except_inf_nan");
  expect_same_optional(ext.min_except_inf_nan, host.min_except_inf_nan, "min_except_inf_nan");
  expect_same_optional(ext.complex_abs_norm, host.complex_abs_norm, "complex_abs_norm");
}

TEST(ExternalStats, NumberTypeHoldsTheValues) {
  EXPECT_EQ(external_stats_number_dtype(DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(external_stats_number_dtype(DType::kBFloat16), DType::kFloat32);
  EXPECT_EQ(external_stats_number_dtype(DType::kInt16), DType::kFloat32);
  EXPECT_EQ(external_stats_number_dtype(DType::kInt64), DType::kFloat64);
  EXPECT_EQ(external_stats_number_dtype(DType::kInt32), DType::kFloat64);
  EXPECT_EQ(external_stats_number_dtype(DType::kFloat64), DType::kFloat64);
  EXPECT_EQ(external_stats_number_dtype(DType::kComplex128), DType::kFloat64);
  EXPECT_EQ(external_stats_number_dtype(DType::kComplex64), DType::kFloat32);
}

TEST(ExternalStats, CountsFollowTheLayout) {
  EXPECT_EQ(external_stats_count(DType::kFloat32, {0, 3}, true), 0u);
  EXPECT_EQ(external_stats_count(DType::kFloat32, {}, true), 1u);
  EXPECT_EQ(external_stats_count(DType::kBool, {4}, true), 2u);
  EXPECT_EQ(external_stats_count(DType::kFloat16, {2, 2}, false), 4u);
  EXPECT_EQ(external_stats_count(DType::kFloat16, {2, 2}, true), 8u);
}

TEST(ExternalStats, FiniteFloatsMatchHostStatistics) {
  const std::vector<float> v = {1.0f, -2.0f, 3.5f, 0.25f};
  const TensorStats host = compute_stats(view_of(v), false);
  const ExternalStats e = framework_numbers({1.0, -2.0, 3.5, 0.25}, false);
  EXPECT_FALSE(external_stats_need_extremes(DType::kFloat32, {4}, e));
  expect_same_stats(tensor_stats_from_external(DType::kFloat32, {4}, e), host);
}

TEST(ExternalStats, NanAndInfNeedTheExtremesAndThenMatch) {
  const std::vector<float> v = {1.0f, (float)kInf, -2.0f, (float)kNan};
  const TensorStats host = compute_stats(view_of(v), false);
  const std::vector<double> d = {1.0, kInf, -2.0, kNan};
  ExternalStats e = framework_numbers(d, false);
  EXPECT_TRUE(external_stats_need_extremes(DType::kFloat32, {4}, e));
  // Without the extremes: the four statistics, no *_except_inf_nan.
  TensorStats partial = tensor_stats_from_external(DType::kFloat32, {4}, e);
  EXPECT_TRUE(std::isnan(partial.max.f) && std::isnan(partial.mean.f));
  EXPECT_FALSE(partial.max_except_inf_nan.has_value());
  e = framework_numbers(d, true);
  EXPECT_FALSE(external_stats_need_extremes(DType::kFloat32, {4}, e));
  TensorStats full = tensor_stats_from_external(DType::kFloat32, {4}, e);
  expect_same_stats(full, host);
  EXPECT_EQ(*full.max_except_inf_nan, 1.0);
  EXPECT_EQ(*full.min_except_inf_nan, -2.0);
}

TEST(ExternalStats, MaxThatSkipsNanIsCorrectedByTheNorm) {
  // MindSpore's CPU max/min skip NaN; the NaN norm says there was one.
  ExternalStats e;
  e.max = 3.0;
  e.min = 1.0;
  e.mean = kNan;
  e.norm = kNan;
  const TensorStats s = tensor_stats_from_external(DType::kFloat32, {3}, e);
  EXPECT_TRUE(std::isnan(s.max.f) && std::isnan(s.min.f) && std::isnan(s.norm.f));
}

TEST(ExternalStats, OnlyInfinitiesAndOnlyNans) {
  for (const std::vector<double>& d : {std::vector<double>{kInf, -kInf, kInf},
                                       std::vector<double>{kNan, kNan}, std::vector<double>{kInf, kNan}}) {
    std::vector<float> f(d.begin(), d.end());
    const TensorStats host = compute_stats(view_of(f), false);
    const TensorStats ext =
        tensor_stats_from_external(DType::kFloat32, {(int64_t)d.size()}, framework_numbers(d, true));
    expect_same_stats(ext, host);
  }
}

TEST(ExternalStats, ScalarsKeepTheirJsonType) {
  const int64_t i = 7;
  TensorView t;
  t.data = &i;
  t.dtype = DType::kInt64;
  ExternalStats e;
  e.max = 7.0;
  expect_same_stats(tensor_stats_from_external(DType::kInt64, {}, e), compute_stats(t, false));
  EXPECT_EQ(tensor_stats_from_external(DType::kInt64, {}, e).max.kind, StatValue::Kind::kInt);

  const uint8_t b = 1;
  t.data = &b;
  t.dtype = DType::kBool;
  e.max = 1.0;
  expect_same_stats(tensor_stats_from_external(DType::kBool, {}, e), compute_stats(t, false));

  const float inf = (float)kInf;
  t.data = &inf;
  t.dtype = DType::kFloat32;
  e.max = kInf;
  expect_same_stats(tensor_stats_from_external(DType::kFloat32, {}, e), compute_stats(t, false));
}

TEST(ExternalStats, BoolIntegerComplexAndEmpty) {
  const std::vector<uint8_t> b = {1, 0, 1};
  TensorView t;
  t.data = b.data();
  t.dtype = DType::kBool;
  t.shape = {3};
  ExternalStats e;
  e.max = 1.0;
  e.min = 0.0;
  expect_same_stats(tensor_stats_from_external(DType::kBool, {3}, e), compute_stats(t, false));

  const std::vector<int32_t> ints = {5, -3, 2};
  t.data = ints.data();
  t.dtype = DType::kInt32;
  e = framework_numbers({5, -3, 2}, false);
  e.mean = (double)(float)e.mean;  // a float32 mean, as the device computes it
  e.norm = (double)(float)e.norm;
  expect_same_stats(tensor_stats_from_external(DType::kInt32, {3}, e), compute_stats(t, false));

  const std::vector<std::complex<float>> c = {{3, 4}, {0, -1}};
  t.data = c.data();
  t.dtype = DType::kComplex64;
  t.shape = {2};
  e = framework_numbers({5.0, 1.0}, false);
  expect_same_stats(tensor_stats_from_external(DType::kComplex64, {2}, e), compute_stats(t, false));

  const TensorStats empty = tensor_stats_from_external(DType::kFloat32, {0, 4}, ExternalStats{});
  EXPECT_EQ(empty.max.kind, StatValue::Kind::kNull);
  EXPECT_EQ(empty.norm.kind, StatValue::Kind::kNull);
}

TEST(ExternalStats, DecodesFloat32AndFloat64Layouts) {
  const float f[4] = {2.0f, -1.0f, 0.5f, 3.0f};
  ExternalStats e = decode_external_stats(DType::kBFloat16, {2, 2}, f, sizeof(f));
  EXPECT_EQ(e.max, 2.0);
  EXPECT_EQ(e.min, -1.0);
  EXPECT_EQ(e.mean, 0.5);
  EXPECT_EQ(e.norm, 3.0);
  EXPECT_FALSE(e.extremes.has_value());

  const double d[8] = {kInf, -1.0, kInf, kInf, 4.0, -1.0, kInf, -1.0};
  e = decode_external_stats(DType::kFloat64, {8}, d, sizeof(d));
  ASSERT_TRUE(e.extremes.has_value());
  EXPECT_EQ(e.extremes->finite_max, 4.0);
  const TensorStats s = tensor_stats_from_external(DType::kFloat64, {8}, e);
  EXPECT_EQ(*s.max_except_inf_nan, 4.0);
  EXPECT_FALSE(s.min_except_inf_nan.has_value());  // Min is finite

  const double big = 9007199254740993.0;  // int64 values beyond float32 survive as float64
  e = decode_external_stats(DType::kInt64, {}, &big, sizeof(big));
  EXPECT_EQ(tensor_stats_from_external(DType::kInt64, {}, e).max.i, (int64_t)big);
}

TEST(ExternalStats, ExtremeFloat64MagnitudesAskForRescaledMoments) {
  std::vector<double> v = {3e-200, -4e-200};
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kFloat64;
  t.shape = {2};
  const TensorStats host = compute_stats(t, false);
  ExternalStats e = framework_numbers({3e-200, -4e-200}, false);
  EXPECT_EQ(e.norm, 0.0);  // the squares underflow
  ASSERT_TRUE(external_stats_need_rescale(DType::kFloat64, {2}, e));
  const double s = external_stats_scale(e);
  EXPECT_EQ(s, 4e-200);
  const ExternalStats scaled = framework_numbers({3e-200 / s, -4e-200 / s}, false);
  set_rescaled_moments(e, scaled.mean * s, scaled.norm * s);
  EXPECT_FALSE(external_stats_need_rescale(DType::kFloat64, {2}, e) && e.norm == 0.0);
  const TensorStats ext = tensor_stats_from_external(DType::kFloat64, {2}, e);
  EXPECT_DOUBLE_EQ(ext.norm.f, host.norm.f);
  EXPECT_DOUBLE_EQ(ext.mean.f, host.mean.f);
  // Ordinary magnitudes and float32 tensors never ask.
  EXPECT_FALSE(external_stats_need_rescale(DType::kFloat64, {2}, framework_numbers({1, 2}, false)));
  EXPECT_FALSE(external_stats_need_rescale(DType::kFloat32, {2}, framework_numbers({1e-40, 0}, false)));
}

TEST(ExternalStats, WrongSizeIsAClearError) {
  const float f[3] = {1, 2, 3};
  try {
    decode_external_stats(DType::kFloat32, {5}, f, sizeof(f));
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("torch.float32 tensor: got 12 bytes, expected 4 or 8"),
              std::string::npos)
        << e.what();
  }
}

TEST(ExternalStats, RecordIsTheHostRecord) {
  const std::vector<float> v = {1.0f, (float)kInf, -2.0f};
  TensorRecordOptions opt;
  std::string host, ext;
  {
    JsonWriter w(host);
    write_tensor_record(w, view_of(v), true, "x.pt", opt);
  }
  {
    JsonWriter w(ext);
    write_external_tensor_record(w, DType::kFloat32, {3}, framework_numbers({1.0, kInf, -2.0}, true), true,
                                 "x.pt", opt);
  }
  // Mean is inf, Norm inf: the float32 numbers agree exactly, so the text does too.
  EXPECT_EQ(ext, host);
  const JsonValue j = parse_json(ext, "record");
  EXPECT_EQ(j.find("Max_except_inf_nan")->as_double(), 1.0);
}

}  // namespace
}  // namespace msprobe
