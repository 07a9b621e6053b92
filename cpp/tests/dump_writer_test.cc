// The dump writer and session: files parseable after every write, failure handling, filters.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "msprobe/dump/async_writer.h"
#include "msprobe/dump/dump_session.h"
#include "msprobe/dump/scope_filter.h"
#include "msprobe/format/json_value.h"

namespace fs = std::filesystem;

namespace msprobe {
namespace {

std::string read_file(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path temp_dir(const char* name) {
  fs::path d =
      fs::temp_directory_path() / (std::string("msprobe_test_") + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// While a file is open, spaces follow its closing text (the writer's runway); closing cuts them.
std::string without_runway(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

TEST(AsyncWriter, ObjectFileIsValidJsonAfterEveryFlush) {
  fs::path d = temp_dir("writer");
  AsyncWriter w(1 << 20);
  int id = w.open_object_file((d / "x.json").string(), "{\n \"data\": {", "\n}", 2);
  EXPECT_EQ(read_file((d / "x.json").string()), "{\n \"data\": {}\n}");
  w.append_member(id, "\"a\": 1");
  w.flush();
  EXPECT_EQ(without_runway(read_file((d / "x.json").string())), "{\n \"data\": {\n  \"a\": 1\n }\n}");
  for (int i = 0; i < 100; ++i) w.append_member(id, "\"k" + std::to_string(i) + "\": " + std::to_string(i));
  w.flush();
  JsonValue doc = parse_json_file((d / "x.json").string());
  EXPECT_EQ(doc.find("data")->as_object().size(), 101u);
  w.close_object_file(id);
  w.flush();
  EXPECT_FALSE(w.failed());
  const std::string closed = read_file((d / "x.json").string());
  EXPECT_EQ(closed.substr(closed.size() - 14), "\"k99\": 99\n }\n}");
  fs::remove_all(d);
}

// The closing text never straddles a page boundary, not even right after a long header (a long
// dump_data_dir): a cut at that boundary would leave half of it behind the next member's start.
TEST(AsyncWriter, ClosingTextNeverStraddlesAPageBoundary) {
  fs::path d = temp_dir("straddle");
  AsyncWriter w(1 << 20);
  const std::string head = "{\n \"dump_data_dir\": \"", tail = "\",\n \"data\": {";
  const std::string header = head + std::string(4094 - head.size() - tail.size(), 'x') + tail;
  ASSERT_EQ(header.size(), 4094u);  // "}\n}" would take bytes 4094, 4095 and 4096
  const std::string path = (d / "x.json").string();
  int id = w.open_object_file(path, header, "\n}", 2);
  std::string text = read_file(path);
  EXPECT_EQ(text.find('}', header.size()), 4096u);
  EXPECT_NO_THROW(parse_json(text, path));
  for (int i = 0; i < 200; ++i) {
    w.append_member(id, "\"k" + std::to_string(i) + "\": \"" + std::string(i * 7 % 300, 'v') + "\"");
    w.flush();  // one write each: the closing text lands at many offsets
    text = without_runway(read_file(path));
    const size_t close = text.size() - 5;  // "\n }\n}"
    ASSERT_EQ(close / 4096, (text.size() - 1) / 4096) << "member " << i;
  }
  w.close_object_file(id);
  w.flush();
  EXPECT_EQ(parse_json_file(path).find("data")->as_object().size(), 200u);
  fs::remove_all(d);
}

TEST(AsyncWriter, NoTemporaryFileIsLeftAndAnOldFileIsReplacedWhole) {
  fs::path d = temp_dir("replace");
  std::ofstream(d / "x.json") << "{\"old\": 1}";
  AsyncWriter w(1 << 20);
  int id = w.open_object_file((d / "x.json").string(), "{", "", 1);
  EXPECT_EQ(read_file((d / "x.json").string()), "{}");
  w.close_object_file(id);
  w.flush();
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);
  fs::remove_all(d);
}

TEST(AsyncWriter, ReorderPutsMembersInTheGivenOrderAndAppendingGoesOn) {
  fs::path d = temp_dir("reorder");
  AsyncWriter w(1 << 20);
  int id = w.open_object_file((d / "x.json").string(), "{\n \"data\": {", "\n}", 2, true);
  for (int i = 0; i < 4; ++i) w.append_member(id, "\"k" + std::to_string(i) + "\": " + std::to_string(i));
  w.reorder_object_file(id, {0, 3, 1, 2});
  w.append_member(id, "\"k4\": [\n   4\n  ]");
  w.flush();
  EXPECT_EQ(without_runway(read_file((d / "x.json").string())),
            "{\n \"data\": {\n  \"k0\": 0,\n  \"k3\": 3,\n  \"k1\": 1,\n  \"k2\": 2,\n"
            "  \"k4\": [\n   4\n  ]\n }\n}");
  w.reorder_object_file(id, {4, 0, 1, 2, 3});  // numbers stay those of the appends
  w.close_object_file(id);
  w.flush();
  EXPECT_FALSE(w.failed());
  EXPECT_EQ(read_file((d / "x.json").string()),
            "{\n \"data\": {\n  \"k4\": [\n   4\n  ],\n  \"k0\": 0,\n  \"k1\": 1,\n"
            "  \"k2\": 2,\n  \"k3\": 3\n }\n}");
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);
  fs::remove_all(d);
}

// A new tail (dump.json's "probe_disabled" note) replaces the old one behind the members, stays
// behind members appended later and through a reorder, and a shorter one leaves no old bytes.
TEST(AsyncWriter, SetTailReplacesTheTextAfterTheMembers) {
  fs::path d = temp_dir("tail");
  const std::string path = (d / "x.json").string();
  AsyncWriter w(1 << 20);
  int id = w.open_object_file(path, "{\n \"data\": {", "\n}", 2, true);
  w.append_member(id, "\"a\": 1");
  w.set_tail(id, ",\n \"note\": {\n  \"calls\": 100\n }\n}");
  w.flush();
  EXPECT_EQ(without_runway(read_file(path)),
            "{\n \"data\": {\n  \"a\": 1\n },\n \"note\": {\n  \"calls\": 100\n }\n}");
  w.append_member(id, "\"b\": 2");
  w.set_tail(id, ",\n \"note\": 7\n}");  // shorter than the one it replaces
  w.flush();
  JsonValue doc = parse_json_file(path);
  EXPECT_EQ(doc.find("data")->as_object().size(), 2u);
  EXPECT_EQ(doc.find("note")->as_int(), 7);
  w.reorder_object_file(id, {1, 0});
  w.close_object_file(id);
  w.flush();
  EXPECT_FALSE(w.failed());
  EXPECT_EQ(read_file(path), "{\n \"data\": {\n  \"b\": 2,\n  \"a\": 1\n },\n \"note\": 7\n}");
  fs::remove_all(d);
}

TEST(AsyncWriter, ReorderDropsUnlistedMembersAndIgnoresInvalidOrders) {
  fs::path d = temp_dir("badorder");
  AsyncWriter w(1 << 20);
  int id = w.open_object_file((d / "x.json").string(), "{", "", 1, true);
  w.append_member(id, "\"a\": 1");
  w.append_member(id, "\"b\": 2");
  w.reorder_object_file(id, {1, 1});  // a member twice: ignored
  w.reorder_object_file(id, {2});     // unknown: ignored
  w.reorder_object_file(id, {1});     // "a" dropped
  w.reorder_object_file(id, {0, 1});  // "a" is gone: ignored
  w.close_object_file(id);
  w.flush();
  EXPECT_FALSE(w.failed());
  EXPECT_EQ(read_file((d / "x.json").string()), "{\n \"b\": 2\n}");
  fs::remove_all(d);
}

TEST(AsyncWriter, BackpressureKeepsMemoryBounded) {
  fs::path d = temp_dir("bound");
  AsyncWriter w(4096);
  int id = w.open_object_file((d / "x.json").string(), "{", "", 1);
  for (int i = 0; i < 2000; ++i) {
    w.append_member(id, "\"k" + std::to_string(i) + "\": \"" + std::string(100, 'x') + "\"");
    EXPECT_LE(w.pending_bytes(), 4096u + 200u);
  }
  w.flush();
  EXPECT_EQ(parse_json_file((d / "x.json").string()).as_object().size(), 2000u);
  fs::remove_all(d);
}

TEST(AsyncWriter, FailedWriteKeepsEarlierMembersParseable) {
  fs::path d = temp_dir("full");
  std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit old;
  ::getrlimit(RLIMIT_FSIZE, &old);
  {
    AsyncWriter w(1 << 20);
    int id = w.open_object_file((d / "x.json").string(), "{", "", 1);
    w.append_member(id, "\"small\": 1");
    w.flush();
    struct rlimit lim = {4096, old.rlim_max};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    w.append_member(id, "\"big\": \"" + std::string(10000, 'y') + "\"");
    w.flush();
    ::setrlimit(RLIMIT_FSIZE, &old);
    EXPECT_TRUE(w.failed());
    EXPECT_NE(w.error().find("x.json"), std::string::npos);
    w.append_member(id, "\"after\": 2");  // dropped: the writer has failed
    w.flush();
  }
  JsonValue doc = parse_json_file((d / "x.json").string());
  ASSERT_EQ(doc.as_object().size(), 1u);
  EXPECT_EQ(doc.as_object()[0].first, "small");
  fs::remove_all(d);
}

// Several threads feeding one writer (appends, whole files, flushes) while it writes: every
// member lands exactly once (run under ThreadSanitizer by scripts/sanitize.sh).
TEST(AsyncWriter, ConcurrentProducersAndFlushes) {
  fs::path d = temp_dir("threads");
  {
    AsyncWriter w(1 << 16);  // small: producers also wait for space
    const int a = w.open_object_file((d / "a.json").string(), "{", "", 1, true);
    const int b = w.open_object_file((d / "b.json").string(), "{", "", 1);
    std::vector<std::thread> producers;
    for (int t = 0; t < 4; ++t) {
      producers.emplace_back([&, t] {
        for (int i = 0; i < 300; ++i) {
          const std::string key = "\"t" + std::to_string(t) + "_" + std::to_string(i) + "\": ";
          w.append_member(i % 2 ? a : b, key + "\"" + std::string(i % 97, 'x') + "\"");
          if (i % 50 == 0) w.write_file((d / ("f" + std::to_string(t) + ".bin")).string(), "data");
          if (i % 75 == 0) w.flush();
        }
      });
    }
    for (auto& p : producers) p.join();
    w.close_object_file(a);
    w.close_object_file(b);
    w.flush();
    EXPECT_FALSE(w.failed());
  }
  EXPECT_EQ(parse_json_file((d / "a.json").string()).as_object().size(), 600u);
  EXPECT_EQ(parse_json_file((d / "b.json").string()).as_object().size(), 600u);
  fs::remove_all(d);
}

TEST(ScopeFilter, ApiRangeEndContributesInputsOnly) {
  ScopeFilter f({"A.x.0.forward", "A.y.0.forward"}, {}, "L1");
  EXPECT_FALSE(f.check("A.w.0.forward"));
  EXPECT_TRUE(f.check("A.x.0.forward"));  // inputs
  EXPECT_TRUE(f.check("A.x.0.forward"));  // outputs
  EXPECT_TRUE(f.check("A.z.0.forward"));
  EXPECT_TRUE(f.check("A.y.0.forward"));   // inputs of the end API
  EXPECT_FALSE(f.check("A.y.0.forward"));  // its outputs
  EXPECT_FALSE(f.check("A.z.1.forward"));
}

TEST(ScopeFilter, ModuleRangeAndMixList) {
  ScopeFilter r({"Module.a.L.forward.0", "Module.b.L.forward.0"}, {}, "L0");
  EXPECT_FALSE(r.check("Module.z.L.forward.0"));
  r.begin_module("Module.a.L.forward.0");
  EXPECT_TRUE(r.check("Module.a.L.forward.0"));
  r.begin_module("Module.b.L.forward.0");
  EXPECT_TRUE(r.check("Module.b.L.forward.0"));
  r.end_module("Module.b.L.forward.0");
  EXPECT_FALSE(r.check("Module.c.L.forward.0"));

  ScopeFilter mix({}, {"Module.blk"}, "mix");
  EXPECT_FALSE(mix.check("Functional.relu.0.forward"));
  mix.begin_module("Module.blk.Block.forward.0");
  EXPECT_TRUE(mix.check("Functional.relu.1.forward"));  // everything inside the listed module
  mix.end_module("Module.blk.Block.forward.0");
  EXPECT_FALSE(mix.check("Functional.relu.2.forward"));
}

TEST(DataModeFilter, Combinations) {
  DataModeFilter all({"all"});
  EXPECT_TRUE(all.allows(true, true) && all.allows(false, false));
  DataModeFilter fi({"forward", "input"});
  EXPECT_TRUE(fi.allows(true, true));
  EXPECT_FALSE(fi.allows(true, false));
  EXPECT_FALSE(fi.allows(false, true));
  DataModeFilter in({"input"});
  EXPECT_TRUE(in.allows(true, true) && in.allows(false, true));
  EXPECT_FALSE(in.allows(true, false));
}

TEST(DumpSession, StepAndRankSelection) {
  fs::path d = temp_dir("session");
  DumpConfig cfg;
  cfg.dump_path = d.string();
  cfg.step = {1, 2};
  cfg.rank = {1};
  {
    DumpSession s(cfg, SessionOptions{});
    EXPECT_FALSE(s.start(0));  // rank 0 not selected
    EXPECT_FALSE(s.start(1));  // step 0 not selected
    s.step();
    EXPECT_TRUE(s.start(1));
    EXPECT_EQ(s.next_api_index("Torch.relu"), 0);
    EXPECT_EQ(s.next_api_index("Torch.relu"), 1);
    s.emit_entry("Torch.relu.0.forward", "{}");
    s.step();
    EXPECT_TRUE(s.start(1));
    EXPECT_EQ(s.next_api_index("Torch.relu"), 0);  // counters reset per step
    s.step();
    EXPECT_TRUE(s.ended());
    EXPECT_FALSE(s.start(1));
  }
  EXPECT_FALSE(fs::exists(d / "step0"));
  JsonValue doc = parse_json_file((d / "step1" / "rank1" / "dump.json").string());
  EXPECT_NE(doc.find("data")->find("Torch.relu.0.forward"), nullptr);
  EXPECT_TRUE(fs::exists(d / "step2" / "rank1" / "stack.json"));
  fs::remove_all(d);
}

TEST(DumpSession, UnwritableDumpPathDisablesWithReason) {
  fs::path d = temp_dir("blocked");
  std::ofstream(d / "file") << "x";
  DumpConfig cfg;
  cfg.dump_path = (d / "file" / "dump").string();
  DumpSession s(cfg, SessionOptions{});
  EXPECT_FALSE(s.start(-1));
  EXPECT_TRUE(s.disabled());
  EXPECT_NE(s.disabled_reason().find("file"), std::string::npos);
  fs::remove_all(d);
}

// An internal error: the step's dump.json says where the dump stops and counts the calls of the
// selected steps that were lost afterwards (the step's count is final when its files close).
TEST(DumpSession, DisableAfterErrorNotesWhereAndCountsLostCalls) {
  fs::path d = temp_dir("disabled");
  DumpConfig cfg;
  cfg.dump_path = d.string();
  cfg.step = {0, 1};
  DumpSession s(cfg, SessionOptions{});
  EXPECT_TRUE(s.start(-1));
  s.emit_entry("Torch.relu.0.forward", "{}");
  s.disable_after_error("TypeError: bad \"value\"", "Torch.exp.0.forward");
  EXPECT_TRUE(s.disabled());
  s.emit_entry("Torch.exp.0.forward", "{}");  // dropped
  s.count_unrecorded();
  s.count_unrecorded();
  s.stop();
  s.count_unrecorded();  // outside start/stop: not a call the dump would have held
  s.step();
  EXPECT_FALSE(s.start(-1));  // step 1: selected, lost
  s.count_unrecorded();
  s.step();
  EXPECT_FALSE(s.start(-1));  // step 2: not selected
  s.count_unrecorded();
  EXPECT_EQ(s.unrecorded_calls(), 3);
  EXPECT_EQ(s.failed_call(), "Torch.exp.0.forward");
  EXPECT_EQ(s.failed_step(), 0);
  JsonValue doc = parse_json_file((d / "step0" / "rank" / "dump.json").string());
  EXPECT_EQ(doc.find("data")->as_object().size(), 1u);
  const JsonValue* note = doc.find("probe_disabled");
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(note->find("reason")->as_string(), "TypeError: bad \"value\"");
  EXPECT_EQ(note->find("step")->as_int(), 0);
  EXPECT_EQ(note->find("first_unrecorded_call")->as_string(), "Torch.exp.0.forward");
  EXPECT_EQ(note->find("entries_recorded")->as_int(), 1);
  EXPECT_EQ(note->find("unrecorded_calls")->as_int(), 2);
  EXPECT_FALSE(fs::exists(d / "step1"));
  fs::remove_all(d);
}

}  // namespace
}  // namespace msprobe
