// msprobe repair: dump.json, stack.json and construct.json (1.2.1's and ours, PyTorch and MindSpore)
// cut at every byte and repaired must parse with the strict parser and hold exactly the records
// that were complete before the cut. The oracle finds record ends in the complete file's text,
// independently of the reader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "json_canon.h"
#include "msprobe/dump/async_writer.h"
#include "msprobe/dump/dump_repair.h"
#include "msprobe/format/json_value.h"
#include "test_files.h"

namespace fs = std::filesystem;

namespace msprobe {
namespace {

using test::canon;
using test::fixture;
using test::read_file;
using test::write_file;

// Every cut is written and repaired (renamed over): on tmpfs when there is one, as ext4 starts
// writeback at each rename over a file.
fs::path scratch(const std::string& what) {
  std::error_code ec;
  const fs::path base = fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0
                            ? fs::path("/dev/shm")
                            : fs::temp_directory_path();
  return base / ("msprobe_repair_" + what + "_" + std::to_string(::getpid()));
}

struct Record {
  std::string key, value;
  size_t end;  // offset just after the record's text in the complete file
};

// The members of an indent=1 object at `depth` (1: the top level, 2: dump.json's "data"), with
// where each ends: before the ",\n<indent>\"<next key>\"" of the next one, or before the object's
// closing line. A few spaces may precede the comma or the closing (our writer's page padding).
std::vector<Record> records_of(const std::string& text, const JsonValue::Object& members, int depth,
                               size_t from) {
  std::vector<Record> out;
  const std::string indent(depth, ' ');
  size_t search = from;
  for (size_t k = 0; k < members.size(); ++k) {
    size_t end;
    if (k + 1 < members.size()) {
      end = text.find(",\n" + indent + "\"" + members[k + 1].first + "\": ", search);
    } else {
      end = text.find("\n" + std::string(depth - 1, ' ') + "}", search);
    }
    EXPECT_NE(end, std::string::npos) << members[k].first;
    search = end + 1;
    while (text[end - 1] == ' ') --end;
    out.push_back({members[k].first, canon(members[k].second), end});
  }
  return out;
}

// Cuts `full` (a file named `name`) at every byte (or every `stride` bytes), repairs each cut and
// checks the result. Counts in *rewritten how many cuts were rewritten.
void check_cuts(const std::string& name, const std::string& full, size_t stride, size_t* rewritten) {
  const JsonValue doc = parse_json(full, name);
  const bool dump = name == "dump.json";
  const JsonValue::Object& top = doc.as_object();
  std::vector<Record> header, records;
  if (dump) {
    header = records_of(full, top, 1, 0);
    header.pop_back();  // "data", the last key
    records = records_of(full, doc.find("data")->as_object(), 2, full.find("\"data\": {"));
  } else {
    records = records_of(full, top, 1, 0);
  }
  const fs::path dir = scratch("cuts");
  fs::create_directories(dir);
  const std::string path = (dir / name).string();
  *rewritten = 0;
  for (size_t cut = 0; cut <= full.size(); cut += stride) {
    write_file(path, std::string_view(full).substr(0, cut));
    const RepairResult r = repair_dump_file(path, /*durable=*/false);
    ASSERT_NE(r.action, RepairResult::Action::kFailed) << name << " cut at " << cut << ": " << r.message;
    if (r.action == RepairResult::Action::kRewritten) {
      ++*rewritten;
      EXPECT_EQ(r.message.find('\n'), std::string::npos);
      EXPECT_NE(r.message.find(path), std::string::npos);
    }
    const std::string text = read_file(path);
    JsonValue fixed;
    try {
      fixed = parse_json(text, path);
    } catch (const std::exception& e) {
      FAIL() << name << " cut at " << cut << ": not JSON after repair: " << e.what();
    }
    const JsonValue::Object* kept = &fixed.as_object();
    if (dump) {
      for (const Record& h : header) {
        const JsonValue* v = fixed.find(h.key);
        if (h.end <= cut) {
          ASSERT_NE(v, nullptr) << name << " cut at " << cut << ": lost " << h.key;
          EXPECT_EQ(canon(*v), h.value);
        }
      }
      ASSERT_NE(fixed.find("data"), nullptr) << name << " cut at " << cut;
      kept = &fixed.find("data")->as_object();
    }
    size_t expected = 0;
    while (expected < records.size() && records[expected].end <= cut) ++expected;
    ASSERT_EQ(kept->size(), expected) << name << " cut at " << cut;
    for (size_t k = 0; k < expected; ++k) {
      ASSERT_EQ((*kept)[k].first, records[k].key) << name << " cut at " << cut;
      ASSERT_EQ(canon((*kept)[k].second), records[k].value) << name << " cut at " << cut;
    }
  }
  fs::remove_all(dir);
}

size_t check_every_cut(const std::string& name, const std::string& full, size_t stride = 1) {
  size_t rewritten = 0;
  check_cuts(name, full, stride, &rewritten);
  return rewritten;
}

TEST(DumpRepair, OriginalPyTorchDumpCutAtEveryByte) {
  const std::string d = "/tests/fixtures/original_1.2.1/L0_statistics/step0/rank/";
  for (const char* name : {"dump.json", "stack.json", "construct.json"}) {
    const std::string full = fixture(d + name);
    EXPECT_EQ(check_every_cut(name, full), full.size()) << name;  // every cut but the whole file
  }
}

TEST(DumpRepair, OriginalMindSporeDumpCutAtEveryByte) {
  const std::string d = "/tests/fixtures/original_1.2.1_mindspore/L0_statistics/step0/rank/";
  for (const char* name : {"dump.json", "stack.json", "construct.json"}) {
    const std::string full = fixture(d + name);
    EXPECT_EQ(check_every_cut(name, full), full.size()) << name;
  }
}

TEST(DumpRepair, LargeDumpCutAtSpreadOffsets) {
  const std::string full = fixture("/tests/fixtures/original_1.2.1/mix_tensor/step0/rank/dump.json");
  EXPECT_GT(check_every_cut("dump.json", full, 97), 100u);
}

// A dump.json written by our writer: members of all sizes (some padded before the closing text),
// closed, then cut at every byte.
TEST(DumpRepair, OurWriterFileCutAtEveryByte) {
  const fs::path dir = scratch("ours");
  fs::create_directories(dir);
  const std::string path = (dir / "dump.json").string();
  {
    AsyncWriter w(1 << 20);
    const int id = w.open_object_file(
        path, "{\n \"task\": \"statistics\",\n \"level\": \"L1\",\n \"data\": {", "\n}", 2);
    for (int i = 0; i < 14; ++i) {
      w.append_member(id, "\"Torch.x." + std::to_string(i) + ".forward\": {\n   \"pad\": \"" +
                              std::string(20 + 67 * i, 'a' + i) + "\"\n  }");
      if (i % 3 == 0) w.flush();  // several writes, at varying offsets
    }
    w.close_object_file(id);
    w.flush();
  }
  const std::string full = read_file(path);
  fs::remove_all(dir);
  EXPECT_EQ(check_every_cut("dump.json", full), full.size());
}

TEST(DumpRepair, CompleteFileWithBlankTailIsTrimmedNotRewritten) {
  const fs::path dir = scratch("tail");
  fs::create_directories(dir / "step0" / "rank");
  const std::string path = (dir / "step0" / "rank" / "construct.json").string();
  write_file(path, std::string("{\n \"a\": null\n}") + std::string(70000, ' ') + std::string(8, '\0'));
  write_file((dir / "step0" / "rank" / ".dump.json.999999999.msprobe-tmp").string(), "{");
  RepairOptions quick;
  quick.quick = true;
  const auto results = repair_dump_tree(dir.string(), quick);
  ASSERT_EQ(results.size(), 2u);
  int trimmed = 0, removed = 0;
  for (const auto& r : results) {
    trimmed += r.action == RepairResult::Action::kTrimmed;
    removed += r.action == RepairResult::Action::kRemoved;
  }
  EXPECT_EQ(trimmed, 1);
  EXPECT_EQ(removed, 1);
  EXPECT_EQ(read_file(path), "{\n \"a\": null\n}");
  EXPECT_TRUE(repair_dump_tree(dir.string(), quick).empty());  // nothing left to do
  fs::remove_all(dir);
}

TEST(DumpRepair, MalformedFileIsReportedAndLeftAlone) {
  const fs::path dir = scratch("bad");
  fs::create_directories(dir);
  const std::string path = (dir / "stack.json").string();
  const std::string bad = "{\n \"a\": [\"x\"],\n \"b\": [\"y\" \"z\"]\n}";
  write_file(path, bad);
  const RepairResult r = repair_dump_file(path);
  EXPECT_EQ(r.action, RepairResult::Action::kFailed);
  EXPECT_NE(r.message.find("stack.json"), std::string::npos);
  EXPECT_EQ(read_file(path), bad);
  fs::remove_all(dir);
}

TEST(DumpRepair, QuickTreeRepairOnlyTouchesItsRankFolder) {
  const fs::path dir = scratch("rank");
  for (const char* rank : {"rank0", "rank1"}) {
    fs::create_directories(dir / "step0" / rank);
    write_file((dir / "step0" / rank / "construct.json").string(), "{\n \"a\": null,\n \"b\": \"a");
  }
  RepairOptions opt;
  opt.quick = true;
  opt.rank_folder = "rank1";
  const auto results = repair_dump_tree(dir.string(), opt);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].action, RepairResult::Action::kRewritten);
  EXPECT_EQ(read_file((dir / "step0" / "rank1" / "construct.json").string()), "{\n \"a\": null\n}");
  EXPECT_EQ(read_file((dir / "step0" / "rank0" / "construct.json").string()),
            "{\n \"a\": null,\n \"b\": \"a");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace msprobe
