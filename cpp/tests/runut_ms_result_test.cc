// MindSpore's run_ut rows (runut::MsApiResult), its metrics (check::ms_checker_metrics) and its
// file layout (ResultWriter / prepare_resume with CsvLayout::kMindSpore).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/check/ms_checker_metrics.h"
#include "msprobe/jobs/run_ut_result_files.h"
#include "msprobe/runut/ms_api_result.h"
#include "tensor_views.h"

namespace msprobe {
namespace runut {
namespace {

TensorView f32(const std::vector<float>& v, std::vector<int64_t> shape) {
  return test::view_of(v, DType::kFloat32, std::move(shape));
}

TEST(MsCheckerMetrics, FormulasOfTheOriginal) {
  std::vector<float> b{1, 0, -2, 4}, t{1, 0.5f, -2, 4.002f};
  const check::MsCheckerMetrics m = check::ms_checker_metrics(f32(b, {4}), f32(t, {4}));
  double dot = 1 + 4 + 4 * (double)4.002f, nb = std::sqrt(21.0);
  double nt = std::sqrt(1 + 0.25 + 4 + (double)4.002f * (double)4.002f);
  EXPECT_DOUBLE_EQ(m.cosine, (1e-8 + dot) / (1e-8 + nb * nt));
  EXPECT_DOUBLE_EQ(m.max_abs_err, 0.5);
  EXPECT_DOUBLE_EQ(m.max_rel_err, 0.5 / 1e-8);  // a zero bench element counts as 1e-8
  EXPECT_FALSE(m.max_abs_pass);
  std::vector<float> n{NAN, 1, 1, 1};
  EXPECT_TRUE(std::isnan(check::ms_checker_metrics(f32(b, {4}), f32(n, {4})).max_abs_err));
  std::vector<float> none;
  EXPECT_THROW(check::ms_checker_metrics(f32(none, {0}), f32(none, {0})), InvalidInput);
}

TEST(MsCheckerMetrics, MaxAbsErrThresholdIsTheCodesNotTheDocs) {
  // 1.2.1's docs say 0.0001, its code 0.001: a difference of 0.0005 passes, 0.002 does not.
  std::vector<float> b{1, 2}, near{1, 2.0005f}, far{1, 2.002f};
  EXPECT_TRUE(check::ms_checker_metrics(f32(b, {2}), f32(near, {2})).max_abs_pass);
  EXPECT_FALSE(check::ms_checker_metrics(f32(b, {2}), f32(far, {2})).max_abs_pass);
}

TEST(MsApiResult, RowsStatusesAndMessages) {
  std::vector<float> b{1, 2, 3, 4}, t{1, 2, 3, 5};
  MsApiResult r("Mint.add.0");
  r.add_tensor(false, "Float32", "Float32", "(2, 2)", f32(b, {2, 2}), f32(b, {2, 2}));
  r.add_tensor(true, "Float32", "Float32", "(2, 2)", f32(b, {2, 2}), f32(t, {2, 2}));
  r.add_not_comparable(true, "int", "int", "()");
  EXPECT_EQ(r.status(false), "pass");
  EXPECT_EQ(r.status(true), "error");
  std::string d, res;
  r.append_details_csv(d);
  r.append_result_csv(res);
  EXPECT_EQ(d.rfind("Mint.add.0.forward.output.0,Float32,Float32,\"(2, 2)\",1.0,0.0,0.0,pass,\r\n", 0), 0u);
  EXPECT_NE(d.find("Mint.add.0.backward.output.1,int,int,(),,,,error,\"two inputs are not valid"),
            std::string::npos);
  EXPECT_EQ(
      res.rfind("Mint.add.0,pass,error,\"max absolute difference is greater than threshold: 0.001 two", 0),
      0u);
}

TEST(MsApiResult, SkipAndMissingDirections) {
  MsApiResult none("Mint.abs.0");
  EXPECT_FALSE(none.has_result_row());
  std::string s;
  none.append_result_csv(s);
  EXPECT_EQ(s, "");
  std::vector<float> b{1, 2};
  MsApiResult r("Mint.cat.0");
  r.add_tensor(false, "Float32", "Float32", "(2,)", f32(b, {2}), f32(b, {2}));
  r.skip(true, "element 0 of tensors does not require grad");
  r.append_result_csv(s);
  EXPECT_EQ(s, "Mint.cat.0,pass,SKIP,element 0 of tensors does not require grad\r\n");
  MsApiResult f("Mint.sum.0");
  f.add_tensor(false, "Float32", "Float32", "(2,)", f32(b, {2}), f32(b, {2}));
  s.clear();
  f.append_result_csv(s);
  EXPECT_EQ(s, "Mint.sum.0,pass,,\r\n");  // no backward record: the cell stays empty
}

TEST(MsResultFiles, HeadersAndResume) {
  char tmpl[] = "/tmp/runut_ms_XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  const std::string r = dir + "/accuracy_checking_result_20250101000000.csv";
  const std::string d = dir + "/accuracy_checking_details_20250101000000.csv";
  {
    ResultWriter w(r, d, CsvLayout::kMindSpore);
    MsApiResult a("Mint.a.0");
    a.skip(false, "x");
    std::string dt, rt;
    a.append_details_csv(dt);
    a.append_result_csv(rt);
    w.write_text(dt, rt);
  }
  std::ifstream f(r, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(),
            "\xEF\xBB\xBF"
            "API Name,Forward Test Success,Backward Test Success,Message\r\nMint.a.0,SKIP,,x\r\n");
  const ResumeReport rep = prepare_resume(r, d, CsvLayout::kMindSpore);
  EXPECT_EQ(rep.done, std::vector<std::string>{"Mint.a.0"});
  EXPECT_THROW(prepare_resume(r, d, CsvLayout::kPyTorch), InvalidInput);
  std::system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace
}  // namespace runut
}  // namespace msprobe
