// Tests of compute_stats (msprobe 1.2.1 semantics with our documented choices) and CRC-32.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../src/stats/crc32_internal.h"
#include "../src/stats/stats_internal.h"
#include "msprobe/stats/tensor_stats.h"
#include "tensor_views.h"

using namespace msprobe;

namespace {

using msprobe::test::kInf;
using msprobe::test::kNaN;
using msprobe::test::view_of;

TensorView scalar_view(const void* p, DType d) {
  TensorView t;
  t.data = p;
  t.dtype = d;
  return t;
}

void expect_float(const StatValue& v, double want, const char* what) {
  ASSERT_EQ(v.kind, StatValue::Kind::kFloat) << what;
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(v.f)) << what << " = " << v.f;
  } else {
    EXPECT_EQ(v.f, want) << what;
  }
}

void expect_null(const StatValue& v, const char* what) { EXPECT_EQ(v.kind, StatValue::Kind::kNull) << what; }

double f32(double x) { return (double)(float)x; }

// Reference statistics over values already widened to double.
struct Ref {
  double mx = -kInf, mn = kInf, s = 0, q = 0;
  bool nan = false;
  int64_t n = 0;
  void add(double x) {
    if (std::isnan(x)) nan = true;
    if (x > mx) mx = x;
    if (x < mn) mn = x;
    s += x;
    q += x * x;
    ++n;
  }
};

// Checks Max/Min exactly and Mean/Norm within a relative 1e-12 before float rounding.
void expect_matches(const TensorStats& st, const Ref& r, bool round_to_f32, bool has_norm = true) {
  if (r.nan) {
    expect_float(st.max, kNaN, "max");
    expect_float(st.min, kNaN, "min");
    expect_float(st.mean, kNaN, "mean");
    return;
  }
  expect_float(st.max, r.mx, "max");
  expect_float(st.min, r.mn, "min");
  const double mean = r.s / (double)r.n, norm = std::sqrt(r.q);
  ASSERT_EQ(st.mean.kind, StatValue::Kind::kFloat);
  EXPECT_NEAR(st.mean.f, round_to_f32 ? f32(mean) : mean,
              std::fabs(mean) * (round_to_f32 ? 1.2e-7 : 1e-12) + 1e-300);
  if (round_to_f32) {
    EXPECT_EQ(st.mean.f, f32(st.mean.f));
  }
  if (has_norm) {
    ASSERT_EQ(st.norm.kind, StatValue::Kind::kFloat);
    EXPECT_NEAR(st.norm.f, norm, norm * (round_to_f32 ? 1.2e-7 : 1e-12));
    if (round_to_f32) {
      EXPECT_EQ(st.norm.f, f32(st.norm.f));
    }
  } else {
    expect_null(st.norm, "norm");
  }
}

uint32_t crc_of(const void* p, size_t n) { return crc32_update(0, p, n); }

}  // namespace

// ---- CRC-32 -------------------------------------------------------------------------------------

TEST(Crc32, KnownZlibValues) {
  EXPECT_EQ(crc_of("", 0), 0u);
  EXPECT_EQ(crc_of("123456789", 9), 0xCBF43926u);
  const std::string fox = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(crc_of(fox.data(), fox.size()), 0x414FA339u);
  std::vector<uint8_t> zeros(4096, 0);
  EXPECT_EQ(crc_of(zeros.data(), 32), 0x190A55ADu);
  EXPECT_EQ(crc_of(zeros.data(), 4096), 0xC71C0011u);
  std::vector<uint8_t> ramp(256);
  for (int i = 0; i < 256; ++i) ramp[i] = (uint8_t)i;
  EXPECT_EQ(crc_of(ramp.data(), 256), 0x29058C73u);
}

