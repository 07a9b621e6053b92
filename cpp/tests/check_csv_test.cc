// CSV reading/writing and api_precision_compare end to end (small files in a temp folder).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/base/input_file.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/check/csv_table.h"
#include "msprobe/jobs/api_precision_compare.h"
#include "test_files.h"

using namespace msprobe;
using namespace msprobe::check;

namespace {

using msprobe::test::read_file;
using msprobe::test::temp_dir;
using msprobe::test::write_file;

std::string error_of(const std::string& text) {
  try {
    CsvTable::parse(text, "f.csv");
  } catch (const FileError& e) {
    return e.what();
  }
  return "";
}

const char* kHeader =
    "API Name,Bench Dtype,DEVICE Dtype,Shape,余弦相似度,最大绝对误差,双百指标,双千指标,双万指标,"
    "二进制一致错误率,误差均衡性,均方根误差,小值域错误占比,相对误差最大值,相对误差平均值,"
    "inf/nan错误率,相对误差错误率,绝对误差错误率,ULP误差最大值,ULP误差平均值,"
    "ULP误差大于阈值占比,Status,Message\r\n";

// A details row: name, dtype, then the benchmark metrics (small, rmse, max_rel, mean_rel, eb).
std::string bench_row(const std::string& name, const std::string& dtype, const std::string& rmse) {
  return name + ",torch.float32," + dtype + ",\"(2, 2)\",1.0,0.1, , , , ,0.01," + rmse +
         ",0.0,0.01,0.001, , , , , , ,pass,\r\n";
}

}  // namespace

TEST(CheckCsv, ParsesQuotedFieldsBomAndLineEndings) {
  CsvTable t = CsvTable::parse(
      "\xEF\xBB\xBF"
      "a,b,c\r\n"
      "1,\"x, y\",\"say \"\"hi\"\"\"\r\n"
      "\n"
      "2,\"multi\nline\",\r"
      "3\n"
      "4,\"q\"tail,x\"y\n",
      "f.csv");
  ASSERT_EQ(t.header().size(), 3u);
  EXPECT_EQ(t.header()[0], "a");
  ASSERT_EQ(t.num_rows(), 4u);
  EXPECT_EQ(*t.cell(0, 1), "x, y");
  EXPECT_EQ(*t.cell(0, 2), "say \"hi\"");
  EXPECT_EQ(*t.cell(1, 1), "multi\nline");
  EXPECT_EQ(*t.cell(1, 2), "");
  EXPECT_EQ(t.row_line(0), 2);
  EXPECT_EQ(t.row_line(1), 4);
  EXPECT_EQ(t.row_line(2), 6);  // short row: one field
  EXPECT_EQ(t.row_width(2), 1u);
  EXPECT_EQ(t.cell(2, 1), nullptr);
  EXPECT_EQ(*t.cell(3, 1), "qtail");  // text after a closing quote is kept (pandas)
  EXPECT_EQ(*t.cell(3, 2), "x\"y");   // a quote inside an unquoted field is literal
  EXPECT_EQ(t.column("c"), 2);
  EXPECT_EQ(t.column("zz"), -1);
}

TEST(CheckCsv, ErrorsNameFileAndLine) {
  EXPECT_EQ(error_of(""), "f.csv: empty file (no header line)");
  EXPECT_EQ(error_of("a,b\n1,2\n3,\"open\n\n"),
            "f.csv:3: unterminated quoted field (a '\"' opened here is never closed)");
  EXPECT_EQ(error_of("a,b\n1,2\n\n1,2,3\n"), "f.csv:4: expected at most 2 fields (the header's), found 3");
  EXPECT_THROW(CsvTable::read_file("/nonexistent/x.csv"), FileError);
}

TEST(CheckCsv, WriterQuotesLikePythonCsv) {
  std::string out;
  append_csv_row(out, {"a", "b,c", "say \"x\"", "two\nlines", "", " "});
  EXPECT_EQ(out, "a,\"b,c\",\"say \"\"x\"\"\",\"two\nlines\",, \r\n");
  out.clear();
  append_csv_row(out, {""});
  EXPECT_EQ(out, "\"\"\r\n");
}

