// Tensor-mode metrics of compare: every Err_message path of 1.2.1's npy_compare.py and the
// Accuracy Reached or Not verdict (check_accuracy). Expected values worked out by hand from the
// original's formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "compare/metrics/tensor_metrics.h"

using namespace msprobe;
using namespace msprobe::compare;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename T>
TensorView view(const std::vector<T>& v, DType d, std::vector<int64_t> shape = {{-1}}) {
  TensorView t;
  t.data = v.data();
  t.dtype = d;
  t.shape = (shape.size() == 1 && shape[0] == -1) ? std::vector<int64_t>{(int64_t)v.size()} : shape;
  return t;
}

std::vector<uint16_t> half(const std::vector<float>& v) {
  std::vector<uint16_t> h;
  for (float x : v) h.push_back(float_to_half(x));
  return h;
}

void expect_str(const Cell& c, const char* s) {
  EXPECT_TRUE(c.is_string()) << "kind " << (int)c.kind;
  EXPECT_EQ(c.s, s);
}

void expect_num(const Cell& c, double v) {
  ASSERT_TRUE(c.is_number()) << c.s;
  if (std::isnan(v)) {
    EXPECT_TRUE(std::isnan(c.d));
  } else {
    EXPECT_EQ(c.d, v);
  }
}

}  // namespace

TEST(CompareTensorMetrics, IdenticalTensorsPass) {
  std::vector<float> a{1.5f, -2.f, 3.25f, 0.f};
  TensorMetrics m = compare_tensor_data(view(a, DType::kFloat32), view(a, DType::kFloat32));
  expect_num(m.cosine, 1.0);
  expect_num(m.max_abs_err, 0.0);
  expect_num(m.max_relative_err, 0.0);
  expect_num(m.one_thousandth, 1.0);
  expect_num(m.five_thousandths, 1.0);
  EXPECT_EQ(m.err_msg, "");
  expect_str(accuracy_verdict(m.cosine, m.max_abs_err), "Yes");
}

TEST(CompareTensorMetrics, RelativeErrorRatiosAndMaxima) {
  // bench 1, 2, 4, 8; npu off by 0.0005, 0.004 (0.2%), 0.04 (1%), 0 -> relative 5e-4, 2e-3, 1e-2, 0
  std::vector<double> b{1, 2, 4, 8}, n{1.0005, 2.004, 4.04, 8};
  TensorMetrics m = compare_tensor_data(view(n, DType::kFloat64), view(b, DType::kFloat64));
  expect_num(m.max_abs_err, format_value(0.04000000000000004));
  expect_num(m.max_relative_err, format_value((4.04 - 4) / 4));
  expect_num(m.one_thousandth, 0.5);     // 5e-4 and 0 are below 0.001
  expect_num(m.five_thousandths, 0.75);  // 2e-3 too
  const double dot = 1.0005 + 2 * 2.004 + 4 * 4.04 + 64;
  const double cos =
      dot / (std::sqrt(1.0005 * 1.0005 + 2.004 * 2.004 + 4.04 * 4.04 + 64) * std::sqrt(1 + 4 + 16 + 64.0));
  expect_num(m.cosine, py_round(format_value(cos), 6));  // > 0.9999: rounded to 6 decimals
}

TEST(CompareTensorMetrics, EmptyTensor) {
  std::vector<float> a;
  TensorMetrics m = compare_tensor_data(view(a, DType::kFloat32, {0}), view(a, DType::kFloat32, {0}));
  EXPECT_EQ(m.err_msg, "This is empty data, can not compare.");
  for (const Cell* c :
       {&m.cosine, &m.max_abs_err, &m.max_relative_err, &m.one_thousandth, &m.five_thousandths}) {
    expect_num(*c, 0);
    EXPECT_TRUE(c->is_int);
  }
  expect_str(accuracy_verdict(m.cosine, m.max_abs_err), "No");  // float(0) < 0.9
}

