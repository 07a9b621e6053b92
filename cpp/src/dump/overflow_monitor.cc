// overflow_check bookkeeping: see overflow_monitor.h.
#include "msprobe/dump/overflow_monitor.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "msprobe/base/strings.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {

namespace {
bool nonfinite(const StatValue& v) { return v.kind == StatValue::Kind::kFloat && !std::isfinite(v.f); }

// Strips ".<digits>" from the end of s; false when s does not end that way.
bool strip_index(std::string_view& s) {
  const size_t dot = s.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == s.size()) return false;
  for (size_t i = dot + 1; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  s = s.substr(0, dot);
  return true;
}

bool strip_direction(std::string_view& s, std::string& direction) {
  for (std::string_view d : {std::string_view("forward"), std::string_view("backward")}) {
    if (s.size() > d.size() && ends_with(s, d) && s[s.size() - d.size() - 1] == '.') {
      direction = std::string(d);
      s.remove_suffix(d.size() + 1);
      return true;
    }
  }
  return false;
}

void write_source(JsonWriter& w, const OverflowEvent& ev) {
  w.key("source");
  if (ev.file.empty()) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("file");
  w.string(ev.file);
  w.key("line");
  w.integer(ev.line);
  w.key("function");
  w.string(ev.function);
  w.key("text");
  w.string(ev.text);
  w.end_object();
}

void write_event(JsonWriter& w, const OverflowEvent& ev, size_t order) {
  const ApiOfEntry a = api_of_entry(ev.entry);
  w.begin_object();
  w.key("entry");
  w.string(ev.entry);
  w.key("kind");
  w.string(overflow_kind_name(ev.kind));
  w.key("api");
  w.string(a.api);
  w.key("direction");
  w.string(a.direction);
  w.key("order");
  w.integer((int64_t)order);
  w.key("time");
  w.floating(ev.time);
  write_source(w, ev);
  w.end_object();
}

struct ApiGroup {
  std::string api, direction;
  size_t first = 0;            // event index of the first occurrence
  int64_t first_culprit = -1;  // event index of the first culprit occurrence
  int64_t culprits = 0, passed_on = 0;
};
}  // namespace

bool stats_overflow(const TensorStats& s) { return nonfinite(s.max) || nonfinite(s.min); }

const char* overflow_kind_name(OverflowKind k) {
  return k == OverflowKind::kCulprit ? "culprit" : "passed_on";
}

OverflowKind classify_overflow(bool inputs_overflow, bool outputs_overflow) {
  return !inputs_overflow && outputs_overflow ? OverflowKind::kCulprit : OverflowKind::kPassedOn;
}

ApiOfEntry api_of_entry(const std::string& entry) {
  std::string_view s(entry);
  std::string direction;
  if (ends_with(s, ".parameters_grad")) {
    s.remove_suffix(std::string_view(".parameters_grad").size());
    return {std::string(s), "parameters_grad"};
  }
  std::string_view api = s;
  if (strip_direction(api, direction) && strip_index(api)) return {std::string(api), direction};  // API
  std::string_view mod = s;
  if (strip_index(mod) && strip_direction(mod, direction)) return {std::string(mod), direction};  // module
  return {entry, ""};
}

bool OverflowMonitor::record(OverflowEvent ev) {
  const bool first = total_ == 0;
  ++total_;
  events_.push_back(std::move(ev));
  return first;
}

int64_t OverflowMonitor::step_culprits() const {
  return (int64_t)std::count_if(events_.begin(), events_.end(),
                                [](const OverflowEvent& e) { return e.kind == OverflowKind::kCulprit; });
}

