// Tests of grad_probe's core: the one-pass gradient summary, the step files and the comparator.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/check/csv_table.h"
#include "msprobe/format/npy_reader.h"
#include "msprobe/format/py_value.h"
#include "msprobe/grad/grad_compare.h"
#include "msprobe/grad/grad_step_writer.h"
#include "msprobe/grad/grad_summary.h"
#include "msprobe/jobs/grad_compare_job.h"
#include "msprobe/report/grad_report.h"
#include "msprobe/stats/md5.h"
#include "tensor_views.h"
#include "test_files.h"

using namespace msprobe;
using namespace msprobe::grad;
using msprobe::test::view_of;

namespace {

const float kNaNf = std::nanf("");

GradSummaryOptions l2(std::vector<double> bounds) {
  GradSummaryOptions o;
  o.distribution = true;
  o.bounds = std::move(bounds);
  return o;
}

TEST(GradSummary, IntervalsAsTorchBucketize) {
  // 1.2.1's documented example: bounds [-10, 0, 10], values [9.3, 5.4, -1.0, -12.3] -> 1, 1, 2, 0.
  std::vector<float> g{9.3f, 5.4f, -1.0f, -12.3f};
  GradSummary s = summarize_gradient(view_of(g, DType::kFloat32), l2({-10, 0, 10}), nullptr);
  EXPECT_EQ(s.distribution, (std::vector<double>{0.25, 0.25, 0.5, 0, 0}));
  EXPECT_EQ(s.max, (double)9.3f);
  EXPECT_EQ(s.min, (double)-12.3f);
  // Right-closed intervals; -0.0 and 0 are zeros; NaN falls in the last interval.
  std::vector<float> e{-1.0f, 0.0f, -0.0f, 1.0f, 2.0f, kNaNf, INFINITY, -INFINITY};
  s = summarize_gradient(view_of(e, DType::kFloat32), l2({-1, 0, 1}), nullptr);
  EXPECT_EQ(s.distribution, (std::vector<double>{2 / 8., 2 / 8., 1 / 8., 3 / 8., 2 / 8.}));
  EXPECT_TRUE(std::isnan(s.max));
  EXPECT_TRUE(std::isnan(s.min));
  EXPECT_TRUE(std::isnan(s.norm));
}

TEST(GradSummary, BoundsRoundedToFloat32) {
  // torch.Tensor(bounds) is float32: 0.1 becomes 0.1f, so 0.1f itself is in (-inf, 0.1].
  std::vector<float> g{0.1f};
  EXPECT_EQ(summarize_gradient(view_of(g, DType::kFloat32), l2({0.1}), nullptr).distribution,
            (std::vector<double>{1, 0, 0}));
}

TEST(GradSummary, Md5OfFloat32BytesAndDirection) {
  std::vector<float> g(5000);
  for (size_t i = 0; i < g.size(); ++i) g[i] = (float)((int)(i % 7) - 3) / 4;
  GradSummaryOptions o;
  o.md5 = true;
  std::vector<uint8_t> dir(g.size());
  GradSummary s = summarize_gradient(view_of(g, DType::kFloat32), o, dir.data());
  Md5 m;
  m.update(g.data(), g.size() * 4);
  EXPECT_EQ(s.md5, m.hex_digest());
  for (size_t i = 0; i < g.size(); ++i) ASSERT_EQ(dir[i], g[i] > 0) << i;
  double sq = 0;
  for (float v : g) sq += (double)v * v;
  EXPECT_EQ(s.norm, (double)(float)std::sqrt(sq));
  EXPECT_EQ(s.max, 0.75);
  EXPECT_EQ(s.min, -0.75);
  // float64: the MD5 is of the values as float32 (grad.float()); strided views read in order.
  std::vector<double> d{1.5, -2.0, 3.0, 4.0, 0.0, -1.0};
  std::vector<float> f{1.5f, 3.0f, 0.0f};
  Md5 mf;
  mf.update(f.data(), 12);
  GradSummary sd = summarize_gradient(view_of(d, DType::kFloat64, {3}, {2}), o, nullptr);
  EXPECT_EQ(sd.md5, mf.hex_digest());
  EXPECT_EQ(sd.max, 3.0);
  EXPECT_EQ(sd.min, 0.0);
  std::vector<double> third{1.0 / 3};  // float64 values are reported as float32, as 1.2.1 does
  GradSummary st = summarize_gradient(view_of(third, DType::kFloat64), o, nullptr);
  EXPECT_EQ(st.max, (double)(float)(1.0 / 3));
  EXPECT_EQ(st.norm, (double)(float)(1.0 / 3));
}

TEST(GradSummary, Md5KnownDigests) {
  auto md5 = [](const std::string& text) {
    Md5 m;
    m.update(text.data(), text.size());
    return m.hex_digest();
  };
  EXPECT_EQ(md5(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(md5("The quick brown fox jumps over the lazy dog"), "9e107d9d372bb6826bd81d3542a419d6");
  EXPECT_EQ(md5(std::string(1000000, 'a')), "7707d6ae4e027c70eea2a935c2296f21");
}

TEST(GradSummary, EmptyAndUnsupported) {
  std::vector<float> none;
  GradSummary s = summarize_gradient(view_of(none, DType::kFloat32, {0}), l2({0}), nullptr);
  EXPECT_EQ(s.distribution, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(s.norm, 0);
  std::vector<int32_t> ints{1};
  EXPECT_THROW(summarize_gradient(view_of(ints, DType::kInt32), l2({0}), nullptr), InvalidInput);
}

TEST(GradStepWriter, FilesAsOriginal) {
  const std::string dir = msprobe::test::temp_dir("grad_writer");
  GradProbeConfig c;
  c.grad_level = "L2";
  c.bounds = {-1, 0, 0.5};
  c.bound_labels = {"-1", "0", "0.5"};
  GradStepWriter w(c, dir, 0);
  std::vector<float> a{1.0f, -2.0f, 0.0f, 0.25f, 3.0f, -0.5f};
  GradStepFiles f = w.write_step(3, {"fc.weight"}, {view_of(a, DType::kFloat32, {2, 3})});
  EXPECT_EQ(f.csv_path, dir + "/rank0/grad_summary_3.csv");
  const std::string text = msprobe::test::read_file(f.csv_path);
  EXPECT_EQ(text.substr(0, text.find("\r\n") + 2),
            "\xEF\xBB\xBFparam_name,\"(-inf, -1]\",\"(-1, 0]\",\"(0, 0.5]\",\"(0.5, "
            "inf)\",=0,max,min,norm,shape\r\n");
  check::CsvTable t = check::CsvTable::read_file(f.csv_path);
  ASSERT_EQ(t.num_rows(), 1u);
  EXPECT_EQ(*t.cell(0, 1), "0.16666666666666666");
  EXPECT_EQ(*t.cell(0, 2), "0.3333333333333333");
  EXPECT_EQ(*t.cell(0, 5), "0.16666666666666666");
  EXPECT_EQ(*t.cell(0, 6), "3.0");
  EXPECT_EQ(*t.cell(0, 7), "-2.0");
  EXPECT_EQ(*t.cell(0, 8), "3.783186435699463");
  EXPECT_EQ(*t.cell(0, 9), "[2, 3]");
  NpyFile npy(dir + "/rank0/step3/fc.weight.npy");
  ASSERT_EQ(npy.status(), NpyFile::Status::kOk);
  EXPECT_EQ(npy.descr(), "|b1");
  EXPECT_EQ(npy.shape(), (std::vector<int64_t>{2, 3}));
  const uint8_t* d = static_cast<const uint8_t*>(npy.view().data);
  EXPECT_EQ(std::vector<uint8_t>(d, d + 6), (std::vector<uint8_t>{1, 0, 0, 1, 1, 0}));
  EXPECT_THROW(w.write_step(4, {"../x"}, {view_of(a, DType::kFloat32)}), InvalidInput);
  c.grad_level = "L0";
  EXPECT_EQ(GradStepWriter(c, dir, 1).header(),
            (std::vector<std::string>{"param_name", "MD5", "max", "min", "norm", "shape"}));
}

TEST(GradStepWriter, LargeStepsInParallelKeepTheOrder) {
  const std::string dir = msprobe::test::temp_dir("grad_parallel");
  GradProbeConfig c;
  c.grad_level = "L1";
  GradStepWriter w(c, dir, 0);
  std::vector<std::vector<float>> data;
  std::vector<std::string> names;
  std::vector<TensorView> views;
  for (int i = 0; i < 6; ++i) data.emplace_back(300000, (float)(i + 1));
  for (int i = 0; i < 6; ++i) {
    names.push_back("p" + std::to_string(i));
    views.push_back(view_of(data[i], DType::kFloat32));
  }
  GradStepFiles f = w.write_step(0, names, views);
  EXPECT_EQ(f.rows, 6);
  EXPECT_EQ(f.direction_files, 6);
  check::CsvTable t = check::CsvTable::read_file(f.csv_path);
  ASSERT_EQ(t.num_rows(), 6u);
  for (size_t r = 0; r < 6; ++r) {
    EXPECT_EQ(*t.cell(r, 0), names[r]);
    EXPECT_EQ(std::string(*t.cell(r, 1)), py_float_repr((double)(r + 1)));
  }
  // An error in one gradient (here: an integer dtype) is the step's error.
  std::vector<int32_t> ints(300000, 1);
  views[3] = view_of(ints, DType::kInt32);
  EXPECT_THROW(w.write_step(1, names, views), InvalidInput);
}

TEST(GradCompare, SimilaritiesAndFirstDivergence) {
  const std::string root = msprobe::test::temp_dir("grad_cmp");
  GradProbeConfig c;
  c.grad_level = "L1";
  std::vector<float> base{1, -1, 1, -1}, flip2{1, 1, 1, -1}, flip1{-1, -1, 1, -1};
  for (int run = 0; run < 2; ++run) {
    GradStepWriter w(c, root + "/run" + std::to_string(run), 0);
    for (int step = 0; step < 4; ++step) {
      const std::vector<float>& g = run == 1 && step >= 2 ? flip2 : base;
      const std::vector<float>& b = run == 1 && step == 3 ? flip1 : base;
      w.write_step(step, {"w", "b"}, {view_of(g, DType::kFloat32), view_of(b, DType::kFloat32)});
    }
  }
  GradCompareOutput out = run_grad_compare(root + "/run0/rank0", root + "/run1/rank0", root + "/out/rank0");
  const GradSimilarities& s = out.similarities;
  EXPECT_EQ(s.steps, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(s.names, (std::vector<std::string>{"w", "b", "summary"}));
  EXPECT_EQ(s.values[0], (std::vector<double>{1, 1, 0.75, 0.75}));
  EXPECT_EQ(s.values[1], (std::vector<double>{1, 1, 1, 0.75}));
  EXPECT_EQ(s.values[2], (std::vector<double>{1, 1, 0.875, 0.75}));
  EXPECT_EQ(msprobe::test::read_file(out.csv_path),
            "\xEF\xBB\xBFstep,0,1,2,3\r\nw,1.0,1.0,0.75,0.75\r\nb,1.0,1.0,1.0,0.75\r\nsummary,1.0,1.0,0.875,"
            "0.75\r\n");
  ASSERT_TRUE(out.divergence.found);
  EXPECT_EQ(out.divergence.step, 2);
  ASSERT_EQ(out.divergence.params.size(), 1u);
  EXPECT_EQ(out.divergence.params[0].name, "w");
  EXPECT_NE(out.line.find("step 2: w 0.7500 (was 1.0000)"), std::string::npos) << out.line;
  EXPECT_NE(msprobe::test::read_file(out.json_path).find("\"first_divergent_step\": 2"), std::string::npos);
  try {
    compare_rank_dirs(root + "/run0/rank0", root + "/out");
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_STREQ(e.what(), "no matched steps for comparison, please dump data in same configuration");
  }
  EXPECT_EQ(matched_numbered_dirs(root + "/run0", root + "/run1", "rank"), (std::vector<int64_t>{0}));
  EXPECT_THROW(matched_numbered_dirs(root + "/run0", root + "/none", "rank"), FileError);

  // The csv reads back as it was computed, and the page shows the divergence.
  GradSimilarities back = read_similarities_csv(out.csv_path);
  EXPECT_EQ(back.steps, s.steps);
  EXPECT_EQ(back.names, s.names);
  EXPECT_EQ(back.values, s.values);
  EXPECT_TRUE(report::is_grad_compare_output(root + "/out"));
  EXPECT_FALSE(report::is_grad_compare_output(root + "/run0"));
  const std::string page = report::render_grad_report(root + "/out");
  EXPECT_NE(page.find("<h2>rank0</h2>"), std::string::npos);
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_NE(page.find("gradient directions part first at step 2: w 0.7500 (was 1.0000)"), std::string::npos);
  EXPECT_THROW(report::render_grad_report(root + "/run0"), InvalidInput);
}

}  // namespace
