// compare's outputs: the xlsx writer (read back with our xlsx reader), the advisor, file names,
// compare.json validation and rank-folder pairing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "msprobe/base/error.h"
#include "msprobe/compare/advisor.h"
#include "msprobe/compare/compare_xlsx.h"
#include "msprobe/format/xlsx_reader.h"
#include "msprobe/format/xlsx_writer.h"
#include "msprobe/jobs/compare_input.h"
#include "msprobe/jobs/compare_output_names.h"

using namespace msprobe;
using namespace msprobe::compare;

namespace {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/msprobe_cmp_out_XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

CompareTable statistics_table() {
  CompareTable t;
  t.mode = CompareMode::kStatistics;
  t.header = {"NPU Name",         "Bench Name",         "NPU Dtype",      "Bench Dtype",
              "NPU Tensor Shape", "Bench Tensor Shape", "Max diff",       "Min diff",
              "Mean diff",        "L2norm diff",        "MaxRelativeErr", "MinRelativeErr",
              "MeanRelativeErr",  "NormRelativeErr",    "NPU max",        "NPU min",
              "NPU mean",         "NPU l2norm",         "Bench max",      "Bench min",
              "Bench mean",       "Bench l2norm",       "Result",         "Err_message"};
  auto row = [](const std::string& name, const std::string& result, double max_diff) {
    std::vector<Cell> r = {Cell::str(name),
                           Cell::str(name),
                           Cell::str("torch.float32"),
                           Cell::str("torch.float32"),
                           Cell::str("[4, 8]"),
                           Cell::str("[4, 8]"),
                           Cell::num(max_diff),
                           Cell::num(0),
                           Cell::num(std::nan("")),
                           Cell::num(INFINITY),
                           Cell::str("14.1%"),
                           Cell::str("N/A"),
                           Cell::str("inf"),
                           Cell::str("0.0%"),
                           Cell::num(1.5),
                           Cell::empty(),
                           Cell::boolean(true),
                           Cell::num(-INFINITY),
                           Cell::num(0.30000000000000004),
                           Cell::num(1e-300),
                           Cell::num(-2),
                           Cell::num(3),
                           Cell::str(result),
                           Cell::str("")};
    return r;
  };
  t.rows.push_back(row("Functional.linear.0.forward.input.0", "", 0.25));
  t.rows.push_back(row("Functional.linear.0.forward.output.0", "Warning", -0.5));
  t.rows.push_back(row("Functional.linear.0.backward.output.0", "Warning", 2));
  t.fills = {Fill::kNone, Fill::kRed, Fill::kYellow};
  return t;
}

}  // namespace

TEST(CompareOutputNames, MatchOriginalPatterns) {
  EXPECT_EQ(compare_result_file_name("", "20250102030405"), "compare_result_20250102030405.xlsx");
  EXPECT_EQ(compare_result_file_name(rank_pair_suffix("rank0", "rank3"), "20250102030405"),
            "compare_result_rank0-rank3_20250102030405.xlsx");
  EXPECT_EQ(advisor_file_name("_rank-rank", "20250102030405"), "advisor_rank-rank_20250102030405.txt");
  EXPECT_EQ(merge_result_file_name("20250102030405"), "multi_ranks_compare_merge_20250102030405.xlsx");
}

TEST(CompareOutputXlsx, RoundTripsCellsAsOriginalWritesThem) {
  TempDir dir;
  const std::string path = dir.file("compare_result_1.xlsx");
  write_compare_xlsx(statistics_table(), path);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  const std::vector<XlsxSheet> sheets = read_xlsx(path);
  ASSERT_EQ(sheets.size(), 1u);
  EXPECT_EQ(sheets[0].name, "Sheet");
  const auto& rows = sheets[0].rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0][0].s, "NPU Name");
  EXPECT_EQ(rows[0][23].s, "Err_message");
  const auto& r = rows[2];
  EXPECT_TRUE(r[6].is_number());
  EXPECT_EQ(r[6].d, -0.5);
  EXPECT_EQ(r[8].s, "nan\t");   // NaN number
  EXPECT_EQ(r[9].s, "inf\t");   // inf number
  EXPECT_EQ(r[12].s, "inf\t");  // the string "inf" too
  EXPECT_EQ(r[15].s, "None");   // None
  EXPECT_EQ(r[16].s, "True");   // bool
  EXPECT_EQ(r[17].s, "-inf\t");
  EXPECT_NEAR(r[18].d, 0.30000000000000004, 1e-16);
  EXPECT_EQ(r[19].d, 1e-300);
  EXPECT_EQ(r[22].s, "Warning");
  EXPECT_TRUE(r.size() < 24 || r[23].is_empty());  // "" -> no cell
}