TEST(CompareTensorMetrics, ZeroDimTensor) {
  std::vector<float> n{1.5f}, b{1.25f};
  TensorMetrics m = compare_tensor_data(view(n, DType::kFloat32, {}), view(b, DType::kFloat32, {}));
  EXPECT_EQ(m.err_msg,
            "This is type of 0-d tensor, can not calculate 'Cosine', 'One Thousandth Err Ratio' and "
            "'Five Thousandths Err Ratio'. ");
  expect_str(m.cosine, "unsupported");
  expect_num(m.max_abs_err, 0.25);
  expect_num(m.max_relative_err, format_value(0.2f));  // computed in float32: 0.200000002980
  expect_str(m.one_thousandth, "unsupported");
  expect_str(m.five_thousandths, "unsupported");
  expect_str(accuracy_verdict(m.cosine, m.max_abs_err), "None");  // float("unsupported") fails
}

TEST(CompareTensorMetrics, ZeroDimNanIsNotZeroed) {
  std::vector<float> n{NAN}, b{1.f};
  TensorMetrics m = compare_tensor_data(view(n, DType::kFloat32, {}), view(b, DType::kFloat32, {}));
  expect_str(m.max_abs_err, "Nan");
  expect_str(m.max_relative_err, "Nan");
  EXPECT_NE(m.err_msg.find("Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data."),
            std::string::npos);
  EXPECT_NE(
      m.err_msg.find("Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data."),
      std::string::npos);
}

TEST(CompareTensorMetrics, ZeroDimIntegersWrapInTheirType) {
  std::vector<uint8_t> n{3}, b{5};  // numpy: uint8(3) - uint8(5) = 254
  TensorMetrics m = compare_tensor_data(view(n, DType::kUInt8, {}), view(b, DType::kUInt8, {}));
  expect_num(m.max_abs_err, 254);
}

TEST(CompareTensorMetrics, ShapeMismatch) {
  std::vector<float> a{1, 2, 3, 4};
  TensorMetrics m = compare_tensor_data(view(a, DType::kFloat32, {2, 2}), view(a, DType::kFloat32, {4}));
  EXPECT_EQ(m.err_msg, "Shape of NPU and bench tensor do not match. Skipped.");
  expect_str(m.cosine, "shape unmatched");
  expect_str(m.five_thousandths, "shape unmatched");
  expect_str(accuracy_verdict(m.cosine, m.max_abs_err), "Unmatched");
}

TEST(CompareTensorMetrics, SameInfNanPositionsCountAsZero) {
  std::vector<float> n{1.f, NAN, INFINITY, 2.f}, b{1.f, NAN, -INFINITY, 2.f};
  TensorMetrics m = compare_tensor_data(view(n, DType::kFloat32), view(b, DType::kFloat32));
  EXPECT_EQ(m.err_msg, "");
  expect_num(m.cosine, 1.0);
  expect_num(m.max_abs_err, 0.0);
  expect_num(m.one_thousandth, 1.0);
}

TEST(CompareTensorMetrics, DifferentInfNanPositions) {
  std::vector<float> n{1.f, NAN, 2.f}, b{1.f, 2.f, NAN};
  TensorMetrics m = compare_tensor_data(view(n, DType::kFloat32), view(b, DType::kFloat32));
  EXPECT_EQ(m.err_msg, "The position of inf or nan in NPU and bench Tensor do not match.");
  expect_str(m.cosine, "N/A");
  expect_str(m.one_thousandth, "N/A");
  expect_str(accuracy_verdict(m.cosine, m.max_abs_err), "No");
  std::vector<float> i1{INFINITY, 1.f}, i2{NAN, 1.f};  // inf against NaN is a mismatch too
  EXPECT_EQ(compare_tensor_data(view(i1, DType::kFloat32), view(i2, DType::kFloat32)).err_msg,
            "The position of inf or nan in NPU and bench Tensor do not match.");
}

