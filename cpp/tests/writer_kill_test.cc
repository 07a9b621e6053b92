// SIGKILL at random moments of a process that appends to a dump file as fast as it can: whatever
// survives is the exact text of the complete members (in order) plus at most the member that was
// being written. Prints how many kills left a file that is not a complete JSON document.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "msprobe/dump/async_writer.h"

namespace fs = std::filesystem;

namespace msprobe {
namespace {

const char kHeader[] = "{\n \"task\": \"statistics\",\n \"data\": {";
const char kClosing[] = "\n }\n}";

// Member i: sizes like those of dump entries: mostly 100 B to 1.5 kB, some up to 4 kB, one in a
// hundred up to 16 kB (spanning several pages).
std::string member(uint64_t i) {
  const uint64_t h = (i * 2654435761u) >> 7;
  const size_t len = i % 100 == 99 ? 4000 + h % 12000 : i % 7 == 6 ? 1500 + h % 2500 : 100 + h % 1400;
  return "\"m" + std::to_string(i) + "\": {\"pad\": \"" + std::string(len, char('a' + i % 26)) + "\"}";
}

std::string separator(uint64_t i) { return i == 0 ? "\n  " : ",\n  "; }

[[noreturn]] void append_forever(const std::string& path) {
  AsyncWriter w(64u << 20);
  const int id = w.open_object_file(path, kHeader, "\n}", 2);
  for (uint64_t i = 0;; ++i) w.append_member(id, member(i));
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Survivor {
  bool exists = false;
  bool complete = false;   // a whole JSON document: the complete members and the closing text
  bool clean_cut = false;  // or else: the complete members, then the start of the next one
  uint64_t members = 0;
  size_t tail = 0;  // bytes after the last complete member
};

Survivor inspect(const fs::path& p) {
  Survivor s;
  if (!fs::exists(p)) return s;
  s.exists = true;
  std::string f = slurp(p);
  while (!f.empty() && f.back() == ' ') f.pop_back();  // the writer's runway (trailing whitespace)
  size_t pos = sizeof(kHeader) - 1;
  EXPECT_EQ(f.compare(0, pos, kHeader), 0) << "header cut";
  auto skip_spaces = [&](size_t at) {  // a few spaces may precede a separator or the closing
    while (at < f.size() && f[at] == ' ') ++at;
    return at;
  };
  for (uint64_t i = 0;; ++i) {
    const std::string m = separator(i) + member(i);
    const size_t at = i ? skip_spaces(pos) : pos;
    if (f.compare(at, m.size(), m) != 0) break;
    pos = at + m.size();
    s.members = i + 1;
  }
  s.tail = f.size() - pos;
  const std::string closing = s.members ? kClosing : "}\n}";
  s.complete = f.compare(skip_spaces(pos), std::string::npos, closing) == 0;
  const std::string rest = f.substr(s.members ? skip_spaces(pos) : pos);
  const std::string next = separator(s.members) + member(s.members);
  s.clean_cut = rest.size() < next.size() && next.compare(0, rest.size(), rest) == 0;
  return s;
}

TEST(WriterKill, EverySurvivingPrefixHoldsTheCompleteMembers) {
  const int kills = std::getenv("MSPROBE_WRITER_KILLS") ? std::atoi(std::getenv("MSPROBE_WRITER_KILLS")) : 40;
  const fs::path d = fs::temp_directory_path() / ("msprobe_writer_kill_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  std::mt19937 rng(12345);
  int torn = 0, written = 0;
  uint64_t members = 0;
  for (int k = 0; k < kills; ++k) {
    const fs::path p = d / ("dump" + std::to_string(k) + ".json");
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) append_forever(p.string());
    // Kill at a random moment once the writer is busy (the file has its first batch).
    std::error_code ec;
    while (!fs::exists(p, ec) || fs::file_size(p, ec) < 65536)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20000));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const Survivor s = inspect(p);
    if (!s.exists) continue;
    ++written;
    members += s.members;
    if (!s.complete) ++torn;
    // Nothing but the start of the member in flight follows the complete members: no piece of
    // an old closing text, nothing out of order.
    EXPECT_TRUE(s.complete || s.clean_cut) << p << ": " << s.tail << " bytes after member " << s.members;
    if (!s.complete && std::getenv("MSPROBE_WRITER_KILL_KEEP")) {
      std::printf("[writer kill] torn: %s size %ju, %zu bytes after the last complete member\n", p.c_str(),
                  (uintmax_t)fs::file_size(p), s.tail);
      continue;
    }
    fs::remove(p);
  }
  std::printf("[writer kill] %d kills, %d files, %d not complete JSON, %.0f members on average\n", kills,
              written, torn, written ? (double)members / written : 0.0);
  if (!std::getenv("MSPROBE_WRITER_KILL_KEEP")) fs::remove_all(d);
}

}  // namespace
}  // namespace msprobe
