// Every input a fuzzer found a problem with (cpp/fuzz/regressions/<target>/) is replayed through
// that target's body, and what it showed is checked here; under scripts/sanitize.sh these run with
// AddressSanitizer and UndefinedBehaviorSanitizer, like the fuzzers.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../fuzz/fuzz_targets.h"
#include "test_files.h"

namespace fs = std::filesystem;

namespace msprobe {
namespace {

const fs::path kRegressions = fs::path(msprobe::test::source_dir()) / "cpp" / "fuzz" / "regressions";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(FuzzRegressions, EveryFindingReplaysCleanly) {
  const std::map<std::string, void (*)(const uint8_t*, size_t)> targets = {
      {"json", msprobe_fuzz::json},
      {"config", msprobe_fuzz::config},
      {"npy", msprobe_fuzz::npy},
      {"pt", msprobe_fuzz::pt},
      {"csv", msprobe_fuzz::csv},
      {"runut_resume", msprobe_fuzz::runut_resume},
      {"precision_compare", msprobe_fuzz::precision_compare},
      {"kernel_stat", msprobe_fuzz::kernel_stat},
      {"dump_json", msprobe_fuzz::dump_json},
      {"xlsx", msprobe_fuzz::xlsx},
      {"grad_similarities", msprobe_fuzz::grad_similarities},
      {"monitor", msprobe_fuzz::monitor},
  };
  size_t replayed = 0;
  for (const auto& dir : fs::directory_iterator(kRegressions)) {
    auto it = targets.find(dir.path().filename().string());
    ASSERT_NE(it, targets.end()) << "no fuzz target named " << dir.path().filename();
    for (const auto& input : fs::directory_iterator(dir.path())) {
      const std::string bytes = slurp(input.path());
      SCOPED_TRACE(input.path().string());
      it->second(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  EXPECT_GE(replayed, 2u);
  fs::remove_all(msprobe_fuzz::scratch());
}

// dump_json: a complete dump.json followed by blank space with a stray byte in it. The reader
// reads its entries, but json.load refuses it: repair must say so, not call it intact.
TEST(FuzzRegressions, CompleteDumpJsonWithGarbageAfterItIsReportedNotIntact) {
  const std::string bytes = slurp(kRegressions / "dump_json" / "complete_then_garbage");
  const std::string path = msprobe_fuzz::write_file("dump.json", bytes);
  const RepairResult r = repair_dump_file(path, false);
  EXPECT_EQ(r.action, RepairResult::Action::kFailed);
  EXPECT_NE(r.message.find("end of the file"), std::string::npos) << r.message;
  EXPECT_EQ(slurp(path), bytes);
  fs::remove_all(msprobe_fuzz::scratch());
}

// pt: a .pt whose storage starts at an odd offset of the file: statistics must read the
// elements without assuming alignment (UBSan reported a misaligned float load).
TEST(FuzzRegressions, UnalignedTensorStorageGivesStatistics) {
  const std::string bytes = slurp(kRegressions / "pt" / "unaligned_storage");
  msprobe_fuzz::write_file("x.pt", bytes);
  reader::LoadedTensor t = reader::TensorStore(msprobe_fuzz::scratch()).load("x.pt");
  ASSERT_NE(reinterpret_cast<uintptr_t>(t.view().data) % 4, 0u);  // the case it is about
  const TensorStats s = compute_stats(t.view(), true);
  EXPECT_EQ(s.max.kind, StatValue::Kind::kFloat);
  fs::remove_all(msprobe_fuzz::scratch());
}

// xlsx: a cell of 8 Mi '&' with no ';' (8.5 KB deflated). The entity decoder looked for the ';'
// up to the end of the text from every '&': quadratic, minutes for this file, hours for a larger
// one. The bound is far above the linear time (milliseconds) and far below the quadratic.
TEST(FuzzRegressions, AmpersandsWithoutSemicolonDecodeInLinearTime) {
  const std::string bytes = slurp(kRegressions / "xlsx" / "ampersands_without_semicolon");
  const auto start = std::chrono::steady_clock::now();
  const std::vector<XlsxSheet> sheets = read_xlsx_bytes(bytes, "x.xlsx", true);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(sheets.size(), 1u);
  ASSERT_EQ(sheets[0].rows.size(), 1u);
  ASSERT_EQ(sheets[0].rows[0].size(), 1u);
  EXPECT_EQ(sheets[0].rows[0][0].s, std::string(8u << 20, '&'));
  EXPECT_LT(seconds, 10.0);
}

// Character references and _xHHHH_ escapes of lone surrogates or of no code point at all become
// U+FFFD; an escaped surrogate pair is one character. Before, they gave invalid UTF-8.
TEST(FuzzRegressions, SurrogatesInXlsxTextGiveValidUtf8) {
  const std::vector<XlsxSheet> sheets =
      read_xlsx_bytes(slurp(kRegressions / "xlsx" / "surrogates_in_text"), "x.xlsx", true);
  ASSERT_EQ(sheets.size(), 1u);
  ASSERT_FALSE(sheets[0].rows.empty());
  const std::string fffd = "\xEF\xBF\xBD", grin = "\xF0\x9F\x98\x80";  // U+FFFD, U+1F600
  EXPECT_EQ(sheets[0].rows[0][0].s,
            "a" + fffd + "b" + fffd + "c" + fffd + "d" + grin + "e" + fffd + "f" + grin + "g");
}

// xlsx: the target re-packs each input (fuzz_support.h) so that mutated XML reaches the reader.
// The re-packed seeds must read exactly as the seeds do, or the fuzzer tests something else.
TEST(FuzzRegressions, RepackedXlsxSeedsReadAsTheSeeds) {
  const fs::path seeds = fs::path(msprobe::test::source_dir()) / "cpp" / "fuzz" / "corpus" / "xlsx";
  size_t compared = 0;
  for (const auto& seed : fs::directory_iterator(seeds)) {
    SCOPED_TRACE(seed.path().string());
    const std::string bytes = slurp(seed.path());
    const auto a = read_xlsx_bytes(bytes, "seed");
    const auto b = read_xlsx_bytes(msprobe_fuzz::repack_zip(bytes), "repacked");
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].name, b[i].name);
      ASSERT_EQ(a[i].rows.size(), b[i].rows.size());
      for (size_t r = 0; r < a[i].rows.size(); ++r) {
        ASSERT_EQ(a[i].rows[r].size(), b[i].rows[r].size());
        for (size_t c = 0; c < a[i].rows[r].size(); ++c) {
          const Cell &x = a[i].rows[r][c], &y = b[i].rows[r][c];
          EXPECT_TRUE(x.kind == y.kind && x.s == y.s && (x.d == y.d || (x.d != x.d && y.d != y.d)))
              << "row " << r << " column " << c;
        }
      }
    }
    EXPECT_FALSE(a[0].rows.empty());
    ++compared;
  }
  EXPECT_GE(compared, 4u);
}

}  // namespace
}  // namespace msprobe
