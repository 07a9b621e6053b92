// Overflow summaries of a dump across steps and ranks: see overflow_report.h.
#include "msprobe/dump/overflow_report.h"

#include <sys/stat.h>

#include <tuple>

#include "msprobe/base/error.h"
#include "msprobe/base/path.h"
#include "msprobe/format/json_value.h"

namespace msprobe {

namespace {
const JsonValue& need(const JsonValue& obj, const char* key, const std::string& path) {
  const JsonValue* v = obj.is_object() ? obj.find(key) : nullptr;
  if (!v) throw FileError(path + ": overflow summary without \"" + key + "\"");
  return *v;
}

[[noreturn]] void bad_type(const char* key, const char* what, const std::string& path) {
  throw FileError(path + ": overflow summary: \"" + key + "\" must be " + what);
}
int64_t need_int(const JsonValue& obj, const char* key, const std::string& path) {
  const JsonValue& v = need(obj, key, path);
  if (!v.is_int()) bad_type(key, "an integer", path);
  return v.as_int();
}
double need_number(const JsonValue& obj, const char* key, const std::string& path) {
  const JsonValue& v = need(obj, key, path);
  if (!v.is_number()) bad_type(key, "a number", path);
  return v.as_double();
}
const std::string& need_string(const JsonValue& obj, const char* key, const std::string& path) {
  const JsonValue& v = need(obj, key, path);
  if (!v.is_string()) bad_type(key, "a string", path);
  return v.as_string();
}
bool need_bool(const JsonValue& obj, const char* key, const std::string& path) {
  const JsonValue& v = need(obj, key, path);
  if (!v.is_bool()) bad_type(key, "true or false", path);
  return v.as_bool();
}

std::optional<OverflowFirst> read_event(const JsonValue& v, const RankOverflowSummary& row,
                                        const std::string& path) {
  if (v.is_null()) return std::nullopt;
  if (!v.is_object()) throw FileError(path + ": overflow summary: an event must be an object or null");
  OverflowFirst f;
  f.dir = row.dir;
  f.step = row.step;
  f.rank = row.rank;
  f.entry = need_string(v, "entry", path);
  f.kind = need_string(v, "kind", path);
  f.time = need_number(v, "time", path);
  const JsonValue& src = need(v, "source", path);
  if (src.is_object()) {
    f.source = need_string(src, "file", path) + ":" + std::to_string(need_int(src, "line", path));
    const std::string& fn = need_string(src, "function", path);
    const std::string& text = need_string(src, "text", path);
    if (!fn.empty()) f.source += " in " + fn;
    if (!text.empty()) f.source += ": " + text;
  }
  return f;
}

bool earlier(const OverflowFirst& a, const OverflowFirst& b) {
  return std::tie(a.time, a.step, a.rank) < std::tie(b.time, b.step, b.rank);
}

void keep_earliest(std::optional<OverflowFirst>& best, const std::optional<OverflowFirst>& cand) {
  if (cand && (!best || earlier(*cand, *best))) best = cand;
}
}  // namespace

OverflowReport read_overflow_report(const std::string& dump_path) {
  OverflowReport report;
  for (const auto& step : numbered_names(dump_path, "step")) {
    for (const auto& rank : numbered_names(dump_path + "/" + step, "rank")) {
      const std::string path = dump_path + "/" + step + "/" + rank + "/overflow_summary.json";
      struct stat st;
      if (::stat(path.c_str(), &st) != 0) continue;
      const JsonValue doc = parse_json_file(path);
      RankOverflowSummary row;
      row.dir = step + "/" + rank;
      row.step = need_int(doc, "step", path);
      const JsonValue& r = need(doc, "rank", path);
      if (!r.is_null() && !r.is_int()) bad_type("rank", "an integer or null", path);
      row.rank = r.is_null() ? -1 : r.as_int();
      row.overflows = need_int(doc, "overflows_in_step", path);
      row.culprits = need_int(doc, "culprits_in_step", path);
      row.limit_reached = need_bool(doc, "limit_reached", path);
      row.first = read_event(need(doc, "first", path), row, path);
      row.first_culprit = read_event(need(doc, "first_culprit", path), row, path);
      keep_earliest(report.earliest, row.first);
      keep_earliest(report.earliest_culprit, row.first_culprit);
      report.rows.push_back(std::move(row));
    }
  }
  return report;
}

}  // namespace msprobe