std::string OverflowMonitor::step_summary_json(const std::string& framework, const std::string& level,
                                               int64_t step, int64_t rank) const {
  // Group the events per (api, direction), keeping the order of first occurrence.
  std::vector<ApiGroup> groups;
  std::unordered_map<std::string, size_t> index;
  int64_t first_culprit = -1;
  for (size_t i = 0; i < events_.size(); ++i) {
    const OverflowEvent& ev = events_[i];
    ApiOfEntry a = api_of_entry(ev.entry);
    const std::string key = a.api + '\n' + a.direction;
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, groups.size()).first;
      groups.push_back(ApiGroup{std::move(a.api), std::move(a.direction), i});
    }
    ApiGroup& g = groups[it->second];
    if (ev.kind == OverflowKind::kCulprit) {
      ++g.culprits;
      if (g.first_culprit < 0) g.first_culprit = (int64_t)i;
      if (first_culprit < 0) first_culprit = (int64_t)i;
    } else {
      ++g.passed_on;
    }
  }
  // Culprits first (by their first culprit occurrence), then the rest by first occurrence.
  std::stable_sort(groups.begin(), groups.end(), [](const ApiGroup& a, const ApiGroup& b) {
    const bool ca = a.first_culprit >= 0, cb = b.first_culprit >= 0;
    if (ca != cb) return ca;
    return ca ? a.first_culprit < b.first_culprit : a.first < b.first;
  });

  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("task");
  w.string("overflow_check");
  w.key("framework");
  w.string(framework);
  w.key("level");
  w.string(level);
  w.key("step");
  w.integer(step);
  w.key("rank");
  if (rank < 0)
    w.null();
  else
    w.integer(rank);
  w.key("overflow_nums");
  w.integer(limit_);
  w.key("overflows_in_step");
  w.integer((int64_t)events_.size());
  w.key("culprits_in_step");
  w.integer(step_culprits());
  w.key("overflows_in_run");
  w.integer(total_);
  w.key("limit_reached");
  w.boolean(limit_reached());
  w.key("first");
  if (events_.empty())
    w.null();
  else
    write_event(w, events_.front(), 0);
  w.key("first_culprit");
  if (first_culprit < 0)
    w.null();
  else
    write_event(w, events_[(size_t)first_culprit], (size_t)first_culprit);
  w.key("apis");
  w.begin_array();
  for (const ApiGroup& g : groups) {
    const size_t shown = g.first_culprit >= 0 ? (size_t)g.first_culprit : g.first;
    w.begin_object();
    w.key("api");
    w.string(g.api);
    w.key("direction");
    w.string(g.direction);
    w.key("kind");
    w.string(g.first_culprit >= 0 ? "culprit" : "passed_on");
    w.key("count");
    w.integer(g.culprits + g.passed_on);
    w.key("culprit_count");
    w.integer(g.culprits);
    w.key("passed_on_count");
    w.integer(g.passed_on);
    w.key("first_entry");
    w.string(events_[shown].entry);
    w.key("first_order");
    w.integer((int64_t)shown);
    write_source(w, events_[shown]);
    w.end_object();
  }
  w.end_array();
  w.key("entries");
  w.begin_array();
  for (size_t i = 0; i < events_.size(); ++i) write_event(w, events_[i], i);
  w.end_array();
  w.end_object();
  out += '\n';
  return out;
}

std::string first_overflow_message(const OverflowEvent& ev, int64_t step, int64_t rank) {
  std::string m = "overflow_check: first inf/NaN at " + ev.entry + " (step " + std::to_string(step) +
                  (rank < 0 ? std::string(", not distributed") : ", rank " + std::to_string(rank)) + "): ";
  if (ev.kind == OverflowKind::kCulprit)
    m += "it produced inf/NaN from finite inputs";
  else if (api_of_entry(ev.entry).direction == "parameters_grad")
    m += "a parameter gradient holds inf/NaN";
  else
    m += "it received inf/NaN (an input already held one: its producer was not recorded)";
  if (!ev.file.empty()) {
    m += "; called at " + ev.file + ":" + std::to_string(ev.line);
    if (!ev.function.empty()) m += " in " + ev.function;
    if (!ev.text.empty()) m += ": " + ev.text;
  }
  return m;
}

}  // namespace msprobe