TEST(Crc32, AllImplementationsAgree) {
  std::mt19937 rng(123);
  std::vector<uint8_t> buf(20000);
  for (auto& b : buf) b = (uint8_t)rng();
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 600; ++n) lengths.push_back(n);
  for (size_t n : {1023u, 1024u, 1025u, 4095u, 8192u, 12345u, 19990u}) lengths.push_back(n);
  for (size_t len : lengths) {
    for (size_t off : {0u, 1u, 3u, 8u}) {
      const uint32_t ref = crc32_update_with(0, 0, buf.data() + off, len);
      for (int impl = 1; impl <= 2; ++impl)
        ASSERT_EQ(crc32_update_with(impl, 0, buf.data() + off, len), ref)
            << "impl " << impl << " len " << len << " off " << off;
      ASSERT_EQ(crc32_update(0, buf.data() + off, len), ref);
      // Continuing from a previous value is the same as one call over the concatenation.
      const size_t cut = len / 3;
      const uint32_t part = crc32_update(0, buf.data() + off, cut);
      ASSERT_EQ(crc32_update(part, buf.data() + off + cut, len - cut), ref) << len;
    }
  }
  std::printf("crc32 best implementation here: %d\n", crc32_best_impl());
}

// ---- Special cases --------------------------------------------------------------------------

TEST(Stats, EmptyTensorIsAllNull) {
  std::vector<float> none;
  TensorView t = view_of(none, DType::kFloat32, {0, 3});
  TensorStats st = compute_stats(t, true);
  expect_null(st.max, "max");
  expect_null(st.min, "min");
  expect_null(st.mean, "mean");
  expect_null(st.norm, "norm");
  ASSERT_TRUE(st.crc32.has_value());
  EXPECT_EQ(*st.crc32, 0u);
  EXPECT_FALSE(st.max_except_inf_nan.has_value());
  EXPECT_FALSE(compute_stats(t, false).crc32.has_value());
  t.data = nullptr;  // an empty tensor may have no memory at all
  EXPECT_EQ(compute_stats(t, true).max.kind, StatValue::Kind::kNull);
}

TEST(Stats, Float32Basic) {
  std::vector<float> v = {1, 2, 3, 4};
  TensorStats st = compute_stats(view_of(v, DType::kFloat32), true);
  expect_float(st.max, 4, "max");
  expect_float(st.min, 1, "min");
  expect_float(st.mean, 2.5, "mean");
  expect_float(st.norm, f32(std::sqrt(30.0)), "norm");
  EXPECT_FALSE(st.max_except_inf_nan.has_value());
  EXPECT_FALSE(st.min_except_inf_nan.has_value());
  EXPECT_EQ(*st.crc32, crc_of(v.data(), 16));
}

TEST(Stats, BoolIsAnyAll) {
  std::vector<uint8_t> v = {0, 1, 1, 0};
  TensorStats st = compute_stats(view_of(v, DType::kBool), true);
  ASSERT_EQ(st.max.kind, StatValue::Kind::kBool);
  ASSERT_EQ(st.min.kind, StatValue::Kind::kBool);
  EXPECT_TRUE(st.max.b);
  EXPECT_FALSE(st.min.b);
  expect_null(st.mean, "mean");
  expect_null(st.norm, "norm");
  EXPECT_EQ(*st.crc32, crc_of(v.data(), 4));
  std::vector<uint8_t> ones(1000, 1), zeros(1000, 0);
  st = compute_stats(view_of(ones, DType::kBool), false);
  EXPECT_TRUE(st.max.b);
  EXPECT_TRUE(st.min.b);
  st = compute_stats(view_of(zeros, DType::kBool), false);
  EXPECT_FALSE(st.max.b);
  EXPECT_FALSE(st.min.b);
  // 0-dim bool: the bool rule, not the scalar rule.
  const uint8_t one = 1;
  st = compute_stats(scalar_view(&one, DType::kBool), true);
  EXPECT_EQ(st.max.kind, StatValue::Kind::kBool);
  EXPECT_TRUE(st.max.b && st.min.b);
  expect_null(st.mean, "mean");
  expect_null(st.norm, "norm");
  EXPECT_EQ(*st.crc32, crc_of(&one, 1));
}

