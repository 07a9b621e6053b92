// Tests of dtype names, sizes, fp16 / bf16 conversions and TensorView basics.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/tensor/dtype.h"
#include "msprobe/tensor/tensor_view.h"

using namespace msprobe;

namespace {

const DType kAll[] = {DType::kBool,    DType::kUInt8,   DType::kInt8,      DType::kInt16,
                      DType::kInt32,   DType::kInt64,   DType::kFloat16,   DType::kBFloat16,
                      DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128};

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

bool half_is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

}  // namespace

TEST(DType, SizesAndPredicates) {
  const size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  for (size_t i = 0; i < std::size(kAll); ++i) EXPECT_EQ(dtype_size(kAll[i]), sizes[i]) << i;
  EXPECT_TRUE(dtype_is_floating(DType::kFloat16));
  EXPECT_TRUE(dtype_is_floating(DType::kBFloat16));
  EXPECT_TRUE(dtype_is_floating(DType::kFloat32));
  EXPECT_TRUE(dtype_is_floating(DType::kFloat64));
  EXPECT_FALSE(dtype_is_floating(DType::kComplex64));
  EXPECT_FALSE(dtype_is_floating(DType::kInt32));
  EXPECT_TRUE(dtype_is_complex(DType::kComplex64));
  EXPECT_TRUE(dtype_is_complex(DType::kComplex128));
  EXPECT_FALSE(dtype_is_complex(DType::kFloat64));
  for (DType t : {DType::kUInt8, DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64})
    EXPECT_TRUE(dtype_is_integer(t));
  EXPECT_FALSE(dtype_is_integer(DType::kBool));
  EXPECT_FALSE(dtype_is_integer(DType::kFloat32));
}

TEST(DType, Names) {
  EXPECT_STREQ(torch_dtype_name(DType::kFloat32), "torch.float32");
  EXPECT_STREQ(torch_dtype_name(DType::kBFloat16), "torch.bfloat16");
  EXPECT_STREQ(torch_dtype_name(DType::kBool), "torch.bool");
  EXPECT_STREQ(torch_dtype_name(DType::kComplex64), "torch.complex64");
  EXPECT_STREQ(torch_dtype_name(DType::kInt64), "torch.int64");
  EXPECT_STREQ(mindspore_dtype_name(DType::kFloat32), "Float32");
  EXPECT_STREQ(mindspore_dtype_name(DType::kBFloat16), "BFloat16");
  EXPECT_STREQ(mindspore_dtype_name(DType::kBool), "Bool");
  EXPECT_STREQ(mindspore_dtype_name(DType::kInt64), "Int64");
  EXPECT_STREQ(mindspore_dtype_name(DType::kComplex64), "Complex64");
  EXPECT_STREQ(mindspore_dtype_name(DType::kUInt8), "UInt8");
  for (DType t : kAll) {
    EXPECT_EQ(dtype_from_name(torch_dtype_name(t)), t);
    EXPECT_EQ(dtype_from_name(mindspore_dtype_name(t)), t);
    EXPECT_EQ(dtype_from_name(torch_dtype_name(t) + 6), t);  // numpy-style "float32"
  }
}

TEST(DType, NameAliases) {
  EXPECT_EQ(dtype_from_name("torch.half"), DType::kFloat16);
  EXPECT_EQ(dtype_from_name("torch.float"), DType::kFloat32);
  EXPECT_EQ(dtype_from_name("torch.double"), DType::kFloat64);
  EXPECT_EQ(dtype_from_name("torch.long"), DType::kInt64);
  EXPECT_EQ(dtype_from_name("torch.int"), DType::kInt32);
  EXPECT_EQ(dtype_from_name("torch.short"), DType::kInt16);
  EXPECT_EQ(dtype_from_name("torch.cfloat"), DType::kComplex64);
  EXPECT_EQ(dtype_from_name("bf16"), DType::kBFloat16);
  EXPECT_EQ(dtype_from_name("fp16"), DType::kFloat16);
  EXPECT_EQ(dtype_from_name("bool_"), DType::kBool);
  EXPECT_EQ(dtype_from_name("numpy.float64"), DType::kFloat64);
  EXPECT_EQ(dtype_from_name("mindspore.float16"), DType::kFloat16);
  EXPECT_EQ(dtype_from_name("mindspore.bfloat16"), DType::kBFloat16);
}

TEST(DType, UnknownNamesThrow) {
  for (const char* bad : {"", "torch.", "float8", "torch.float8_e4m3fn", "torch.uint16", "complex32", "int",
                          "float", "Float33", "torch.float32 "}) {
    EXPECT_THROW(dtype_from_name(bad), InvalidInput) << bad;
  }
  try {
    dtype_from_name("torch.quint8");
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("torch.quint8"), std::string::npos);
  }
}

