// run_compare_job end to end on the 1.2.1 statistics fixture: the workbook written on its own
// thread is the one written inline, and a workbook that cannot be written still leaves the other
// outputs.
#include "msprobe/jobs/compare_job.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "msprobe/base/error.h"
#include "msprobe/base/path.h"
#include "msprobe/format/xlsx_reader.h"
#include "test_files.h"

namespace msprobe {
namespace compare {
namespace {

const std::string kCase =
    std::string(msprobe::test::source_dir()) + "/tests/fixtures/compare_1.2.1/pt_L1_statistics";

CompareJob fixture_job(const std::string& out, int threads) {
  CompareJob job;
  job.npu_json = kCase + "/npu/step0/rank/dump.json";
  job.bench_json = kCase + "/bench/step0/rank/dump.json";
  job.output_dir = out;
  job.timestamp = "20260101000000";
  job.threads = threads;
  return job;
}

std::vector<std::vector<Cell>> sheet_rows(const std::string& path) {
  const std::vector<XlsxSheet> sheets = read_xlsx(path);
  EXPECT_EQ(sheets.size(), 1u);
  return sheets.empty() ? std::vector<std::vector<Cell>>{} : sheets[0].rows;
}

TEST(CompareJob, WorkbookOnItsOwnThreadEqualsTheInlineOne) {
  const std::string inline_dir = test::temp_dir("cmpjob_inline");
  const std::string threaded_dir = test::temp_dir("cmpjob_threaded");
  const CompareJobReport a = run_compare_job(fixture_job(inline_dir, 1));
  const CompareJobReport b = run_compare_job(fixture_job(threaded_dir, 0));
  ASSERT_GT(a.rows, 0u);
  EXPECT_EQ(a.rows, b.rows);
  const auto rows = sheet_rows(a.xlsx_path);
  EXPECT_EQ(rows.size(), a.rows + 1);  // the header row
  EXPECT_EQ(rows, sheet_rows(b.xlsx_path));
  // The suspects' next-step files are named by their paths, which hold each output folder.
  auto divergence_of = [](const CompareJobReport& r, const std::string& dir) {
    std::string text = test::read_file(r.divergence_path);
    for (size_t at = text.find(dir); at != std::string::npos; at = text.find(dir, at))
      text.replace(at, dir.size(), "OUT");
    return text;
  };
  EXPECT_EQ(divergence_of(a, inline_dir), divergence_of(b, threaded_dir));
  EXPECT_NE(divergence_of(a, inline_dir).find("OUT/next_steps_20260101000000/"), std::string::npos);
  EXPECT_EQ(test::read_file(a.advisor_path), test::read_file(b.advisor_path));
  EXPECT_TRUE(is_regular_file(b.report_path));
}

TEST(CompareJob, UnwritableWorkbookFailsAfterTheOtherOutputs) {
  for (int threads : {1, 0}) {
    const std::string out = test::temp_dir("cmpjob_blocked");
    // A folder where the workbook should go: the writer refuses it.
    ASSERT_EQ(::mkdir(join_path(out, "compare_result_20260101000000.xlsx").c_str(), 0700), 0);
    try {
      run_compare_job(fixture_job(out, threads));
      FAIL() << "expected a FileError, threads=" << threads;
    } catch (const FileError& e) {
      EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
    }
    if (threads != 1) {
      // Made while the workbook was being written, and kept.
      EXPECT_TRUE(is_regular_file(join_path(out, "divergence_20260101000000.json")));
      EXPECT_TRUE(is_regular_file(join_path(out, "compare_report_20260101000000.html")));
    }
  }
}

}  // namespace
}  // namespace compare
}  // namespace msprobe
