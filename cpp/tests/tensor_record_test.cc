// The dump.json tensor object: the framework decides type names, dtype names and the complex Norm.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "msprobe/dump/tensor_record.h"
#include "msprobe/format/json_value.h"

namespace msprobe {
namespace {

JsonValue record_of(const std::vector<std::complex<float>>& v, Framework f) {
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kComplex64;
  t.shape = {(int64_t)v.size()};
  std::string out;
  JsonWriter w(out);
  TensorRecordOptions opt;
  opt.framework = f;
  write_tensor_record(w, t, false, "", opt);
  return parse_json(out, "tensor record");
}

TEST(TensorRecord, ComplexNormFollowsTheFramework) {
  const std::vector<std::complex<float>> v = {{3, 4}, {0, -1}, {-6, 8}};
  const JsonValue torch = record_of(v, Framework::kPyTorch);
  const JsonValue ms = record_of(v, Framework::kMindSpore);
  EXPECT_EQ(torch.find("type")->as_string(), "torch.Tensor");
  EXPECT_TRUE(torch.find("Norm")->is_null());
  EXPECT_EQ(ms.find("type")->as_string(), "mindspore.Tensor");
  // MindSpore 1.2.1: the L2 norm of the magnitudes, sqrt(25 + 1 + 100), in float32.
  EXPECT_FLOAT_EQ(ms.find("Norm")->as_double(), std::sqrt(126.0f));
  EXPECT_FLOAT_EQ(ms.find("Max")->as_double(), 10.0f);
}

}  // namespace
}  // namespace msprobe