TEST(CheckApiPrecisionCompare, EndToEnd) {
  const std::string dir = temp_dir("msprobe_check");
  const std::string npu = dir + "/npu.csv", gpu = dir + "/gpu.csv";
  write_file(npu, std::string("\xEF\xBB\xBF") + kHeader +
                      bench_row("Functional.gelu.0.forward.output.0", "torch.float16", "0.004") +
                      bench_row("Functional.gelu.0.backward.output.0", "torch.float16", "0.001") +
                      bench_row("Torch.sum.0.forward.output.0", "torch.float64", "0.1") +
                      bench_row("Torch.only.0.forward.output.0", "torch.float32", "0.1"));
  write_file(gpu, std::string(kHeader) +
                      bench_row("Functional.gelu.0.forward.output.0", "torch.float16", "0.001") +
                      bench_row("Functional.gelu.0.backward.output.0", "torch.float16", "0.001") +
                      bench_row("Torch.sum.0.forward.output.0", "torch.float64", "0.1"));
  PrecisionCompareConfig cfg;
  cfg.npu_csv_path = npu;
  cfg.gpu_csv_path = gpu;
  cfg.result_csv_path = dir + "/result.csv";
  cfg.details_csv_path = dir + "/details.csv";
  PrecisionCompareReport rep = api_precision_compare(cfg);
  EXPECT_EQ(rep.npu_rows, 4);
  EXPECT_EQ(rep.detail_rows, 3);
  EXPECT_EQ(rep.result_rows, 2);
  ASSERT_EQ(rep.warnings.size(), 1u);
  EXPECT_EQ(rep.warnings[0], "This API : Torch.only.0.forward.output.0 does not exist in the GPU data.");
  EXPECT_TRUE(rep.error.empty());
  EXPECT_EQ(read_file(cfg.result_csv_path),
            "\xEF\xBB\xBF"
            "API Name,Forward Test Success,Backward Test Success,Message\r\n"
            "Functional.gelu.0,error,pass,\r\n"
            "Torch.sum.0,SKIP,SKIP,This data type does not support benchmark compare.\r\n");
  const std::string details = read_file(cfg.details_csv_path);
  // rmse ratio 0.004 / 0.001 = 4 > 2 -> error
  EXPECT_NE(details.find("Functional.gelu.0.forward.output.0,0.00000000000000,pass,"
                         "4.00000000000000,error,1.00000000000000,pass,1.00000000000000,pass,"
                         "1.00000000000000,pass, , , , , , , , , , , , , , ,error,标杆比对法,"
                         "\"ERROR: 均方根误差比值超过阈值\n\"\r\n"),
            std::string::npos)
      << details;
  struct stat st;
  ASSERT_EQ(stat(cfg.result_csv_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(CheckApiPrecisionCompare, MissingColumnsIsOneLine) {
  const std::string dir = temp_dir("msprobe_check");
  const std::string npu = dir + "/npu.csv";
  write_file(npu, "API Name,DEVICE Dtype\nx,torch.float32\n");
  PrecisionCompareConfig cfg;
  cfg.npu_csv_path = npu;
  cfg.gpu_csv_path = npu;
  cfg.result_csv_path = dir + "/r.csv";
  cfg.details_csv_path = dir + "/d.csv";
  try {
    api_precision_compare(cfg);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos);
    EXPECT_NE(m.find("missing column(s) 小值域错误占比"), std::string::npos) << m;
  }
  EXPECT_NE(access((dir + "/r.csv").c_str(), F_OK), 0);
}

TEST(CheckApiPrecisionCompare, InputPathChecks) {
  const std::string dir = temp_dir("msprobe_check");
  write_file(dir + "/a.csv", "x\n");
  write_file(dir + "/a.txt", "x\n");
  EXPECT_NO_THROW(check_input_csv_path(dir + "/a.csv", "-npu"));
  EXPECT_THROW(check_input_csv_path(dir + "/a.txt", "-npu"), FileError);
  EXPECT_THROW(check_input_csv_path(dir + "/none.csv", "-npu"), FileError);
  ASSERT_EQ(symlink((dir + "/a.csv").c_str(), (dir + "/l.csv").c_str()), 0);
  EXPECT_THROW(check_input_csv_path(dir + "/l.csv", "-npu"), FileError);
  EXPECT_NO_THROW(prepare_output_dir(dir + "/x/y"));
  struct stat st;
  ASSERT_EQ(stat((dir + "/x/y").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_THROW(prepare_output_dir(dir + "/a.csv"), FileError);
  EXPECT_EQ(timestamp_now().size(), 14u);
}

TEST(CheckApiPrecisionCompare, MutatedInputsNeverCrash) {
  // Random byte edits of a valid pair (quotes, commas, line breaks, truncation, junk): each run
  // either succeeds or throws a one-line FileError / InvalidInput.
  const std::string dir = temp_dir("msprobe_check");
  std::string base = std::string("\xEF\xBB\xBF") + kHeader;
  const char* dtypes[] = {"torch.float16", "torch.bfloat16", "torch.float32",
                          "torch.float64", "torch.int64",    " "};
  const char* apis[] = {"Functional.gelu", "Torch.matmul",   "Torch.mul", "Functional.conv2d",
                        "Torch.abs",       "Torch.test_api", "Torch.topk"};
  for (int i = 0; i < 40; ++i) {
    base += bench_row(std::string(apis[i % 7]) + "." + std::to_string(i / 7) + ".forward.output.0",
                      dtypes[i % 6], i % 5 == 0 ? "inf" : "0.00" + std::to_string(i % 9 + 1));
  }
  const std::string gpu = dir + "/gpu.csv";
  write_file(gpu, base);
  std::mt19937 rng(12345);
  const char edits[] = {'"', ',', '\n', '\r', ' ', 'x', '.', '0', '\0'};
  int ok = 0, rejected = 0;
  for (int round = 0; round < 150; ++round) {
    std::string text = base;
    const int n_edits = 1 + (int)(rng() % 6);
    for (int e = 0; e < n_edits; ++e) {
      const size_t pos = rng() % text.size();
      switch (rng() % 4) {
        case 0: text.insert(text.begin() + pos, edits[rng() % sizeof(edits)]); break;
        case 1: text.erase(pos, 1 + rng() % 8); break;
        case 2: text[pos] = edits[rng() % sizeof(edits)]; break;
        default: text.resize(pos); break;
      }
      if (text.empty()) text = "x";
    }
    const std::string npu = dir + "/npu.csv";
    write_file(npu, text);
    PrecisionCompareConfig cfg;
    cfg.npu_csv_path = npu;
    cfg.gpu_csv_path = (round % 2) ? gpu : npu;
    cfg.result_csv_path = dir + "/r.csv";
    cfg.details_csv_path = dir + "/d.csv";
    try {
      api_precision_compare(cfg);
      ++ok;
    } catch (const FileError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      ++rejected;
    } catch (const InvalidInput& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      ++rejected;
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(rejected, 0);
}
