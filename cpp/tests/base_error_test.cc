// Tests of the core's error model (msprobe/base/error.h) and of the CPU-feature query.
#include <gtest/gtest.h>

#include <string>

#include "msprobe/base/cpu_features.h"
#include "msprobe/base/error.h"
#include "msprobe/format/json_value.h"

using namespace msprobe;

namespace {

int checked_step(int n) {
  MSPROBE_CHECK(n >= 0, InvalidInput, "step: " + std::to_string(n) + " is negative");
  return n;
}

}  // namespace

TEST(ErrorModel, CheckThrowsTheNamedKindWithItsMessage) {
  EXPECT_EQ(checked_step(3), 3);
  try {
    checked_step(-2);
    FAIL() << "no throw";
  } catch (const InvalidInput& e) {
    EXPECT_STREQ(e.what(), "step: -2 is negative");
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  }
}

TEST(ErrorModel, EveryUserErrorIsAnErrorWithItsCode) {
  const FileError f("x.json: not found");
  EXPECT_EQ(f.code(), ErrorCode::kFile);
  const Error& base = f;
  EXPECT_STREQ(base.what(), "x.json: not found");
  // Subclasses keep their kind: a JSON syntax error is a file error.
  try {
    parse_json("{\"a\": ", "test");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFile);
  }
}

TEST(CpuFeatures, ImpliedFeaturesAreConsistent) {
  const CpuFeatures& f = cpu_features();
  EXPECT_EQ(&f, &cpu_features());  // asked once
  if (f.vpclmulqdq) EXPECT_TRUE(f.avx2);
  if (stats_avx2_available()) EXPECT_TRUE(f.avx2 && f.fma && f.f16c);
  if (check_simd_enabled()) EXPECT_TRUE(f.avx2 && f.f16c);
}
