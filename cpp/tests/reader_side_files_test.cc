// stack.json (1.2.1's form and the interned form) and construct.json, whole and cut at every byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/format/json_value.h"
#include "msprobe/reader/side_files.h"
#include "test_files.h"

namespace msprobe {
namespace reader {
namespace {

using test::fixture;
using test::read_file;
using test::temp_dir;
using test::write_file;

// End offsets of the members of an indent=1 object whose values close with `closer` at depth 1
// ("\n ]" for stack lists); independent of the reader.
std::vector<size_t> ends_of(const std::string& text, const std::string& closer) {
  std::vector<size_t> ends;
  for (size_t p = text.find(closer); p != std::string::npos; p = text.find(closer, p + 1)) {
    ends.push_back(p + closer.size());
  }
  return ends;
}

// construct.json members are one line each: the member ends where its line does (before ',').
std::vector<size_t> line_member_ends(const std::string& text) {
  std::vector<size_t> ends;
  for (size_t p = text.find("\n \""); p != std::string::npos; p = text.find("\n \"", p + 1)) {
    size_t e = text.find('\n', p + 1);
    if (text[e - 1] == ',') --e;
    ends.push_back(e);
  }
  return ends;
}

TEST(ReaderSideFiles, StackJsonOf121) {
  const std::string path = std::string(msprobe::test::source_dir()) +
                           "/tests/fixtures/original_1.2.1/mix_statistics/step0/rank/stack.json";
  RepairNote note;
  auto stacks = read_stack_json(path, &note);
  const JsonValue doc = parse_json(read_file(path), path);
  ASSERT_EQ(stacks.size(), doc.as_object().size());
  EXPECT_FALSE(note.torn);
  EXPECT_EQ(note.records_kept, stacks.size());
  const auto& first = doc.as_object()[0];
  ASSERT_EQ(stacks.count(first.first), 1u);
  EXPECT_EQ(stacks[first.first].size(), first.second.as_array().size());
  EXPECT_EQ(stacks[first.first][0], first.second.as_array()[0].as_string());
}

TEST(ReaderSideFiles, InternedStackJson) {
  const std::string dir = temp_dir("reader_side");
  write_file(dir + "/stack.json",
             R"J({"0": [["A.0.forward", "B.1.forward"], ["File a.py, line 1, in f, \n x()"]],)J"
             R"J( "1": [["C.0.forward"], []], "D.0.forward": ["File d.py, line 2, in g, \n y()"]})J");
  auto stacks = read_stack_json(dir + "/stack.json", nullptr);
  ASSERT_EQ(stacks.size(), 4u);
  EXPECT_EQ(stacks["A.0.forward"], (std::vector<std::string>{"File a.py, line 1, in f, \n x()"}));
  EXPECT_EQ(stacks["B.1.forward"], stacks["A.0.forward"]);
  EXPECT_TRUE(stacks["C.0.forward"].empty());
  EXPECT_EQ(stacks["D.0.forward"].size(), 1u);

  write_file(dir + "/bad.json", R"({"0": [["A"], ["x"], ["y"]]})");
  EXPECT_THROW(read_stack_json(dir + "/bad.json", nullptr), FileError);
  write_file(dir + "/bad.json", R"({"A": [1]})");
  try {
    read_stack_json(dir + "/bad.json", nullptr);
    FAIL();
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: \"A\": expected a list of strings"), std::string::npos);
  }
}

TEST(ReaderSideFiles, EveryCutOfStackJsonKeepsTheCompleteStacks) {
  const std::string dir = temp_dir("reader_side");
  const std::string full = fixture("/tests/fixtures/original_1.2.1/L1_scope/step0/rank/stack.json");
  const std::vector<size_t> all_ends = ends_of(full, "\n ]");
  ASSERT_GE(all_ends.size(), 2u);
  const std::string text = full.substr(0, all_ends[1]) + "\n}";  // json.dump of the first two
  const std::vector<size_t> ends = ends_of(text, "\n ]");
  write_file(dir + "/whole.json", text);
  const auto whole = read_stack_json(dir + "/whole.json", nullptr);
  ASSERT_EQ(whole.size(), 2u);
  for (size_t n = 0; n < text.size(); ++n) {
    SCOPED_TRACE("cut at byte " + std::to_string(n));
    write_file(dir + "/stack.json", text.substr(0, n));
    RepairNote note;
    const auto got = read_stack_json(dir + "/stack.json", &note);
    size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= n) ++complete;
    ASSERT_EQ(got.size(), complete);
    for (const auto& kv : got) ASSERT_EQ(kv.second, whole.at(kv.first));
    EXPECT_TRUE(note.torn);
    EXPECT_EQ(note.records_kept, complete);
    EXPECT_NE(note.message.find("stack.json: cut at byte " + std::to_string(n)), std::string::npos);
  }
}

TEST(ReaderSideFiles, ConstructJsonWholeAndCut) {
  const std::string dir = temp_dir("reader_side");
  const std::string full = fixture("/tests/fixtures/original_1.2.1/mix_statistics/step0/rank/construct.json");
  write_file(dir + "/whole.json", full);
  RepairNote note;
  const auto whole = read_construct_json(dir + "/whole.json", &note);
  EXPECT_FALSE(note.torn);
  ASSERT_GE(whole.size(), 3u);
  EXPECT_EQ(whole[0], (std::pair<std::string, std::string>{"Functional.linear.0.forward",
                                                           "Module.fc1.Linear.forward.0"}));
  EXPECT_EQ(whole[1].second, "");  // null

  const std::vector<size_t> all_ends = line_member_ends(full);
  const std::string text = full.substr(0, all_ends[5]) + "\n}";
  const std::vector<size_t> ends = line_member_ends(text);
  for (size_t n = 0; n < text.size(); ++n) {
    SCOPED_TRACE("cut at byte " + std::to_string(n));
    write_file(dir + "/construct.json", text.substr(0, n));
    const auto got = read_construct_json(dir + "/construct.json", &note);
    size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= n) ++complete;
    ASSERT_EQ(got.size(), complete);
    for (size_t i = 0; i < complete; ++i) ASSERT_EQ(got[i], whole[i]);
    EXPECT_TRUE(note.torn);
  }
  write_file(dir + "/construct.json", "{}");
  EXPECT_TRUE(read_construct_json(dir + "/construct.json", &note).empty());
  EXPECT_FALSE(note.torn);
  write_file(dir + "/construct.json", R"({"a": 3})");
  EXPECT_THROW(read_construct_json(dir + "/construct.json", &note), FileError);
  EXPECT_THROW(read_construct_json(dir + "/none.json", &note), FileError);
}

}  // namespace
}  // namespace reader
}  // namespace msprobe