TEST(Half, AllPatternsRoundTrip) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = half_to_float((uint16_t)h);
    const uint16_t back = float_to_half(f);
    if (half_is_nan((uint16_t)h)) {
      EXPECT_TRUE(std::isnan(f)) << h;
      EXPECT_TRUE(half_is_nan(back)) << h;
      EXPECT_EQ(back & 0x8000u, h & 0x8000u) << h;
    } else {
      EXPECT_EQ(back, h) << h;
    }
  }
}

TEST(Half, KnownValues) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(half_to_float(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65519.996f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // the tie rounds to even: infinity
  EXPECT_EQ(float_to_half(1e10f), 0x7c00);
  EXPECT_EQ(float_to_half(-1e10f), 0xfc00);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(half_is_nan(float_to_half(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie between 0 and 2^-24: even
  EXPECT_EQ(float_to_half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);  // tie 1.5 units: to even 2
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -26)), 0x0000);
  EXPECT_EQ(float_to_half(1e-30f), 0x0000);
  EXPECT_EQ(float_to_half(-1e-30f), 0x8000);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: even mantissa (1.0) wins.
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
}

// Every midpoint between neighbouring halves rounds to the even one, and one float ulp off
// the midpoint rounds to the nearer one.
TEST(Half, RoundToNearestEvenAtEveryMidpoint) {
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    const float lo = half_to_float((uint16_t)h), hi = half_to_float((uint16_t)(h + 1));
    const float mid = lo + (hi - lo) / 2;  // exact in float
    ASSERT_GT(mid, lo);
    ASSERT_LT(mid, hi);
    const uint16_t even = (h & 1u) ? (uint16_t)(h + 1) : (uint16_t)h;
    EXPECT_EQ(float_to_half(mid), even) << h;
    EXPECT_EQ(float_to_half(std::nextafter(mid, 0.0f)), h) << h;
    EXPECT_EQ(float_to_half(std::nextafter(mid, 1e9f)), h + 1) << h;
    EXPECT_EQ(float_to_half(-mid), even | 0x8000u) << h;
  }
}

#if defined(__FLT16_MAX__) && !defined(__clang__)
TEST(Half, MatchesCompilerFloat16) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    const float f = from_bits(rng());
    if (std::isnan(f)) continue;
    const _Float16 ref = (_Float16)f;
    uint16_t rb;
    std::memcpy(&rb, &ref, 2);
    ASSERT_EQ(float_to_half(f), rb) << std::hex << bits(f);
  }
}
#endif

TEST(BFloat16, ConversionsAndRounding) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = bf16_to_float((uint16_t)b);
    EXPECT_EQ(bits(f), b << 16);
    if (!std::isnan(f)) {
      EXPECT_EQ(float_to_bf16(f), b);
    }
  }
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808000u)), 0x3f80);  // tie, even stays
  EXPECT_EQ(float_to_bf16(from_bits(0x3f818000u)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808001u)), 0x3f81);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(from_bits(0x7f800001u)))));
}

TEST(TensorView, NumelAndContiguity) {
  float data[24] = {};
  TensorView v;
  v.data = data;
  v.shape = {2, 3, 4};
  EXPECT_EQ(v.numel(), 24);
  EXPECT_TRUE(v.is_contiguous());
  v.strides = {12, 4, 1};
  EXPECT_TRUE(v.is_contiguous());
  EXPECT_EQ(v.nbytes(), 96u);
  v.strides = {1, 2, 6};
  EXPECT_FALSE(v.is_contiguous());
  v.shape = {2, 1, 4};
  v.strides = {4, 100, 1};  // a size-1 dimension may have any stride
  EXPECT_TRUE(v.is_contiguous());
  v.shape = {3, 0, 4};
  v.strides = {7, 3, 2};
  EXPECT_EQ(v.numel(), 0);
  EXPECT_TRUE(v.is_contiguous());
  v.shape = {};
  v.strides = {};
  EXPECT_EQ(v.numel(), 1);
  EXPECT_TRUE(v.is_contiguous());
  v.shape = {4};
  v.strides = {-1};
  EXPECT_FALSE(v.is_contiguous());
}

TEST(TensorView, CopyContiguous) {
  std::vector<int32_t> data(60);
  for (int i = 0; i < 60; ++i) data[i] = i;
  TensorView v;
  v.data = data.data();
  v.dtype = DType::kInt32;
  v.shape = {4, 3};  // transpose of a [3, 4] block inside a [3, 20] matrix
  v.strides = {1, 20};
  std::vector<int32_t> out(12);
  v.copy_contiguous(out.data());
  const std::vector<int32_t> want = {0, 20, 40, 1, 21, 41, 2, 22, 42, 3, 23, 43};
  EXPECT_EQ(out, want);
  v.shape = {3, 2};  // rows with step, unit inner stride
  v.strides = {20, 1};
  out.assign(6, -1);
  v.copy_contiguous(out.data());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 1, 20, 21, 40, 41}));
  v.shape = {5};
  v.strides = {};
  out.assign(5, -1);
  v.copy_contiguous(out.data());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 1, 2, 3, 4}));
}
