// Tests of the fp16 / bf16 array widenings (msprobe/tensor/half.h, half_kernels.h): every copy
// (portable vectors, F16C where the CPU has it, the dispatching entry) gives the scalar result
// for every one of the 65536 bit patterns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "msprobe/base/cpu_features.h"
#include "msprobe/tensor/half.h"
#include "msprobe/tensor/half_kernels.h"

using namespace msprobe;

namespace {

std::vector<uint16_t> all_patterns() {
  std::vector<uint16_t> v(65536 + 5);  // + an odd tail for the scalar remainder
  for (size_t i = 0; i < v.size(); ++i) v[i] = (uint16_t)i;
  return v;
}

// Same bits, or both NaN (a signalling NaN may come back quieted).
void expect_same(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << what << " pattern " << i;
      continue;
    }
    uint32_t a, b;
    std::memcpy(&a, &got[i], 4);
    std::memcpy(&b, &want[i], 4);
    ASSERT_EQ(a, b) << what << " pattern " << i;
  }
}

}  // namespace

TEST(HalfConvert, EveryFp16CopyMatchesTheScalarConversion) {
  const std::vector<uint16_t> h = all_patterns();
  std::vector<float> want(h.size()), got(h.size());
  for (size_t i = 0; i < h.size(); ++i) want[i] = half_to_float(h[i]);
  halves_to_floats(h.data(), (int64_t)h.size(), got.data());
  expect_same(got, want, "halves_to_floats");
  half_kernels::halves_to_floats_vec<16>(h.data(), got.data(), (int64_t)h.size());
  expect_same(got, want, "portable 16-byte");
#ifdef MSPROBE_HALF_X86
  if (cpu_features().f16c && cpu_features().avx2) {
    half_kernels::halves_to_floats_f16c(h.data(), got.data(), (int64_t)h.size());
    expect_same(got, want, "f16c");
  }
#endif
}

TEST(HalfConvert, Bf16ArrayMatchesTheScalarConversion) {
  const std::vector<uint16_t> b = all_patterns();
  std::vector<float> want(b.size()), got(b.size());
  for (size_t i = 0; i < b.size(); ++i) want[i] = bf16_to_float(b[i]);
  bf16s_to_floats(b.data(), (int64_t)b.size(), got.data());
  expect_same(got, want, "bf16s_to_floats");
}

TEST(HalfConvert, RoundToHalfIsNumpysFloat16Rounding) {
  EXPECT_EQ(round_to_half(1.0f), 1.0f);
  EXPECT_EQ(round_to_half(65519.0f), 65504.0f);  // below the midpoint to inf
  EXPECT_TRUE(std::isinf(round_to_half(65520.0f)));
  EXPECT_EQ(round_to_half(1.0f + 1.0f / 4096), 1.0f);  // a tie rounds to even
  EXPECT_EQ(round_to_half(0.1f), half_to_float(0x2e66));
}