TEST(Stats, ZeroDimKeepsTheValue) {
  const int64_t i = -3;
  TensorStats st = compute_stats(scalar_view(&i, DType::kInt64), true);
  for (const StatValue* v : {&st.max, &st.min, &st.mean, &st.norm}) {
    ASSERT_EQ(v->kind, StatValue::Kind::kInt);
    EXPECT_EQ(v->i, -3);
  }
  EXPECT_EQ(*st.crc32, crc_of(&i, 8));
  const uint8_t u = 200;
  st = compute_stats(scalar_view(&u, DType::kUInt8), false);
  EXPECT_EQ(st.max.kind, StatValue::Kind::kInt);
  EXPECT_EQ(st.max.i, 200);
  const int32_t i32 = 7;
  st = compute_stats(scalar_view(&i32, DType::kInt32), false);
  EXPECT_EQ(st.norm.i, 7);

  const float f = -1.5f;
  st = compute_stats(scalar_view(&f, DType::kFloat32), false);
  for (const StatValue* v : {&st.max, &st.min, &st.mean, &st.norm}) expect_float(*v, -1.5, "f");
  const double d = 0.1;
  st = compute_stats(scalar_view(&d, DType::kFloat64), false);
  expect_float(st.mean, 0.1, "mean");  // full double precision
  const uint16_t h = float_to_half(0.333f);
  st = compute_stats(scalar_view(&h, DType::kFloat16), true);
  expect_float(st.max, half_to_float(h), "fp16 max");
  EXPECT_EQ(*st.crc32, crc_of(&h, 2));
  const uint16_t b = float_to_bf16(0.333f);
  st = compute_stats(scalar_view(&b, DType::kBFloat16), true);
  expect_float(st.norm, bf16_to_float(b), "bf16 norm");
  const float bf = bf16_to_float(b);
  EXPECT_EQ(*st.crc32, crc_of(&bf, 4));  // bf16 is checksummed as float32 bytes

  const float inf = std::numeric_limits<float>::infinity();
  st = compute_stats(scalar_view(&inf, DType::kFloat32), false);
  expect_float(st.max, kInf, "max");
  ASSERT_TRUE(st.max_except_inf_nan && st.min_except_inf_nan);
  EXPECT_EQ(*st.max_except_inf_nan, kInf);  // no finite value: over the non-NaN ones
  const float nan = std::numeric_limits<float>::quiet_NaN();
  st = compute_stats(scalar_view(&nan, DType::kFloat32), false);
  expect_float(st.norm, kNaN, "norm");
  ASSERT_TRUE(st.min_except_inf_nan.has_value());
  EXPECT_TRUE(std::isnan(*st.min_except_inf_nan));

  const std::complex<float> z(3, -4);
  st = compute_stats(scalar_view(&z, DType::kComplex64), true);
  expect_float(st.max, 5, "max");
  expect_float(st.mean, 5, "mean");
  expect_null(st.norm, "norm");
  EXPECT_EQ(st.complex_abs_norm.value_or(-1), 5.0);
  EXPECT_EQ(*st.crc32, crc_of(&z, 8));
}

TEST(Stats, NanMakesEverythingNan) {
  std::vector<float> v = {1, std::numeric_limits<float>::infinity(), -2,
                          std::numeric_limits<float>::quiet_NaN()};
  TensorStats st = compute_stats(view_of(v, DType::kFloat32), false);
  expect_float(st.max, kNaN, "max");
  expect_float(st.min, kNaN, "min");
  expect_float(st.mean, kNaN, "mean");
  expect_float(st.norm, kNaN, "norm");
  ASSERT_TRUE(st.max_except_inf_nan && st.min_except_inf_nan);
  EXPECT_EQ(*st.max_except_inf_nan, 1.0);
  EXPECT_EQ(*st.min_except_inf_nan, -2.0);

  std::vector<float> v2 = {std::nanf(""), 2, 3};  // NaN without infinities
  st = compute_stats(view_of(v2, DType::kFloat32), false);
  expect_float(st.max, kNaN, "max");
  EXPECT_EQ(*st.max_except_inf_nan, 3.0);
  EXPECT_EQ(*st.min_except_inf_nan, 2.0);

  std::vector<float> all_nan(37, std::nanf(""));
  st = compute_stats(view_of(all_nan, DType::kFloat32), false);
  ASSERT_TRUE(st.max_except_inf_nan && st.min_except_inf_nan);
  EXPECT_TRUE(std::isnan(*st.max_except_inf_nan));
  EXPECT_TRUE(std::isnan(*st.min_except_inf_nan));

  std::vector<float> nan_inf = {std::nanf(""), -std::numeric_limits<float>::infinity()};
  st = compute_stats(view_of(nan_inf, DType::kFloat32), false);
  EXPECT_EQ(*st.max_except_inf_nan, -kInf);  // no finite value: over the non-NaN values
  EXPECT_EQ(*st.min_except_inf_nan, -kInf);
}