TEST(CompareTensorMetrics, AllZeroSides) {
  std::vector<float> z{0, 0, 0}, x{1, 2, 3};
  TensorMetrics m = compare_tensor_data(view(z, DType::kFloat32), view(x, DType::kFloat32));
  expect_str(m.cosine, "Nan");
  EXPECT_EQ(m.err_msg, "Cannot compare by Cosine Similarity, All the data is Zero in npu dump data.");
  expect_str(accuracy_verdict(m.cosine, m.max_abs_err), "No");  // float("Nan") is NaN; 3 > 1
  m = compare_tensor_data(view(x, DType::kFloat32), view(z, DType::kFloat32));
  EXPECT_EQ(m.err_msg, "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.");
  // bench 0: eps added to both sides, (x + eps - eps) / eps is huge
  expect_num(m.one_thousandth, 0.0);
  m = compare_tensor_data(view(z, DType::kFloat32), view(z, DType::kFloat32));
  expect_num(m.cosine, 1.0);
  EXPECT_EQ(m.err_msg, "");
}

TEST(CompareTensorMetrics, LengthOne) {
  std::vector<float> n{2.f}, b{2.5f};
  TensorMetrics m = compare_tensor_data(view(n, DType::kFloat32), view(b, DType::kFloat32));
  expect_str(m.cosine, "unsupported");
  EXPECT_EQ(m.err_msg, "This is a 1-d tensor of length 1.");
  expect_num(m.max_abs_err, 0.5);
  expect_num(m.max_relative_err, format_value(0.2f));
  expect_num(m.one_thousandth, 0.0);
}

TEST(CompareTensorMetrics, DtypeMismatchIsOnlyAMessage) {
  std::vector<uint16_t> n = half({1.f, 2.f});
  std::vector<float> b{1.f, 2.f};
  TensorMetrics m = compare_tensor_data(view(n, DType::kFloat16), view(b, DType::kFloat32));
  EXPECT_EQ(m.err_msg, "Dtype of NPU and bench tensor do not match.");
  expect_num(m.cosine, 1.0);
  // bf16 counts as float32 (1.2.1 widens it on load): no message
  std::vector<uint16_t> bf{0x3f80, 0x4000};  // 1.0, 2.0
  EXPECT_EQ(compare_tensor_data(view(bf, DType::kBFloat16), view(b, DType::kFloat32)).err_msg, "");
}

TEST(CompareTensorMetrics, Float16ZeroBenchGivesNanRelativeError) {
  // In float16 the eps added where bench is 0 rounds away: 0/0 is NaN, x/0 is inf.
  std::vector<uint16_t> n = half({0.f, 1.f}), b = half({0.f, 1.f});
  TensorMetrics m = compare_tensor_data(view(n, DType::kFloat16), view(b, DType::kFloat16));
  expect_str(m.max_relative_err, "Nan");
  EXPECT_EQ(m.err_msg, "Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data.");
  expect_num(m.one_thousandth, 0.5);  // the NaN compares false
  std::vector<uint16_t> n2 = half({0.5f, 1.f});
  m = compare_tensor_data(view(n2, DType::kFloat16), view(b, DType::kFloat16));
  expect_num(m.max_relative_err, kInf);
}

TEST(CompareTensorMetrics, Float16ThresholdIsFloat16) {
  // relative error 0.0010004 rounds to float16(0.001) exactly: counted below the threshold only
  // if the comparison is done in float16 as numpy does (float16(0.001) = 0.0010004043579101562).
  const float b0 = 1024.f, n0 = 1025.f;  // (1025 - 1024) / 1024 = 0.0009765625 < 0.001
  std::vector<uint16_t> n = half({n0}), b = half({b0});
  TensorMetrics m = compare_tensor_data(view(n, DType::kFloat16), view(b, DType::kFloat16));
  expect_num(m.one_thousandth, 1.0);
}