TEST(CompareOutputXlsx, RefusesSymlinkTargetAndRaggedRows) {
  TempDir dir;
  const std::string target = dir.file("elsewhere.xlsx");
  write_text(target, "x");
  ASSERT_EQ(::symlink(target.c_str(), dir.file("link.xlsx").c_str()), 0);
  EXPECT_THROW(write_compare_xlsx(statistics_table(), dir.file("link.xlsx")), FileError);
  EXPECT_EQ(read_text(target), "x");
  CompareTable bad = statistics_table();
  bad.rows[1].pop_back();
  EXPECT_THROW(write_compare_xlsx(bad, dir.file("bad.xlsx")), InvalidInput);
  EXPECT_NE(::access(dir.file("bad.xlsx").c_str(), F_OK), 0);
}

TEST(CompareOutputXlsx, PandasSheetsKeepOrderAndBlanks) {
  TempDir dir;
  PlainSheet a{"Max diff",
               {"NPU Name", "rank0", "rank1"},
               {{Cell::str("x.0.forward.output.0"), Cell::num(1.25), Cell::empty()},
                {Cell::str("x.1.forward.output.0"), Cell::str("0.5%"), Cell::num(-3)}}};
  PlainSheet b{"NormRelativeErr", {"NPU Name", "rank0"}, {{Cell::str("y"), Cell::str("1%")}}};
  write_pandas_xlsx({a, b}, dir.file("m.xlsx"));
  const auto sheets = read_xlsx(dir.file("m.xlsx"));
  ASSERT_EQ(sheets.size(), 2u);
  EXPECT_EQ(sheets[0].name, "Max diff");
  EXPECT_EQ(sheets[1].name, "NormRelativeErr");
  EXPECT_EQ(sheets[0].rows[1][1].d, 1.25);
  EXPECT_TRUE(sheets[0].rows[1].size() == 2 || sheets[0].rows[1][2].is_empty());
  EXPECT_EQ(sheets[0].rows[2][1].s, "0.5%");
  EXPECT_EQ(read_xlsx(dir.file("m.xlsx"), true).size(), 1u);
}

TEST(CompareOutputXlsx, ReaderRejectsNonWorkbooks) {
  TempDir dir;
  write_text(dir.file("not.xlsx"), "plain text, not a zip archive");
  EXPECT_THROW(read_xlsx(dir.file("not.xlsx")), FileError);
  EXPECT_THROW(read_xlsx(dir.file("missing.xlsx")), FileError);
}

TEST(CompareOutputAdvisor, FirstWarningRowOfStatistics) {
  const CompareTable t = statistics_table();
  const AdvisorResult r = analyze_compare_table(t);
  EXPECT_TRUE(r.found);
  EXPECT_EQ(r.line, "1");
  EXPECT_EQ(r.suspect_node, "Functional.linear.0.forward.output.0");
  EXPECT_EQ(r.message, "This is a forward API computation error. Check the computation implementation.");
  const auto lines = advisor_lines(r);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "Line: 1");
  EXPECT_EQ(lines[1], "Suspect Nodes: Functional.linear.0.forward.output.0");
}

TEST(CompareOutputAdvisor, MessagesFollowOriginalRules) {
  EXPECT_EQ(advisor_message("Functional.conv2d.0.forward.output.0"),
            "This torch api may be uncertainty in the calculation, can seed_all(mode=True) to enable "
            "deterministic computing.");
  EXPECT_EQ(advisor_message("Functional.relu.0.backward.input.0"),
            "Check whether the forward computation result is affected.");
  EXPECT_EQ(advisor_message("Torch.matmul.0.backward.output.0").substr(0, 22), "This torch api may be ");
  EXPECT_EQ(advisor_message("Functional.relu.0.backward.output.0"),
            "This is a backward API computation error. Check the computation implementation.");
  EXPECT_EQ(advisor_message("Functional.relu.0.forward.input.0").substr(0, 47),
            "1. Analyze the model to view the input source.\n");
}

TEST(CompareOutputAdvisor, NoFailingRowAndTensorAndMd5Modes) {
  CompareTable t = statistics_table();
  for (auto& row : t.rows) row[22] = Cell::str("");
  t.fills.assign(t.rows.size(), Fill::kNone);
  AdvisorResult r = analyze_compare_table(t);
  EXPECT_FALSE(r.found);
  EXPECT_EQ(advisor_lines(r)[0], "Line: NA");
  EXPECT_EQ(advisor_lines(r)[2],
            "Expert Advice: All data in comparison result meets the accuracy requirements.");

  CompareTable md5;
  md5.header = {"NPU Name",           "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape",
                "Bench Tensor Shape", "NPU MD5",    "BENCH MD5", "Result"};
  md5.rows = {{Cell::str("a.0.forward.input.0"), Cell::str("Nan"), Cell::str("t"), Cell::str("Nan"),
               Cell::str("[1]"), Cell::str("Nan"), Cell::str("x"), Cell::str("Nan"), Cell::str("Nan")},
              {Cell::str("a.0.forward.output.0"), Cell::str("b"), Cell::str("t"), Cell::str("t"),
               Cell::str("[1]"), Cell::str("[1]"), Cell::str("1"), Cell::str("2"), Cell::str("Different")}};
  r = analyze_compare_table(md5);
  EXPECT_EQ(r.line, "1");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "The tensor name matches but the shape or dtype does not match: a.0.forward.input.0");

  CompareTable bad;
  bad.header = {"NPU Name", "Whatever"};
  EXPECT_THROW(analyze_compare_table(bad), InvalidInput);
}