TEST(Stats, InfinitiesPropagateLikeTorch) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {1, inf};
  TensorStats st = compute_stats(view_of(v, DType::kFloat32), false);
  expect_float(st.max, kInf, "max");
  expect_float(st.min, 1, "min");
  expect_float(st.mean, kInf, "mean");
  expect_float(st.norm, kInf, "norm");
  ASSERT_TRUE(st.max_except_inf_nan.has_value());
  EXPECT_EQ(*st.max_except_inf_nan, 1.0);
  EXPECT_FALSE(st.min_except_inf_nan.has_value());

  std::vector<float> v2 = {-inf, 1, 5};
  st = compute_stats(view_of(v2, DType::kFloat32), false);
  expect_float(st.min, -kInf, "min");
  expect_float(st.max, 5, "max");
  expect_float(st.mean, -kInf, "mean");
  expect_float(st.norm, kInf, "norm");
  EXPECT_FALSE(st.max_except_inf_nan.has_value());
  EXPECT_EQ(*st.min_except_inf_nan, 1.0);

  std::vector<float> v3 = {inf, -inf};
  st = compute_stats(view_of(v3, DType::kFloat32), false);
  expect_float(st.max, kInf, "max");
  expect_float(st.min, -kInf, "min");
  expect_float(st.mean, kNaN, "mean");  // inf + -inf
  expect_float(st.norm, kInf, "norm");
  EXPECT_EQ(*st.max_except_inf_nan, kInf);
  EXPECT_EQ(*st.min_except_inf_nan, -kInf);

  // Infinities somewhere in a long tensor (exercises the lanes and the second pass).
  std::mt19937 rng(5);
  std::normal_distribution<float> dist;
  for (int n : {17, 1000, 5003}) {
    std::vector<float> w(n);
    for (auto& x : w) x = dist(rng);
    float fmax = -1e30f, fmin = 1e30f;
    for (float x : w) {
      fmax = std::max(fmax, x);
      fmin = std::min(fmin, x);
    }
    w[n / 2] = inf;
    w[n - 1] = -inf;
    for (float x : {w[n / 2 - 1], w[n - 2]}) (void)x;
    // Recompute the finite extremes without the two overwritten slots.
    fmax = -1e30f;
    fmin = 1e30f;
    for (int i = 0; i < n; ++i) {
      if (std::isinf(w[i])) continue;
      fmax = std::max(fmax, w[i]);
      fmin = std::min(fmin, w[i]);
    }
    st = compute_stats(view_of(w, DType::kFloat32), true);
    expect_float(st.max, kInf, "max");
    expect_float(st.min, -kInf, "min");
    expect_float(st.mean, kNaN, "mean");
    EXPECT_EQ(*st.max_except_inf_nan, fmax) << n;
    EXPECT_EQ(*st.min_except_inf_nan, fmin) << n;
    EXPECT_EQ(*st.crc32, crc_of(w.data(), w.size() * 4));
  }
}

TEST(Stats, ComplexUsesMagnitudes) {
  std::vector<std::complex<float>> v = {{3, 4}, {0, -1}, {-6, 8}, {0, 0}};
  TensorStats st = compute_stats(view_of(v, DType::kComplex64), true);
  expect_float(st.max, 10, "max");
  expect_float(st.min, 0, "min");
  expect_float(st.mean, 4, "mean");
  expect_null(st.norm, "norm");  // PyTorch's rule; MindSpore records complex_abs_norm
  EXPECT_FLOAT_EQ(st.complex_abs_norm.value_or(-1), std::sqrt(126.0f));
  EXPECT_EQ(*st.crc32, crc_of(v.data(), v.size() * 8));
  std::vector<std::complex<double>> w = {{1e200, 1e200}, {3, 4}};
  st = compute_stats(view_of(w, DType::kComplex128), false);
  EXPECT_NEAR(st.max.f, std::sqrt(2.0) * 1e200, 1e186);
  expect_float(st.min, 5, "min");
  expect_null(st.norm, "norm");
  // An infinite part makes |z| infinite, even next to a NaN part.
  std::vector<std::complex<float>> u = {{std::numeric_limits<float>::infinity(), std::nanf("")}, {1, 0}};
  st = compute_stats(view_of(u, DType::kComplex64), false);
  expect_float(st.max, kInf, "max");
  expect_float(st.min, 1, "min");
  EXPECT_EQ(*st.max_except_inf_nan, 1.0);
}

