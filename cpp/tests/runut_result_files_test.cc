// run_ut's CSV files: exact bytes, append per API, resume repair, reorder, HF32 rounding.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "msprobe/base/error.h"
#include "msprobe/jobs/run_ut_result_files.h"
#include "msprobe/runut/api_result.h"
#include "msprobe/runut/input_rules.h"

namespace msprobe {
namespace runut {
namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/runut_files_XXXXXX";
    path = ::mkdtemp(t);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string file(const std::string& n) const { return path + "/" + n; }
};

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void spit(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

const char kBom[] = "\xEF\xBB\xBF";
const std::string kResultHeader =
    std::string(kBom) + "API name,Forward Test Success,Backward Test Success,Message\r\n";

TensorView f32(const std::vector<float>& v, std::vector<int64_t> shape) {
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kFloat32;
  t.shape = std::move(shape);
  return t;
}

TEST(RunutApiResult, SkipRowsAsOriginal) {
  ApiResult r("Distributed.all_reduce.0");
  r.skip("API Distributed.all_reduce.0 not support for run ut. SKIP.");
  EXPECT_EQ(r.forward_status(), Status::kSkip);
  EXPECT_EQ(r.backward_status(), Status::kSkip);
  std::string d, res;
  r.append_details_csv(d);
  r.append_result_csv(res);
  EXPECT_EQ(
      res,
      "Distributed.all_reduce.0,SKIP,SKIP,API Distributed.all_reduce.0 not support for run ut. SKIP.\r\n");
  std::string blanks;
  for (int i = 0; i < 20; ++i) blanks += " ,";
  EXPECT_EQ(d, "Distributed.all_reduce.0.forward.output.0," + blanks +
                   "SKIP,API Distributed.all_reduce.0 not support for run ut. SKIP.\r\n");
}

TEST(RunutApiResult, TensorRowsAndStatuses) {
  std::vector<float> b{1, 2, 3, 4}, d{1, 2, 3, 4};
  ApiResult r("Torch.relu.0");
  r.add_tensor(false, "relu", f32(b, {2, 2}), f32(d, {2, 2}));
  EXPECT_EQ(r.forward_status(), Status::kPass);
  EXPECT_EQ(r.backward_status(), Status::kBlank);
  EXPECT_EQ(r.result_fields(), (std::vector<std::string>{"Torch.relu.0", "pass", " "}));
  std::string details;
  r.append_details_csv(details);
  EXPECT_EQ(details.rfind("Torch.relu.0.forward.output.0,torch.float32,torch.float32,\"(2, 2)\",", 0), 0u);
  // Backward: a None gradient is a SKIP row that does not change the status.
  r.add_message_row(true, Status::kSkip, "Bench output is None, skip this test.");
  r.add_tensor(true, "relu", f32(b, {4}), f32(d, {4}));
  EXPECT_EQ(r.backward_status(), Status::kPass);
  EXPECT_EQ(r.num_rows(true), 2u);
  // A backward message replaces the backward rows and makes Backward SKIP with the message.
  r.set_backward_message("Multiple backward is not supported.");
  EXPECT_EQ(r.result_fields(), (std::vector<std::string>{"Torch.relu.0", "pass", "SKIP",
                                                         "Multiple backward is not supported."}));
  // A builtin output.
  ApiResult s("Tensor.size.0");
  s.add_builtin(false, "<class 'int'>", "<class 'int'>", true);
  s.add_builtin(false, "<class 'int'>", "<class 'int'>", false);
  EXPECT_EQ(s.forward_status(), Status::kError);
  std::string sd;
  s.append_details_csv(sd);
  EXPECT_NE(sd.find("Tensor.size.0.forward.output.0,<class 'int'>,<class 'int'>, , , , , , ,0,"),
            std::string::npos);
}

TEST(RunutApiResult, AnyErrorWinsOverALaterWarning) {
  ApiResult r("Torch.x.0");
  r.add_message_row(false, Status::kError, "a");
  check::OutputCompareResult w;
  w.status = Status::kWarning;
  r.add_compare(false, w);
  EXPECT_EQ(r.forward_status(), Status::kError);
}

TEST(RunutApiResult, DropoutHasNoRows) {
  std::vector<float> b(200, 1.0f), d(200, 1.0f);
  for (int i = 0; i < 100; ++i) b[i] = 0;
  for (int i = 0; i < 95; ++i) d[i] = 0;
  ApiResult r("Functional.dropout.0");
  r.add_dropout(false, f32(b, {200}), f32(d, {200}));
  EXPECT_EQ(r.forward_status(), Status::kPass);
  std::string details;
  r.append_details_csv(details);
  EXPECT_EQ(details, "");
  for (int i = 0; i < 100; ++i) d[i] = 1;  // 100 vs 0 zeros: error
  ApiResult e("Functional.dropout.1");
  e.add_dropout(false, f32(b, {200}), f32(d, {200}));
  EXPECT_EQ(e.forward_status(), Status::kError);
}

TEST(RunutResultFiles, WriterCreatesHeadersAndAppends) {
  TempDir dir;
  const std::string r = dir.file("accuracy_checking_result_20250101000000.csv");
  const std::string d = dir.file("accuracy_checking_details_20250101000000.csv");
  {
    ResultWriter w(r, d);
    ApiResult a("Torch.a.0");
    a.skip("why, \"quoted\"\nsecond line");
    w.write(a);
  }
  {
    ResultWriter w(r, d);  // reopening appends, no second header
    ApiResult b("Torch.b.0");
    b.skip("x");
    w.write(b);
  }
  EXPECT_EQ(slurp(r), kResultHeader + "Torch.a.0,SKIP,SKIP,\"why, \"\"quoted\"\"\nsecond line\"\r\n" +
                          "Torch.b.0,SKIP,SKIP,x\r\n");
  const std::string details = slurp(d);
  EXPECT_EQ(details.rfind(std::string(kBom) + "API Name,Bench Dtype,DEVICE Dtype,Shape,", 0), 0u);
  struct stat st;
  ASSERT_EQ(::stat(r.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(RunutResultFiles, WriterRefusesLinks) {
  TempDir dir;
  const std::string target = dir.file("target.csv");
  spit(target, "");
  const std::string link = dir.file("accuracy_checking_result_20250101000000.csv");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  EXPECT_THROW(ResultWriter(link, dir.file("d.csv")), FileError);
}

TEST(RunutResultFiles, ResumeDropsUnfinishedApisAndTornRecords) {
  TempDir dir;
  const std::string r = dir.file("accuracy_checking_result_20250101000000.csv");
  const std::string d = dir.file("accuracy_checking_details_20250101000000.csv");
  {
    ResultWriter w(r, d);
    for (const char* n : {"Torch.a.0", "Torch.b.0"}) {
      ApiResult a(n);
      a.skip("multi\nline");
      w.write(a);
    }
  }
  // A crash after the details rows of Torch.c.0 (no result row), with a torn last record, and a
  // repeated result row.
  std::string details = slurp(d);
  ApiResult c("Torch.c.0");
  c.skip("m");
  c.append_details_csv(details);
  details += "Torch.d.0.forward.output.0, , ,\"torn";
  spit(d, details);
  spit(r, slurp(r) + "Torch.a.0,SKIP,SKIP,again\r\nTorch.e");
  ResumeReport rep = prepare_resume(r, d);
  EXPECT_EQ(rep.done, (std::vector<std::string>{"Torch.a.0", "Torch.b.0"}));
  EXPECT_EQ(rep.dropped_detail_rows, 1);
  EXPECT_EQ(rep.dropped_result_rows, 1);
  EXPECT_TRUE(rep.truncated_torn_record);
  const std::string rd = slurp(d);
  EXPECT_EQ(rd.find("Torch.c.0"), std::string::npos);
  EXPECT_EQ(rd.find("Torch.d.0"), std::string::npos);
  EXPECT_NE(rd.find("Torch.b.0.forward.output.0"), std::string::npos);
  EXPECT_EQ(slurp(r),
            kResultHeader + "Torch.a.0,SKIP,SKIP,\"multi\nline\"\r\nTorch.b.0,SKIP,SKIP,\"multi\nline\"\r\n");
  // Idempotent.
  ResumeReport again = prepare_resume(r, d);
  EXPECT_EQ(again.dropped_detail_rows + again.dropped_result_rows, 0);
  EXPECT_FALSE(again.truncated_torn_record);
}

TEST(RunutResultFiles, ResumeRejectsForeignFiles) {
  TempDir dir;
  const std::string r = dir.file("accuracy_checking_result_20250101000000.csv");
  const std::string d = dir.file("accuracy_checking_details_20250101000000.csv");
  spit(r, "a,b\r\n1,2\r\n");
  spit(d, "x\r\n");
  try {
    prepare_resume(r, d);
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("not a run_ut result file"), std::string::npos);
  }
  EXPECT_THROW(prepare_resume(dir.file("missing.csv"), d), FileError);
}

TEST(RunutResultFiles, ReorderFollowsDumpOrder) {
  TempDir dir;
  const std::string r = dir.file("accuracy_checking_result_20250101000000.csv");
  const std::string d = dir.file("accuracy_checking_details_20250101000000.csv");
  {
    ResultWriter w(r, d);
    for (const char* n : {"Torch.c.0", "Torch.a.0", "Torch.b.0"}) {
      ApiResult a(n);
      a.skip(n);
      w.write(a);
    }
  }
  reorder_result_files(r, d, {"Torch.a.0", "Torch.b.0", "Torch.c.0"});
  EXPECT_EQ(slurp(r), kResultHeader + "Torch.a.0,SKIP,SKIP,Torch.a.0\r\nTorch.b.0,SKIP,SKIP,Torch.b.0\r\n" +
                          "Torch.c.0,SKIP,SKIP,Torch.c.0\r\n");
  const std::string details = slurp(d);
  EXPECT_LT(details.find("Torch.a.0.forward"), details.find("Torch.b.0.forward"));
  EXPECT_LT(details.find("Torch.b.0.forward"), details.find("Torch.c.0.forward"));
}

TEST(RunutResultFiles, DetailsRowApi) {
  EXPECT_EQ(details_row_api("Torch.add.0.forward.output.1"), "Torch.add.0");
  EXPECT_EQ(details_row_api("Torch.linalg.norm.0.backward.output.12"), "Torch.linalg.norm.0");
}

TEST(RunutInputRules, Hf32Golden) {
  std::vector<float> v{1.0001f, 0.1f, 3.14159265f, -0.1f, 0.0f};
  round_to_hf32(v.data(), (int64_t)v.size());
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], 0.100006103515625f);
  EXPECT_EQ(v[2], 3.1416015625f);
  EXPECT_EQ(v[3], -0.100006103515625f);
  EXPECT_EQ(v[4], 0.0f);
}

}  // namespace
}  // namespace runut
}  // namespace msprobe
