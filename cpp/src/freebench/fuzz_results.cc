#include "msprobe/freebench/fuzz_results.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/check/csv_table.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {
namespace freebench {
namespace {

void append_to_file(const std::string& path, const std::string& header, const std::string& text) {
  struct stat st;
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  if (!exists) make_dirs(folder_of(path), "dump_path");
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
  if (fd < 0) throw FileError("cannot write " + path + ": " + std::strerror(errno));
  std::string out = exists ? text : header + text;
  const char* p = out.data();
  size_t left = out.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw FileError("cannot write " + path + ": " + why);
    }
    p += n;
    left -= (size_t)n;
  }
  ::close(fd);
}

void write_source(JsonWriter& w, const SourceLine& s) {
  w.key("source");
  if (s.file.empty()) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("file");
  w.string(s.file);
  w.key("line");
  w.integer(s.line);
  w.key("function");
  w.string(s.function);
  w.key("text");
  w.string(s.text);
  w.end_object();
}

void write_number(JsonWriter& w, double v) {
  if (std::isfinite(v))
    w.floating(v);
  else
    w.null();
}

struct ApiGroup {
  std::string api, stage;
  size_t worst = 0;  // index into rows
  int64_t flagged = 0;
  size_t first = 0;
};

bool worse(const FuzzRow& a, const FuzzRow& b) {
  if (a.excess != b.excess) return a.excess > b.excess;
  return false;
}

std::vector<ApiGroup> ranked(const std::vector<FuzzRow>& rows) {
  std::vector<ApiGroup> groups;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string api = api_of_call(rows[i].api_name);
    const std::string key = api + '\n' + rows[i].stage;
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, groups.size()).first;
      groups.push_back(ApiGroup{api, rows[i].stage, i, 0, i});
    }
    ApiGroup& g = groups[it->second];
    ++g.flagged;
    if (worse(rows[i], rows[g.worst])) g.worst = i;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const ApiGroup& a, const ApiGroup& b) { return worse(rows[a.worst], rows[b.worst]); });
  return groups;
}

std::string excess_text(double excess) {
  if (std::isinf(excess)) return "sign flipped";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g x the limit", excess);
  return buf;
}

}  // namespace

std::string api_of_call(const std::string& call) {
  std::string s = call;
  for (const char* suffix : {".forward", ".backward"}) {
    const size_t n = std::strlen(suffix);
    if (s.size() > n && s.compare(s.size() - n, n, suffix) == 0) {
      s.resize(s.size() - n);
      break;
    }
  }
  const size_t dot = s.rfind('.');
  if (dot != std::string::npos && dot + 1 < s.size() &&
      std::all_of(s.begin() + (long)dot + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    s.resize(dot);
  return s;
}

std::vector<std::string> csv_header(const std::string& pert_column) {
  return {"rank", pert_column, "stage", "step", "api_name", "max_rel", "dtype", "shape", "output_index"};
}

std::vector<std::string> csv_fields(const FuzzRow& r) {
  return {r.rank < 0 ? "" : std::to_string(r.rank),
          r.pert_mode,
          r.stage,
          std::to_string(r.step),
          r.api_name,
          r.max_rel,
          r.dtype,
          r.shape,
          r.output_index < 0 ? "" : std::to_string(r.output_index)};
}

FuzzResults::FuzzResults(std::string csv_path, std::string summary_path, std::string pert_column,
                         std::string framework)
    : csv_path_(std::move(csv_path)),
      summary_path_(std::move(summary_path)),
      pert_column_(std::move(pert_column)),
      framework_(std::move(framework)) {}

void FuzzResults::add(FuzzRow row) {
  std::string header, text;
  check::append_csv_row(header, csv_header(pert_column_));
  check::append_csv_row(text, csv_fields(row));
  rows_.push_back(std::move(row));
  append_to_file(csv_path_, header, text);
}

std::string FuzzResults::summary_json(const std::string& pert_mode, const std::string& handler) const {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("task");
  w.string("free_benchmark");
  w.key("framework");
  w.string(framework_);
  w.key("pert_mode");
  w.string(pert_mode);
  w.key("handler_type");
  w.string(handler);
  w.key("checked_calls");
  w.integer(checked_);
  w.key("flagged_outputs");
  w.integer((int64_t)rows_.size());
  w.key("csv");
  w.string(csv_path_);
  w.key("apis");
  w.begin_array();
  for (const ApiGroup& g : ranked(rows_)) {
    const FuzzRow& r = rows_[g.worst];
    w.begin_object();
    w.key("api");
    w.string(g.api);
    w.key("stage");
    w.string(g.stage);
    w.key("flagged_outputs");
    w.integer(g.flagged);
    w.key("worst_call");
    w.string(r.api_name);
    w.key("step");
    w.integer(r.step);
    w.key("measure");
    w.string(r.measure);
    w.key("value");
    write_number(w, r.value);
    w.key("limit");
    write_number(w, r.limit);
    w.key("times_limit");
    write_number(w, r.excess);
    w.key("max_rel");
    w.string(r.max_rel);
    w.key("dtype");
    w.string(r.dtype);
    w.key("shape");
    w.string(r.shape);
    w.key("output_index");
    if (r.output_index < 0)
      w.null();
    else
      w.integer(r.output_index);
    write_source(w, r.source);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out += '\n';
  return out;
}

void FuzzResults::write_summary(const std::string& pert_mode, const std::string& handler) const {
  write_file_atomically(summary_path_, summary_json(pert_mode, handler));
}

std::string FuzzResults::end_line() const {
  const std::vector<ApiGroup> groups = ranked(rows_);
  std::string line = "free_benchmark: " + std::to_string(checked_) + " calls checked, ";
  if (groups.empty()) return line + "no API beyond the precision standard";
  line += std::to_string(groups.size()) + (groups.size() == 1 ? " API" : " APIs") + " flagged (" +
          std::to_string(rows_.size()) + " outputs); worst: ";
  const FuzzRow& r = rows_[groups[0].worst];
  line += groups[0].api + " (" + r.measure;
  if (r.measure != "symbol_flipping") {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.6g", r.value);
    line += buf;
  }
  line += ", " + excess_text(r.excess) + ") in " + r.api_name + " at step " + std::to_string(r.step);
  if (!r.source.file.empty()) line += ", " + r.source.file + ":" + std::to_string(r.source.line);
  return line + "; ranking in " + summary_path_;
}

}  // namespace freebench
}  // namespace msprobe
