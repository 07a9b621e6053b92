// divergence_{timestamp}.json written and read back (divergence.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "msprobe/base/error.h"
#include "msprobe/compare/divergence.h"
#include "msprobe/format/json_value.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {
namespace compare {

namespace {
void write_cell(JsonWriter& w, const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kNumber:
      if (std::isfinite(c.d))
        w.floating(c.d);
      else
        w.string(std::isnan(c.d) ? "nan" : c.d > 0 ? "inf" : "-inf");
      break;
    case Cell::Kind::kBool: w.boolean(c.d != 0); break;
    case Cell::Kind::kString: w.string(c.s); break;
    default: w.null();
  }
}

void write_number(JsonWriter& w, double v) {
  if (std::isfinite(v))
    w.floating(v);
  else if (std::isnan(v))
    w.null();
  else
    w.string(v > 0 ? "inf" : "-inf");
}

void write_rows(JsonWriter& w, const std::vector<SuspectRow>& rows) {
  w.begin_object();
  for (const SuspectRow& r : rows) {
    w.key(r.name);
    w.begin_object();
    w.key("relative_error");
    write_number(w, r.error);
    for (const auto& [k, v] : r.metrics) {
      w.key(k);
      write_cell(w, v);
    }
    w.end_object();
  }
  w.end_object();
}

void write_path(JsonWriter& w, const char* key, const std::string& path) {
  w.key(key);
  if (path.empty())
    w.null();
  else
    w.string(path);
}

void write_next_steps(JsonWriter& w, const SuspectNextSteps& n) {
  w.key("next_steps");
  w.begin_object();
  write_path(w, "redump_config_npu", n.redump_config_npu);
  write_path(w, "redump_config_bench", n.redump_config_bench);
  write_path(w, "config_op", n.config_op);
  write_path(w, "compare_json", n.compare_json);
  w.end_object();
}

void write_replay(JsonWriter& w, const SuspectReplay& r) {
  w.key("replay");
  w.begin_object();
  w.key("verdict");
  if (r.verdict.empty())
    w.null();
  else
    w.string(r.verdict);
  w.key("reason");
  w.string(r.reason);
  for (const auto& [key, v] : {std::pair<const char*, double>{"dumped_output_error", r.dumped_output_error},
                               {"replayed_output_error", r.replayed_output_error},
                               {"npu_api_error", r.npu_api_error},
                               {"bench_api_error", r.bench_api_error}}) {
    w.key(key);
    write_number(w, v);
  }
  w.end_object();
}

const char* mode_name(CompareMode m) {
  switch (m) {
    case CompareMode::kTensor: return "tensor";
    case CompareMode::kMd5: return "md5";
    default: return "statistics";
  }
}
}  // namespace

std::string divergence_json(const std::vector<Suspect>& suspects, CompareMode mode,
                            const RedumpCheck& check) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("compare_mode");
  w.string(mode_name(mode));
  if (!check.empty()) {
    w.key("redump_check");
    w.begin_object();
    for (const auto& [k, v] : {std::pair<const char*, const std::string*>{"suspect", &check.suspect},
                               {"verdict", &check.verdict},
                               {"sentence", &check.sentence}}) {
      w.key(k);
      w.string(*v);
    }
    w.end_object();
  }
  w.key("suspects");
  w.begin_array();
  for (const Suspect& s : suspects) {
    w.begin_object();
    w.key("name");
    w.string(s.name);
    w.key("rank");
    w.integer(s.rank);
    w.key("step");
    w.integer(s.step);
    w.key("direction");
    w.string(s.forward ? "forward" : "backward");
    w.key("confidence");
    w.string(confidence_name(s.tier));
    w.key("kind");
    w.string(s.source ? "source" : "call");
    if (s.source) {
      w.key("source_row");
      w.string(s.source_row);
      w.key("source_tensor");
      if (s.source_name.empty())
        w.null();
      else
        w.string(s.source_name);
    }
    w.key("order");
    w.integer((int64_t)s.order);
    w.key("reason");
    w.string(s.reason);
    w.key("input_error");
    write_number(w, s.input_error);
    w.key("output_error");
    write_number(w, s.output_error);
    w.key("amplification");
    write_number(w, s.amplification);
    w.key("inputs");
    write_rows(w, s.inputs);
    w.key("outputs");
    write_rows(w, s.outputs);
    w.key("stack");
    w.begin_array();
    for (const std::string& l : s.stack) w.string(l);
    w.end_array();
    w.key("module_path");
    w.begin_array();
    for (const std::string& m : s.module_path) w.string(m);
    w.end_array();
    if (!s.next_steps.empty()) write_next_steps(w, s.next_steps);
    if (!s.replay.empty()) write_replay(w, s.replay);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out += '\n';
  return out;
}