TEST(CompareTensorMetrics, OverflowingNormsGiveNanCosine) {
  std::vector<double> n{1e200, 2e200}, b{2e200, 1e200};
  TensorMetrics m = compare_tensor_data(view(n, DType::kFloat64), view(b, DType::kFloat64));
  expect_str(m.cosine, "Nan");
  EXPECT_EQ(m.err_msg, "Cannot compare by Cosine Similarity, the dump data has NaN.");
}

TEST(CompareTensorMetrics, IntegerAndBoolTensorsAreComparedAsFloat64) {
  std::vector<int64_t> n{1, 2, 3}, b{1, 2, 4};
  TensorMetrics m = compare_tensor_data(view(n, DType::kInt64), view(b, DType::kInt64));
  expect_num(m.max_abs_err, 1.0);
  expect_num(m.max_relative_err, 0.25);
  std::vector<uint8_t> t{1, 0}, f{0, 0};
  m = compare_tensor_data(view(t, DType::kBool), view(f, DType::kBool));
  expect_str(m.cosine, "Nan");
  EXPECT_EQ(m.err_msg, "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.");
}

TEST(CompareTensorMetrics, NonContiguousViewsAreReadInLogicalOrder) {
  std::vector<float> storage{1, 2, 3, 4, 5, 6};  // 2x3, read transposed (3x2)
  TensorView t;
  t.data = storage.data();
  t.dtype = DType::kFloat32;
  t.shape = {3, 2};
  t.strides = {1, 3};
  std::vector<float> logical{1, 4, 2, 5, 3, 6};
  TensorMetrics m = compare_tensor_data(t, view(logical, DType::kFloat32, {3, 2}));
  expect_num(m.max_abs_err, 0.0);
}

TEST(CompareTensorMetrics, UnreadableData) {
  TensorMetrics m = unreadable_metrics(file_not_found_msg("a.pt"));
  EXPECT_EQ(m.err_msg, "Dump file: a.pt not found.");
  expect_str(m.cosine, "unsupported");
  expect_str(accuracy_verdict(m.cosine, m.max_abs_err), "None");
  EXPECT_STREQ(kNoBenchDataMsg, "No bench data matched.");
  EXPECT_STREQ(kBenchNoFileMsg, "Bench does not have data file.");
}

TEST(CompareAccuracyVerdict, Thresholds) {
  auto v = [](double cos, double err) { return accuracy_verdict(Cell::num(cos), Cell::num(err)).s; };
  EXPECT_EQ(v(0.995, 0.5), "Yes");
  EXPECT_EQ(v(0.98, 0.0005), "Yes");  // cos < 0.99 but MaxAbsErr <= 0.001
  EXPECT_EQ(v(0.98, 0.002), "No");    // cos < 0.99 and MaxAbsErr > 0.001
  EXPECT_EQ(v(0.89, 0.0), "No");      // cos < 0.9
  EXPECT_EQ(v(1.0, 1.5), "No");       // MaxAbsErr > 1
  EXPECT_EQ(v(kNaN, 0.5), "Yes");     // NaN compares false everywhere
  EXPECT_EQ(accuracy_verdict(Cell::str("Nan"), Cell::num(2)).s, "No");
  EXPECT_EQ(accuracy_verdict(Cell::str("None"), Cell::num(0)).s, "None");
  EXPECT_EQ(accuracy_verdict(Cell::num(1), Cell::str("N/A")).s, "No");
}

TEST(CompareNumberText, FormatValueAndRound) {
  EXPECT_EQ(format_value(0.1234567890126), 0.123456789013);
  EXPECT_EQ(format_value(1e-13), 0.0);
  EXPECT_TRUE(std::isinf(format_value(kInf)));
  EXPECT_EQ(py_round(0.99999949, 6), 0.999999);
  EXPECT_EQ(py_round(0.9999995, 6), 1.0);  // 0.9999995 is stored just above ...95
  EXPECT_EQ(py_round(2.675, 2), 2.67);     // Python: 2.675 is 2.67499999...
}