TEST(Stats, IntegersGiveFloats) {
  std::vector<int64_t> v = {(1ll << 40) + 1, -5, 0, 7};
  TensorStats st = compute_stats(view_of(v, DType::kInt64), true);
  expect_float(st.max, (double)((1ll << 40) + 1), "max");  // exact, not float32-rounded
  expect_float(st.min, -5, "min");
  Ref r;
  for (auto x : v) r.add((double)x);
  expect_matches(st, r, true);
  EXPECT_EQ(*st.crc32, crc_of(v.data(), v.size() * 8));

  std::vector<uint8_t> u8 = {0, 255, 3};
  st = compute_stats(view_of(u8, DType::kUInt8), false);
  expect_float(st.max, 255, "max");
  expect_float(st.mean, f32(258.0 / 3), "mean");
  std::vector<int8_t> i8 = {-128, 127, 1};
  st = compute_stats(view_of(i8, DType::kInt8), false);
  expect_float(st.min, -128, "min");
  std::vector<int16_t> i16 = {-32768, 32767};
  st = compute_stats(view_of(i16, DType::kInt16), false);
  expect_float(st.norm, f32(std::sqrt(32768.0 * 32768 + 32767.0 * 32767)), "norm");
  std::vector<int32_t> i32 = {2147483647, -2147483647 - 1, 5};
  st = compute_stats(view_of(i32, DType::kInt32), false);
  expect_float(st.max, 2147483647.0, "max");
  expect_float(st.min, -2147483648.0, "min");
}

TEST(Stats, RandomAgainstReferenceAllDtypes) {
  std::mt19937 rng(99);
  std::normal_distribution<double> dist(0.5, 3.0);
  for (int n : {1, 2, 15, 16, 17, 31, 33, 100, 2047, 2048, 2049, 4099, 10000}) {
    std::vector<float> f(n);
    std::vector<double> d(n);
    std::vector<uint16_t> h(n), b(n);
    std::vector<int32_t> i32(n);
    std::vector<int8_t> i8(n);
    Ref rf, rd, rh, rb, ri32, ri8;
    for (int i = 0; i < n; ++i) {
      d[i] = dist(rng);
      f[i] = (float)d[i];
      h[i] = float_to_half(f[i]);
      b[i] = float_to_bf16(f[i]);
      i32[i] = (int32_t)(d[i] * 1e6);
      i8[i] = (int8_t)std::max(-128.0, std::min(127.0, d[i] * 20));
      rf.add(f[i]);
      rd.add(d[i]);
      rh.add(half_to_float(h[i]));
      rb.add(bf16_to_float(b[i]));
      ri32.add(i32[i]);
      ri8.add(i8[i]);
    }
    SCOPED_TRACE(n);
    TensorStats st = compute_stats(view_of(f, DType::kFloat32), true);
    expect_matches(st, rf, true);
    EXPECT_EQ(*st.crc32, crc_of(f.data(), n * 4));
    st = compute_stats(view_of(d, DType::kFloat64), true);
    expect_matches(st, rd, false);
    EXPECT_EQ(*st.crc32, crc_of(d.data(), n * 8));
    st = compute_stats(view_of(h, DType::kFloat16), true);
    expect_matches(st, rh, true);
    EXPECT_EQ(*st.crc32, crc_of(h.data(), n * 2));
    st = compute_stats(view_of(b, DType::kBFloat16), true);
    expect_matches(st, rb, true);
    std::vector<float> bf(n);
    for (int i = 0; i < n; ++i) bf[i] = bf16_to_float(b[i]);
    EXPECT_EQ(*st.crc32, crc_of(bf.data(), n * 4));
    expect_matches(compute_stats(view_of(i32, DType::kInt32), false), ri32, true);
    expect_matches(compute_stats(view_of(i8, DType::kInt8), false), ri8, true);
  }
}