std::string first_suspect_line(const std::vector<Suspect>& suspects) {
  if (suspects.empty() || suspects.front().tier >= 2) return "";  // low ones stay in the json
  const Suspect& s = suspects.front();
  std::string line = "First divergence: " + s.name;
  if (s.rank >= 0) line += " (rank " + std::to_string(s.rank) + ")";
  if (s.step >= 0) line += " at step " + std::to_string(s.step);
  line += ": " + s.reason + ".";
  for (const std::string& l : s.stack) {
    // The innermost user frame is the most useful single line.
    if (l.find("site-packages") == std::string::npos && l.find("msprobe") == std::string::npos) {
      // 1.2.1's stack lines hold "File F, line N, in fn, \n code": one terminal line.
      std::string one;
      for (char c : l) {
        if (c == '\n' || c == '\r') c = ' ';
        if (c != ' ' || one.empty() || one.back() != ' ') one += c;
      }
      line += " " + one;
      break;
    }
  }
  return line;
}

namespace {
double number_from(const JsonValue* v) {
  if (!v) return std::numeric_limits<double>::quiet_NaN();
  if (v->is_number()) return v->as_double();
  if (v->is_string()) {
    const std::string& t = v->as_string();
    if (t == "inf") return std::numeric_limits<double>::infinity();
    if (t == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::numeric_limits<double>::quiet_NaN();
}

Cell cell_from(const JsonValue& v) {
  if (v.is_bool()) return Cell::boolean(v.as_bool());
  if (v.is_number()) return Cell::num(v.as_double());
  if (v.is_string()) {
    const std::string& t = v.as_string();
    if (t == "nan" || t == "inf" || t == "-inf") return Cell::num(number_from(&v));
    return Cell::str(t);
  }
  return Cell();
}

std::vector<SuspectRow> rows_from(const JsonValue* v) {
  std::vector<SuspectRow> rows;
  if (!v || !v->is_object()) return rows;
  for (const auto& [name, row] : v->as_object()) {
    SuspectRow r;
    r.name = name;
    r.error = number_from(row.find("relative_error"));
    if (row.is_object())
      for (const auto& [k, cell] : row.as_object())
        if (k != "relative_error") r.metrics.emplace_back(k, cell_from(cell));
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<std::string> strings_from(const JsonValue* v) {
  std::vector<std::string> out;
  if (v && v->is_array())
    for (const JsonValue& s : v->as_array()) out.push_back(s.as_string());
  return out;
}
}  // namespace

std::vector<Suspect> parse_divergence_json(const std::string& text, const std::string& origin,
                                           CompareMode* mode) {
  const JsonValue root = parse_json(text, origin);
  if (mode) {
    const JsonValue* m = root.find("compare_mode");
    const std::string name = m ? m->as_string() : "";
    *mode = name == "tensor" ? CompareMode::kTensor
            : name == "md5"  ? CompareMode::kMd5
                             : CompareMode::kStatistics;
  }
  const JsonValue* list = root.find("suspects");
  if (!list || !list->is_array()) throw InvalidInput(origin + ": no \"suspects\" list");
  std::vector<Suspect> out;
  for (const JsonValue& v : list->as_array()) {
    const JsonValue* name = v.find("name");
    if (!name || !name->is_string()) throw InvalidInput(origin + ": a suspect without a name");
    Suspect s;
    s.name = name->as_string();
    if (const JsonValue* x = v.find("rank")) s.rank = (int)x->as_int();
    if (const JsonValue* x = v.find("step")) s.step = (int)x->as_int();
    if (const JsonValue* x = v.find("direction")) s.forward = x->as_string() != "backward";
    if (const JsonValue* x = v.find("confidence")) s.tier = tier_of_confidence(x->as_string());
    if (const JsonValue* x = v.find("kind")) s.source = x->is_string() && x->as_string() == "source";
    if (const JsonValue* x = v.find("source_row")) s.source_row = x->is_string() ? x->as_string() : "";
    if (const JsonValue* x = v.find("source_tensor")) s.source_name = x->is_string() ? x->as_string() : "";
    if (const JsonValue* x = v.find("order")) s.order = (size_t)std::max<int64_t>(0, x->as_int());
    if (const JsonValue* x = v.find("reason")) s.reason = x->as_string();
    s.input_error = number_from(v.find("input_error"));
    s.output_error = number_from(v.find("output_error"));
    s.amplification = number_from(v.find("amplification"));
    s.inputs = rows_from(v.find("inputs"));
    s.outputs = rows_from(v.find("outputs"));
    s.stack = strings_from(v.find("stack"));
    s.module_path = strings_from(v.find("module_path"));
    if (const JsonValue* n = v.find("next_steps")) {
      auto path = [&](const char* key) {
        const JsonValue* p = n->find(key);
        return p && p->is_string() ? p->as_string() : std::string();
      };
      s.next_steps = {path("redump_config_npu"), path("redump_config_bench"), path("config_op"),
                      path("compare_json")};
    }
    if (const JsonValue* r = v.find("replay")) {
      const JsonValue* verdict = r->find("verdict");
      const JsonValue* reason = r->find("reason");
      s.replay.verdict = verdict && verdict->is_string() ? verdict->as_string() : "";
      s.replay.reason = reason && reason->is_string() ? reason->as_string() : "";
      s.replay.dumped_output_error = number_from(r->find("dumped_output_error"));
      s.replay.replayed_output_error = number_from(r->find("replayed_output_error"));
      s.replay.npu_api_error = number_from(r->find("npu_api_error"));
      s.replay.bench_api_error = number_from(r->find("bench_api_error"));
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace compare
}  // namespace msprobe
