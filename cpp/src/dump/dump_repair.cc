// Repair of cut dump files: see dump_repair.h.
#include "msprobe/dump/dump_repair.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/mapped_file.h"
#include "msprobe/base/path.h"
#include "msprobe/format/json_value.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/side_files.h"

namespace fs = std::filesystem;

namespace msprobe {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0'; }

bool is_dump_file_name(const std::string& name) {
  return name == "dump.json" || name == "stack.json" || name == "construct.json";
}

// Length of `text` without trailing whitespace and zero bytes.
size_t content_end(std::string_view text) {
  size_t n = text.size();
  while (n > 0 && is_blank(text[n - 1])) --n;
  return n;
}

// Whether the file ends like a closed dump file: its last '}' in the first column (json.dump with
// indent=1 puts only the outermost closing there), or the file is just "{}". Reads the end only,
// skipping a blank tail (a killed writer's runway, zero pages) backwards.
bool ends_closed(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  struct stat st;
  off_t end = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : 0;
  char buf[4096];
  off_t last = -1;  // offset of the last byte that is not blank
  while (end > 0 && last < 0) {
    const off_t from = end > (off_t)sizeof(buf) ? end - (off_t)sizeof(buf) : 0;
    if (::pread(fd, buf, (size_t)(end - from), from) != end - from) break;
    for (off_t i = end - from; i-- > 0;) {
      if (!is_blank(buf[i])) {
        last = from + i;
        break;
      }
    }
    end = from;
  }
  char tail[2] = {0, 0};
  const bool closed = last >= 1 && ::pread(fd, tail, 2, last - 1) == 2 && tail[1] == '}' &&
                      (tail[0] == '\n' || (tail[0] == '{' && last == 1));
  ::close(fd);
  return closed;
}

// A temporary file of AtomicFile (".<name>.<pid>.msprobe-tmp") whose process is gone.
bool is_stale_temporary(const std::string& name) {
  static const std::string suffix = ".msprobe-tmp";
  if (name.size() <= suffix.size() + 2 || name[0] != '.' ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const std::string stem = name.substr(0, name.size() - suffix.size());
  const size_t dot = stem.rfind('.');
  const long pid = dot == std::string::npos ? 0 : std::atol(stem.c_str() + dot + 1);
  return pid <= 0 || (::kill((pid_t)pid, 0) != 0 && errno == ESRCH);
}

mode_t mode_of(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0640;
}

void rewrite(const std::string& path, std::string_view keep, std::string_view closing, bool durable) {
  AtomicFile out(path, mode_of(path));
  out.append(keep);
  out.append(closing);
  out.commit(durable);
}

RepairResult trimmed_or_intact(const std::string& path, std::string_view text) {
  RepairResult r;
  r.path = path;
  const size_t end = content_end(text);
  if (end == text.size()) return r;
  if (::truncate(path.c_str(), (off_t)end) != 0) {
    r.action = RepairResult::Action::kFailed;
    r.message = path + ": cannot cut the blank end: " + std::strerror(errno);
    return r;
  }
  r.action = RepairResult::Action::kTrimmed;
  r.message =
      path + ": complete; cut off " + std::to_string(text.size() - end) + " blank bytes after the JSON";
  return r;
}

// dump.json cut before its "data" object: the complete header keys are kept, "data" is empty.
std::string header_only(std::string_view text, const std::string& path, size_t* kept_keys) {
  JsonCursor cur(text, path);
  size_t keep_end = 0;
  *kept_keys = 0;
  try {
    if (cur.peek() != '{') return "{";
    cur.expect('{', "");
    keep_end = cur.pos();
    for (;;) {
      const int c = cur.peek();
      if (c == '}') break;
      if (*kept_keys) cur.expect(',', "between the keys of the top-level object");
      const std::string key = cur.parse_string();
      cur.expect(':', "after an object key");
      if (key == "data") break;
      cur.parse_value();
      keep_end = cur.pos();
      ++*kept_keys;
    }
  } catch (const JsonParseError& e) {
    if (!e.truncated()) throw;
  }
  return std::string(text.substr(0, keep_end));
}

// A complete dump.json: what follows its last entry must be the end of "data", maybe more header
// keys, the end of the document and blank space; anything else is not a cut but a malformed file
// (throws JsonParseError), which json.load would refuse.
void check_after_entries(std::string_view text, size_t entries_end, const std::string& path) {
  JsonCursor cur(text.substr(0, content_end(text)), path);
  cur.seek(entries_end);
  cur.expect('}', "to close \"data\"");
  while (cur.peek() == ',') {
    cur.expect(',', "");
    cur.parse_string();
    cur.expect(':', "after an object key");
    cur.parse_value();
  }
  cur.expect('}', "to close the top-level object");
  if (cur.peek() >= 0) cur.fail("expected the end of the file after the JSON object");
}

RepairResult repair_dump_json(const std::string& path, bool durable) {
  RepairResult r;
  r.path = path;
  {
    MappedFile file(path);
    if (content_end(file.text()) == 0) {  // 1.2.1 creates its files empty
      rewrite(path, "{\n \"data\": {}\n}", "", durable);
      r.action = RepairResult::Action::kRewritten;
      r.message = path + ": empty; rewritten with an empty \"data\"";
      return r;
    }
  }
  reader::DumpJsonReader reader(path);
  reader.for_each_entry([](std::string_view, const JsonValue&) {});
  const reader::RepairNote& note = reader.note();
  MappedFile file(path);
  const std::string_view text = file.text();
  if (!note.torn) {
    check_after_entries(text, note.valid_bytes, path);
    return trimmed_or_intact(path, text);
  }
  r.action = RepairResult::Action::kRewritten;
  if (note.valid_bytes == 0) {  // cut before "data" began
    size_t keys = 0;
    const std::string keep = header_only(text, path, &keys);
    rewrite(path, keep, std::string(keys ? "," : "") + "\n \"data\": {}\n}", durable);
    r.message =
        note.message + "; rewritten with " + std::to_string(keys) + " header keys and an empty \"data\"";
    return r;
  }
  rewrite(path, text.substr(0, note.valid_bytes), note.records_kept ? "\n }\n}" : "}\n}", durable);
  r.message = note.message + "; rewritten";
  return r;
}

RepairResult repair_side_file(const std::string& path, bool stack, bool durable) {
  RepairResult r;
  r.path = path;
  reader::RepairNote note;
  if (stack) {
    reader::read_stack_json(path, &note);
  } else {
    reader::read_construct_json(path, &note);
  }
  MappedFile file(path);
  const std::string_view text = file.text();
  if (!note.torn) return trimmed_or_intact(path, text);
  r.action = RepairResult::Action::kRewritten;
  if (note.valid_bytes == 0) {
    rewrite(path, "{}", "", durable);
  } else {
    rewrite(path, text.substr(0, note.valid_bytes), note.records_kept ? "\n}" : "}", durable);
  }
  r.message = note.message + "; rewritten";
  return r;
}

}  // namespace

RepairResult repair_dump_file(const std::string& path, bool durable) {
  const std::string name = file_name_of(path);
  try {
    if (name == "dump.json") return repair_dump_json(path, durable);
    return repair_side_file(path, name == "stack.json", durable);
  } catch (const std::exception& e) {
    RepairResult r;
    r.path = path;
    r.action = RepairResult::Action::kFailed;
    r.message = std::string(e.what()) + "; left as it is";
    return r;
  }
}

std::vector<RepairResult> repair_dump_tree(const std::string& path, const RepairOptions& options) {
  std::vector<RepairResult> out;
  auto visit = [&](const fs::path& p) {
    const std::string name = p.filename().string();
    const std::string folder = p.parent_path().filename().string();
    if (!options.rank_folder.empty() && folder != options.rank_folder) return;
    if (is_stale_temporary(name)) {
      std::error_code ec;
      if (fs::remove(p, ec)) {
        out.push_back({p.string(), RepairResult::Action::kRemoved,
                       p.string() + ": removed (left by a process killed while replacing a file)"});
      }
      return;
    }
    if (!is_dump_file_name(name)) return;
    if (options.quick && ends_closed(p.string())) {
      // Closed; a blank tail (a killed writer's runway) is cut off without reading the rest.
      MappedFile file(p.string());
      RepairResult r = trimmed_or_intact(p.string(), file.text());
      if (r.action != RepairResult::Action::kIntact) out.push_back(std::move(r));
      return;
    }
    RepairResult r = repair_dump_file(p.string());
    if (r.action != RepairResult::Action::kIntact) out.push_back(std::move(r));
  };
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (ec || !fs::exists(st)) return out;
  if (fs::is_regular_file(st)) {
    visit(fs::path(path));
    return out;
  }
  if (!fs::is_directory(st)) return out;
  for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_symlink(ec)) continue;
    // dump_tensor_data holds only tensors: no need to list thousands of files.
    if (it->is_directory(ec)) {
      if (it->path().filename() == "dump_tensor_data") it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec)) visit(it->path());
  }
  return out;
}

}  // namespace msprobe
