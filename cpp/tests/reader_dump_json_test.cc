// DumpJsonReader: header, streamed entries, and torn files. A dump.json written by our writer and
// one written by 1.2.1 (json.dump(indent=1)) are cut at every byte; the entries read back must be
// exactly those complete before the cut, with a one-line note.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "json_canon.h"
#include "msprobe/base/error.h"
#include "msprobe/dump/async_writer.h"
#include "msprobe/format/json_writer.h"
#include "msprobe/reader/dump_json_reader.h"
#include "test_files.h"

namespace msprobe {
namespace reader {
namespace {

using test::canon;
using test::read_file;
using test::temp_dir;
using test::write_file;

using Entries = std::vector<std::pair<std::string, std::string>>;

Entries read_entries(DumpJsonReader& r) {
  Entries out;
  r.for_each_entry(
      [&](std::string_view n, const JsonValue& rec) { out.emplace_back(std::string(n), canon(rec)); });
  return out;
}

// Entry ends of an indent=1 dump.json: each entry's value closes with "\n  }" (two spaces; deeper
// lines are indented more). Independent of the reader under test.
std::vector<size_t> entry_ends(const std::string& text) {
  std::vector<size_t> ends;
  for (size_t p = text.find("\n  }"); p != std::string::npos; p = text.find("\n  }", p + 1)) {
    ends.push_back(p + 4);
  }
  return ends;
}

// A dump.json written by our writer thread (AsyncWriter + JsonWriter, as DumpSession does),
// with NaN/Infinity, escapes and non-ASCII text so that cuts fall inside every kind of token.
std::string write_ours(const std::string& dir) {
  const std::string path = dir + "/dump.json";
  AsyncWriter w(1 << 20);
  const int id =
      w.open_object_file(path,
                         "{\n \"task\": \"statistics\",\n \"level\": \"L1\",\n \"framework\": \"pytorch\",\n"
                         " \"dump_data_dir\": null,\n \"data\": {",
                         "\n}", 2);
  const char* names[] = {"Functional.linear.0.forward", "Tensor.__getitem__.0.forward",
                         "Torch.where.0.backward", "Functional.gelu.1.forward"};
  for (int i = 0; i < 4; ++i) {
    std::string member;
    append_json_string(member, names[i]);
    member += ": ";
    JsonWriter j(member, 2);
    j.begin_object();
    j.key("input_args");
    j.begin_array();
    j.begin_object();
    j.key("type");
    j.string("torch.Tensor");
    j.key("dtype");
    j.string("torch.float32");
    j.key("shape");
    j.begin_array();
    j.integer(4);
    j.integer(i + 1);
    j.end_array();
    j.key("Max");
    j.floating(i == 1 ? NAN : 1.5 + i);
    j.key("Min");
    j.floating(i == 2 ? -INFINITY : -0.25);
    j.key("requires_grad");
    j.boolean(i % 2 == 0);
    j.key("note");
    j.string(i == 3 ? "caf\xc3\xa9 \"quoted\" \\ \xf0\x9f\x98\x80" : "");
    j.end_object();
    j.end_array();
    j.key("input_kwargs");
    j.begin_object();
    j.end_object();
    j.key("output");
    j.begin_array();
    j.null();
    j.end_array();
    j.end_object();
    w.append_member(id, std::move(member));
  }
  w.close_object_file(id);
  w.flush();
  return path;
}

void check_every_cut(const std::string& full_path, const std::string& dir) {
  const std::string text = read_file(full_path);
  DumpJsonReader whole(full_path);
  const Entries all = read_entries(whole);
  ASSERT_FALSE(whole.note().torn);
  const std::vector<size_t> ends = entry_ends(text);
  ASSERT_EQ(ends.size(), all.size());
  ASSERT_GE(all.size(), 3u);
  const std::string cut_path = dir + "/cut.json";
  const size_t data_pos = text.find("\"data\": {");
  for (size_t n = 0; n <= text.size(); ++n) {
    write_file(cut_path, text.substr(0, n));
    if (n == 0) {
      EXPECT_THROW(DumpJsonReader r(cut_path), FileError);
      continue;
    }
    SCOPED_TRACE("cut at byte " + std::to_string(n));
    DumpJsonReader r(cut_path);
    const Entries got = read_entries(r);
    size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= n) ++complete;
    ASSERT_EQ(got.size(), complete);
    for (size_t i = 0; i < complete; ++i) ASSERT_EQ(got[i], all[i]);
    const bool whole_file = n == text.size();
    EXPECT_EQ(r.note().torn, !whole_file);
    if (whole_file) continue;
    EXPECT_EQ(r.note().records_kept, complete);
    EXPECT_EQ(r.note().message.find('\n'), std::string::npos);
    EXPECT_NE(r.note().message.find("cut.json: cut at byte " + std::to_string(n)), std::string::npos)
        << r.note().message;
    if (complete > 0) EXPECT_EQ(r.note().valid_bytes, ends[complete - 1]);
    const size_t next_quote = text.find('"', complete ? ends[complete - 1] : data_pos + 9);
    if (complete < all.size() && n > next_quote + 1) {
      // The next entry had begun: the note names it (or the legible start of its name + "...").
      const std::string& next = all[complete].first;
      const std::string& msg = r.note().message;
      const size_t q = msg.find("dropped the incomplete entry '");
      ASSERT_NE(q, std::string::npos) << msg;
      std::string shown = msg.substr(q + 30, msg.size() - q - 31);
      if (shown.size() >= 3 && shown.compare(shown.size() - 3, 3, "...") == 0) {
        shown.resize(shown.size() - 3);
        EXPECT_EQ(next.compare(0, shown.size(), shown), 0) << msg;
      } else {
        EXPECT_EQ(shown, next) << msg;
      }
    }
  }
  // Zero-filled tail pages (a crash after the size grew) read as a cut at the first zero.
  const size_t n = ends[1] + 5;
  write_file(cut_path, text.substr(0, n) + std::string(8192, '\0'));
  DumpJsonReader r(cut_path);
  EXPECT_EQ(read_entries(r).size(), 2u);
  EXPECT_TRUE(r.note().torn);
  EXPECT_NE(r.note().message.find("followed by 8192 zero bytes"), std::string::npos) << r.note().message;
}

TEST(ReaderDumpJson, EveryCutOfOurDumpKeepsTheCompleteEntries) {
  const std::string dir = temp_dir("reader_test");
  const std::string path = write_ours(dir);
  DumpJsonReader r(path);
  EXPECT_EQ(r.header().task, "statistics");
  EXPECT_EQ(r.header().level, "L1");
  EXPECT_EQ(r.header().framework, "pytorch");
  EXPECT_FALSE(r.header().has_real_data());
  EXPECT_EQ(r.header().folder, dir);
  check_every_cut(path, dir);
}

TEST(ReaderDumpJson, EveryCutOfAn121DumpKeepsTheCompleteEntries) {
  const std::string dir = temp_dir("reader_test");
  for (const char* fixture :
       {"/tests/fixtures/original_1.2.1/L1_scope/step0/rank/dump.json",
        "/tests/fixtures/original_1.2.1_mindspore/L0_backward_only/step0/rank/dump.json"}) {
    SCOPED_TRACE(fixture);
    // The first entries of the golden dump, closed as json.dump closes "data" and the document:
    // exactly the file 1.2.1 writes for those entries (and a quicker test than the whole file).
    const std::string text = read_file(std::string(msprobe::test::source_dir()) + fixture);
    const std::vector<size_t> ends = entry_ends(text);
    ASSERT_GE(ends.size(), 3u);
    write_file(dir + "/dump.json", text.substr(0, ends[2]) + "\n }\n}");
    check_every_cut(dir + "/dump.json", dir);
  }
}

// A corrupt byte anywhere gives entries or a FileError, never a crash or a read out of bounds
// (the sanitizer build runs this too).
TEST(ReaderDumpJson, CorruptBytesGiveEntriesOrAnError) {
  const std::string dir = temp_dir("reader_test");
  const std::string text = read_file(write_ours(dir));
  const std::string path = dir + "/corrupt.json";
  size_t errors = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    for (char c : {'"', '}', '\\', '\0', (char)0xff, '[', ','}) {
      std::string bad = text;
      bad[i] = c;
      write_file(path, bad);
      try {
        DumpJsonReader r(path);
        read_entries(r);
      } catch (const FileError& e) {
        ++errors;
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_GT(errors, text.size());
}

TEST(ReaderDumpJson, HeaderAndRealData) {
  const std::string dir = temp_dir("reader_test");
  const std::string path = std::string(msprobe::test::source_dir()) +
                           "/tests/fixtures/original_1.2.1/mix_tensor/step0/rank/dump.json";
  DumpJsonReader r(path);
  EXPECT_EQ(r.header().task, "tensor");
  EXPECT_EQ(r.header().level, "mix");
  EXPECT_TRUE(r.header().has_real_data());
  EXPECT_EQ(r.header().dump_data_dir.as_string(), "./dump/step0/rank/dump_tensor_data");
  EXPECT_EQ(r.header().tensor_dir(), r.header().folder + "/dump_tensor_data");
  // The streamed entries are the document's "data" members, in order.
  const JsonValue doc = parse_json(read_file(path), path);
  const auto& data = doc.find("data")->as_object();
  const Entries got = read_entries(r);
  ASSERT_EQ(got.size(), data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    EXPECT_EQ(got[i].first, data[i].first);
    EXPECT_EQ(got[i].second, canon(data[i].second));
  }
  // A second visit gives the same.
  EXPECT_EQ(read_entries(r), got);

  // Header keys after "data" are found too.
  write_file(dir + "/late.json",
             R"({"data": {"a.forward": {"x": 1}}, "task": "tensor", "dump_data_dir": "d"})");
  DumpJsonReader late(dir + "/late.json");
  EXPECT_EQ(late.header().task, "tensor");
  EXPECT_TRUE(late.header().has_real_data());
  EXPECT_EQ(read_entries(late).size(), 1u);
}

TEST(ReaderDumpJson, ErrorsAreOneLineNamingTheFile) {
  const std::string dir = temp_dir("reader_test");
  auto error_of = [&](const std::string& text) -> std::string {
    write_file(dir + "/d.json", text);
    try {
      DumpJsonReader r(dir + "/d.json");
      r.for_each_entry([](std::string_view, const JsonValue&) {});
    } catch (const FileError& e) {
      return e.what();
    }
    return "<no error>";
  };
  auto has = [](const std::string& s, const char* part) { return s.find(part) != std::string::npos; };
  EXPECT_TRUE(has(error_of("[]"), "d.json: the top level must be a JSON object")) << error_of("[]");
  EXPECT_TRUE(has(error_of("{\"task\": \"x\"}"), "no \"data\" object"));
  EXPECT_TRUE(has(error_of("{\"data\": null}"), "no \"data\" object"));
  EXPECT_TRUE(has(error_of("{\"data\": [1]}"), "\"data\" must be an object of records, found a list"));
  // Malformed in the middle of a complete file: line and column, not a repair.
  const std::string bad =
      "{\n \"data\": {\n  \"a\": {\"x\": 1},\n  \"b\": {\"x\": tru },\n  \"c\": {}\n }\n}";
  EXPECT_TRUE(has(error_of(bad), "d.json: line 4 column")) << error_of(bad);
  EXPECT_TRUE(has(error_of("{\"data\": {\"a\": {},}}"), "d.json: line 1 column"));
  try {
    DumpJsonReader r(dir + "/missing.json");
    FAIL();
  } catch (const FileError& e) {
    EXPECT_TRUE(has(e.what(), "missing.json: no such file"));
  }
  try {
    DumpJsonReader r(dir);
    FAIL();
  } catch (const FileError& e) {
    EXPECT_TRUE(has(e.what(), "is a directory"));
  }
}

TEST(ReaderDumpJson, CutBeforeDataIsAnEmptyDumpWithANote) {
  const std::string dir = temp_dir("reader_test");
  write_file(dir + "/d.json", "{\n \"task\": \"statistics\",\n \"level\": \"L1\",\n \"dump_da");
  DumpJsonReader r(dir + "/d.json");
  EXPECT_EQ(r.header().task, "statistics");
  EXPECT_EQ(read_entries(r).size(), 0u);
  EXPECT_TRUE(r.note().torn);
  EXPECT_NE(r.note().message.find("before the \"data\" object"), std::string::npos);
}

}  // namespace
}  // namespace reader
}  // namespace msprobe
