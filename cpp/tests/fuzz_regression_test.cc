// Every input a fuzzer found a problem with (cpp/fuzz/regressions/<target>/) is replayed through
// that target's body, and what it showed is checked here; under scripts/sanitize.sh these run with
// AddressSanitizer and UndefinedBehaviorSanitizer, like the fuzzers.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace msprobe