TEST(Stats, Float16SpecialPatterns) {
  // Every finite fp16 pattern at once: subnormals, zeros, extremes.
  std::vector<uint16_t> h;
  Ref r;
  for (uint32_t x = 0; x < 65536; ++x) {
    if ((x & 0x7c00u) == 0x7c00u) continue;
    h.push_back((uint16_t)x);
    r.add(half_to_float((uint16_t)x));
  }
  expect_matches(compute_stats(view_of(h, DType::kFloat16), false), r, true);
  h.push_back(0x7c00);  // +inf
  TensorStats st = compute_stats(view_of(h, DType::kFloat16), false);
  expect_float(st.max, kInf, "max");
  EXPECT_EQ(*st.max_except_inf_nan, 65504.0);
  h.push_back(0x7e00);  // NaN
  st = compute_stats(view_of(h, DType::kFloat16), false);
  expect_float(st.mean, kNaN, "mean");
  EXPECT_EQ(*st.min_except_inf_nan, -65504.0);
}

TEST(Stats, Float64KeepsDoublePrecisionAndAvoidsOverflow) {
  std::vector<double> v = {0.1, 0.2};
  TensorStats st = compute_stats(view_of(v, DType::kFloat64), false);
  expect_float(st.mean, (0.1 + 0.2) / 2, "mean");
  expect_float(st.norm, std::sqrt(0.1 * 0.1 + 0.2 * 0.2), "norm");
  std::vector<double> big = {1e300, 1e300, -1e300, 1e300};
  st = compute_stats(view_of(big, DType::kFloat64), false);
  EXPECT_NEAR(st.norm.f, 2e300, 1e286);
  EXPECT_NEAR(st.mean.f, 0.5e300, 1e286);
  std::vector<double> tiny = {3e-200, 4e-200};
  st = compute_stats(view_of(tiny, DType::kFloat64), false);
  EXPECT_NEAR(st.norm.f, 5e-200, 1e-214);
  std::vector<double> huge = {1.7e308, 1.7e308};
  st = compute_stats(view_of(huge, DType::kFloat64), false);
  EXPECT_NEAR(st.mean.f, 1.7e308, 1e294);
}

// ---- Strided views ---------------------------------------------------------------------------

namespace {

// Compares the statistics (and CRC) of a strided view with those of its contiguous copy.
void expect_same_as_copy(const TensorView& t) {
  std::vector<unsigned char> buf(t.nbytes());
  t.copy_contiguous(buf.data());
  TensorView c = t;
  c.data = buf.data();
  c.strides.clear();
  for (bool crc : {false, true}) {
    const TensorStats a = compute_stats(t, crc), b = compute_stats(c, crc);
    ASSERT_EQ(a.max.kind, b.max.kind);
    if (a.max.kind == StatValue::Kind::kBool) {
      EXPECT_EQ(a.max.b, b.max.b);
      EXPECT_EQ(a.min.b, b.min.b);
    } else {
      EXPECT_EQ(a.max.f, b.max.f);
      EXPECT_EQ(a.min.f, b.min.f);
      // Summation order may differ: allow one float ulp.
      EXPECT_NEAR(a.mean.f, b.mean.f, std::fabs(b.mean.f) * 1.2e-7 + 1e-30);
      EXPECT_NEAR(a.norm.f, b.norm.f, std::fabs(b.norm.f) * 1.2e-7);
    }
    EXPECT_EQ(a.crc32.has_value(), crc);
    if (crc) {
      EXPECT_EQ(*a.crc32, *b.crc32);
    }
  }
}

}  // namespace