TEST(CompareOutputAdvisor, FirstDivergenceLineAndFile) {
  TempDir dir;
  AdvisorResult r = analyze_compare_table(statistics_table());
  r.first_divergence = "Functional.linear.0.forward";
  write_advisor_file(r, dir.file("advisor_1.txt"));
  const std::string text = read_text(dir.file("advisor_1.txt"));
  EXPECT_EQ(text.substr(0, 8), "Line: 1\n");
  EXPECT_NE(text.find("\nFirst Divergence: Functional.linear.0.forward\n"), std::string::npos);
  struct stat st;
  ASSERT_EQ(::stat(dir.file("advisor_1.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(CompareOutputInput, CompareJsonValidation) {
  TempDir dir;
  const std::string p = dir.file("compare.json");
  write_text(p, R"({"npu_path": "a/dump.json", "bench_path": "b/dump.json", "is_print_compare_log": false})");
  CompareJson c = load_compare_json(p);
  EXPECT_EQ(c.npu_path, "a/dump.json");
  EXPECT_FALSE(c.has_stack_path);
  EXPECT_FALSE(c.is_print_compare_log);

  write_text(p, R"({"npu_path": "a", "bench_path": "b", "stack_pth": "s"})");
  try {
    load_compare_json(p);
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key \"stack_pth\""), std::string::npos) << e.what();
  }
  write_text(p, R"({"npu_path": "a", "bench_path": "b", "is_print_compare_log": "yes"})");
  EXPECT_THROW(load_compare_json(p), InvalidInput);
  write_text(p, R"({"npu_path": 3, "bench_path": "b"})");
  EXPECT_THROW(load_compare_json(p), InvalidInput);
  write_text(p, R"({"bench_path": "b"})");
  try {
    load_compare_json(p);
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_EQ(std::string(e.what()), "Missing npu_path in configuration file " + p + ", please check!");
  }
  write_text(p, R"({"npu_path": "a", )");
  EXPECT_THROW(load_compare_json(p), FileError);
  EXPECT_THROW(load_compare_json(dir.file("absent.json")), FileError);
}

TEST(CompareOutputInput, PairsRankFoldersByPosition) {
  TempDir dir;
  for (const char* side : {"npu", "bench"}) {
    ::mkdir(dir.file(side).c_str(), 0755);
    for (const char* r : {"rank0", "rank1", "rank10", "rank2"}) {
      const std::string rd = dir.file(std::string(side) + "/" + r);
      ::mkdir(rd.c_str(), 0755);
      if (!(std::string(side) == "bench" && std::string(r) == "rank2")) write_text(rd + "/dump.json", "{}");
    }
  }
  const auto pairs = pair_rank_dirs(dir.file("npu"), dir.file("bench"));
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_EQ(pairs[2].npu_rank, "rank10");  // 1.2.1 sorts the names as strings
  EXPECT_EQ(pairs[2].suffix, "_rank10-rank10");
  EXPECT_TRUE(pairs[0].error.empty());
  EXPECT_EQ(pairs[3].error, "dump.json is not found in dump dir " + dir.file("bench/rank2") + ".");

  ::mkdir(dir.file("bench/rank3").c_str(), 0755);
  EXPECT_THROW(pair_rank_dirs(dir.file("npu"), dir.file("bench")), InvalidInput);
  ::mkdir(dir.file("npu/stray").c_str(), 0755);
  try {
    pair_rank_dirs(dir.file("npu"), dir.file("bench"));
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("dump_dir contains 'stray'"), std::string::npos);
  }
}

// Untrusted workbooks: every prefix of a real workbook and many corrupted copies either read or
// raise FileError; nothing crashes, hangs or allocates without bound.
TEST(CompareOutputXlsx, ReaderSurvivesCutAndCorruptedFiles) {
  TempDir dir;
  const std::string good = dir.file("good.xlsx");
  write_compare_xlsx(statistics_table(), good);
  const std::string bytes = read_text(good);
  ASSERT_GT(bytes.size(), 1000u);
  auto attempt = [&](const std::string& content) {
    try {
      read_xlsx_bytes(content, "probe.xlsx");
    } catch (const FileError&) {
    }
  };
  for (size_t cut = 0; cut < bytes.size(); ++cut) attempt(bytes.substr(0, cut));
  uint32_t seed = 12345;
  for (int i = 0; i < 5000; ++i) {
    std::string c = bytes;
    for (int k = 0; k < 4; ++k) {
      seed = seed * 1664525u + 1013904223u;
      // Bias towards the central directory at the end, where offsets and sizes live.
      const size_t at = (k % 2 == 0) ? c.size() - 1 - (seed >> 8) % std::min<size_t>(c.size(), 400)
                                     : (seed >> 8) % c.size();
      c[at] = (char)(seed >> 24);
    }
    attempt(c);
  }
}
