#include "msprobe/monitor/anomaly_file.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/format/json_value.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {
namespace monitor {
namespace {

std::string render(const std::vector<AnomalyEntry>& entries) {
  if (entries.empty()) return "{}";
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  for (const AnomalyEntry& e : entries) {
    w.key(e.key());
    w.begin_object();
    w.key("rank");
    w.integer(e.rank);
    w.key("step");
    w.integer(e.step);
    w.key("micro_step");
    w.integer(e.micro_step);
    w.key("pp_stage");
    w.integer(e.pp_stage);
    w.key("vpp_stage");
    w.integer(e.vpp_stage);
    w.key("call_id");
    w.integer(e.call_id);
    w.key("tag_name");
    w.string(e.tag_name);
    w.key("message");
    w.string(e.message);
    w.key("group_mates");
    w.begin_array();
    for (int64_t r : e.group_mates) w.integer(r);
    w.end_array();
    w.end_object();
  }
  w.end_object();
  return out;
}

void upsert(std::vector<AnomalyEntry>& entries, AnomalyEntry e) {
  const std::string k = e.key();
  for (AnomalyEntry& old : entries) {
    if (old.key() == k) {
      old = std::move(e);
      return;
    }
  }
  entries.push_back(std::move(e));
}

// 1.2.1's training stage of a tag, from its last part: forward 0, backward 1, optimizer 2, else -1.
int train_stage(const std::string& tag) {
  const std::string last = tag.substr(tag.rfind('/') == std::string::npos ? 0 : tag.rfind('/') + 1);
  if (last == "input" || last == "output") return 0;
  if (last == "input_grad" || last == "output_grad" || last == "pre_grad" || last == "post_grad" ||
      last == "acc_grad")
    return 1;
  if (last == "exp_avg" || last == "efxp_avg_sq") return 2;
  return -1;
}

int64_t int_field(const JsonValue& v, const char* name, const std::string& origin) {
  const JsonValue* f = v.find(name);
  MSPROBE_CHECK(f && f->is_int(), InvalidInput,
                origin + ": \"" + name + "\" of an anomaly must be an integer");
  return f->as_int();
}

}  // namespace

std::string AnomalyEntry::key() const {
  return tag_name + "_step_" + std::to_string(step) + "_call_" + std::to_string(call_id);
}

AnomalyFile::AnomalyFile(const std::string& dir, int64_t rank, int64_t pp_stage,
                         std::vector<int64_t> group_mates)
    : rank_(rank), pp_stage_(pp_stage), group_mates_(std::move(group_mates)) {
  const std::string rank_dir = join_path(dir, "rank" + std::to_string(rank));
  make_dirs(rank_dir, "anomaly folder");
  path_ = join_path(rank_dir, "anomaly.json");
  write_file_atomically(path_, "{}");
}

void AnomalyFile::write(const std::vector<MonitorAlert>& alerts) {
  for (const MonitorAlert& a : alerts) {
    AnomalyEntry e;
    e.rank = rank_;
    e.step = a.step;
    e.pp_stage = pp_stage_;
    const std::string name = a.tag.substr(0, a.tag.find('/'));
    const size_t colon = name.find(':');
    if (colon != std::string::npos) {
      try {
        e.vpp_stage = std::stoll(name.substr(0, colon));
      } catch (const std::exception&) {
        e.vpp_stage = 0;
      }
    }
    e.call_id = a.call_id;
    e.tag_name = a.tag;
    e.message = a.message;
    e.group_mates = group_mates_;
    upsert(entries_, std::move(e));
  }
  write_file_atomically(path_, render(entries_));
}

std::vector<AnomalyEntry> read_anomalies(const std::string& data_path) {
  MSPROBE_CHECK(is_folder(data_path), InvalidInput, "anomaly data path " + data_path + " is not a folder");
  std::vector<AnomalyEntry> out;
  std::vector<std::string> ranks = numbered_names(data_path, "rank");
  for (const std::string& rank_dir : ranks) {
    const std::string path = join_path(join_path(data_path, rank_dir), "anomaly.json");
    if (!is_regular_file_not_link(path)) continue;
    const JsonValue doc = parse_json_file(path);
    MSPROBE_CHECK(doc.is_object(), InvalidInput, path + ": must be a JSON object");
    for (const auto& [key, v] : doc.as_object()) {
      MSPROBE_CHECK(v.is_object(), InvalidInput, path + ": anomaly " + key + " must be an object");
      AnomalyEntry e;
      e.rank = int_field(v, "rank", path);
      e.step = int_field(v, "step", path);
      e.micro_step = int_field(v, "micro_step", path);
      e.pp_stage = int_field(v, "pp_stage", path);
      e.vpp_stage = int_field(v, "vpp_stage", path);
      e.call_id = int_field(v, "call_id", path);
      if (const JsonValue* t = v.find("tag_name"); t && t->is_string()) e.tag_name = t->as_string();
      if (const JsonValue* m = v.find("message"); m && m->is_string()) e.message = m->as_string();
      if (const JsonValue* g = v.find("group_mates"); g && g->is_array())
        for (const JsonValue& r : g->as_array()) e.group_mates.push_back(r.as_int());
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::vector<AnomalyEntry> earliest_anomalies(std::vector<AnomalyEntry> entries, int64_t top_k,
                                             const std::vector<int64_t>& steps) {
  MSPROBE_CHECK(top_k > 0, InvalidInput, "the top k number must be greater than 0");
  if (!steps.empty()) {
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const AnomalyEntry& e) {
                                   return std::find(steps.begin(), steps.end(), e.step) == steps.end();
                                 }),
                  entries.end());
  }
  auto order = [](const AnomalyEntry& e) {
    const int stage = train_stage(e.tag_name);
    const int64_t sign = stage == 0 ? 1 : -1;
    return std::make_tuple(e.step, e.micro_step, stage, sign * e.vpp_stage, sign * e.pp_stage, e.call_id);
  };
  std::stable_sort(entries.begin(), entries.end(),
                   [&](const AnomalyEntry& a, const AnomalyEntry& b) { return order(a) < order(b); });
  if ((int64_t)entries.size() > top_k) entries.resize((size_t)top_k);
  return entries;
}

std::string write_anomaly_analysis(const std::string& out_dir, const std::vector<AnomalyEntry>& entries) {
  MSPROBE_CHECK(is_folder(out_dir), InvalidInput, "anomaly analysis output " + out_dir + " is not a folder");
  const std::string path = join_path(out_dir, "anomaly_analyse.json");
  std::vector<AnomalyEntry> unique;
  for (const AnomalyEntry& e : entries) upsert(unique, e);
  write_file_atomically(path, render(unique));
  return path;
}

}  // namespace monitor
}  // namespace msprobe