TEST(Stats, StridedViews) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-10, 10);
  std::vector<float> m(300 * 257);
  for (auto& x : m) x = dist(rng);
  TensorView base = view_of(m, DType::kFloat32, {300, 257});
  struct Case {
    std::vector<int64_t> shape, strides;
    int64_t offset;
  };
  const std::vector<Case> cases = {
      {{257, 300}, {1, 257}, 0},           // transpose
      {{150, 257}, {514, 1}, 0},           // rows [::2]
      {{300, 100}, {257, 2}, 1},           // columns [1::2] (strided inner)
      {{300, 5}, {257, 1}, 3},             // short runs, gathered
      {{300, 129}, {257, 1}, 0},           // long runs
      {{20, 7, 30}, {257 * 15, 1, 7}, 0},  // permuted 3-d
      {{257}, {-1}, 256},                  // negative stride
      {{4, 300, 3}, {0, 257, 1}, 0},       // broadcast (stride 0)
      {{10, 1, 1000}, {7000, 99999, 7}, 0},
      {{2, 3, 4, 5, 6}, {5000, 1000, 100, 10, 1}, 0},
      {{6, 5, 4, 3, 2}, {1, 10, 100, 1000, 5000}, 0},
  };
  for (const Case& c : cases) {
    TensorView v = base;
    v.data = m.data() + c.offset;
    v.shape = c.shape;
    v.strides = c.strides;
    SCOPED_TRACE(::testing::PrintToString(c.shape) + " " + ::testing::PrintToString(c.strides));
    expect_same_as_copy(v);
    for (DType d : {DType::kFloat16, DType::kBFloat16, DType::kInt16, DType::kBool}) {
      TensorView w = v;  // same memory read as 2-byte (or 1-byte) elements
      w.dtype = d;
      if (d == DType::kBool) {
        std::vector<uint8_t> bytes(m.size() * 4);
        for (auto& x : bytes) x = (uint8_t)(rng() & 1);
        w.data = bytes.data() + c.offset;
        expect_same_as_copy(w);
        continue;
      }
      std::vector<uint16_t> halves(m.size() * 2);
      for (size_t i = 0; i < halves.size(); ++i)
        halves[i] = d == DType::kFloat16 ? float_to_half(dist(rng)) : float_to_bf16(dist(rng));
      w.data = halves.data() + c.offset;
      expect_same_as_copy(w);
    }
  }
}

TEST(Stats, StridedComplexAndDouble) {
  std::vector<std::complex<double>> z(64 * 33);
  std::mt19937 rng(8);
  std::normal_distribution<double> dist;
  for (auto& x : z) x = {dist(rng), dist(rng)};
  TensorView t = view_of(z, DType::kComplex128, {33, 64}, {1, 33});
  expect_same_as_copy(t);
  std::vector<double> d(1000);
  for (auto& x : d) x = dist(rng);
  expect_same_as_copy(view_of(d, DType::kFloat64, {10, 50}, {100, 2}));
}

// The portable kernels (SSE2 / NEON width) and the AVX2 ones use the same lane layout, so
// for float inputs they give bit-identical results.
TEST(Stats, PortableKernelsMatchDispatched) {
  std::mt19937 rng(11);
  std::normal_distribution<float> dist(1.0f, 4.0f);
  std::vector<float> f(5000);
  for (auto& x : f) x = dist(rng);
  f[77] = std::numeric_limits<float>::infinity();
  std::vector<uint16_t> h(5000), b(5000);
  std::vector<int16_t> i16(5000);
  std::vector<std::complex<float>> z(700);
  for (size_t i = 0; i < h.size(); ++i) {
    h[i] = float_to_half(dist(rng));
    b[i] = float_to_bf16(dist(rng));
    i16[i] = (int16_t)(dist(rng) * 1000);
  }
  for (auto& x : z) x = {dist(rng), dist(rng)};
  const std::vector<TensorView> views = {
      view_of(f, DType::kFloat32), view_of(f, DType::kFloat32, {50, 100}, {1, 50}),
      view_of(h, DType::kFloat16), view_of(b, DType::kBFloat16),
      view_of(i16, DType::kInt16), view_of(z, DType::kComplex64),
  };
  for (const TensorView& v : views) {
    const TensorStats fast = compute_stats(v, true);
    stats_force_portable_kernels(true);
    const TensorStats slow = compute_stats(v, true);
    stats_force_portable_kernels(false);
    EXPECT_EQ(fast.max.f, slow.max.f);
    EXPECT_EQ(fast.min.f, slow.min.f);
    EXPECT_EQ(fast.mean.f, slow.mean.f);
    EXPECT_EQ(fast.norm.f, slow.norm.f);
    EXPECT_EQ(fast.max_except_inf_nan, slow.max_except_inf_nan);
    EXPECT_EQ(*fast.crc32, *slow.crc32);
  }
  // And the portable path alone still matches the reference.
  stats_force_portable_kernels(true);
  Ref r;
  for (uint16_t x : h) r.add(half_to_float(x));
  expect_matches(compute_stats(view_of(h, DType::kFloat16), false), r, true);
  stats_force_portable_kernels(false);
}
