// The replay verdict of the first suspects (see suspect_replay.h).
#include "msprobe/jobs/suspect_replay.h"

#include <exception>
#include <string>
#include <string_view>
#include <unordered_map>

#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "msprobe/compare/replay_verdict.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/tensor_store.h"
#include "msprobe/runut/dump_apis.h"

namespace msprobe {
namespace compare {
namespace {

constexpr std::string_view kForward = ".forward";

struct DumpRecords {
  bool tensor_data = false;
  std::string tensor_dir;
  std::unordered_map<std::string, JsonValue> records;
};

DumpRecords read_records(const std::string& dump_json,
                         const std::unordered_map<std::string, size_t>& wanted) {
  reader::DumpJsonReader dump(dump_json);
  DumpRecords r;
  r.tensor_data = dump.header().has_real_data();
  r.tensor_dir = dump.header().tensor_dir();
  if (!r.tensor_data) return r;
  dump.for_each_entry([&](std::string_view name, const JsonValue& record) {
    const std::string key(name);
    if (wanted.count(key)) r.records.emplace(key, record);
  });
  return r;
}

// The dumped tensors of the entry's outputs, in order.
void collect_outputs(const JsonValue& v, const reader::TensorStore& store,
                     std::vector<reader::LoadedTensor>* out) {
  if (v.is_array()) {
    for (const JsonValue& e : v.as_array()) collect_outputs(e, store, out);
    return;
  }
  if (!v.is_object()) return;
  const JsonValue* name = v.find("data_name");
  if (name != nullptr && name->is_string()) out->push_back(store.load(name->as_string()));
}

std::vector<TensorView> views_of(const std::vector<reader::LoadedTensor>& tensors) {
  std::vector<TensorView> v;
  for (const auto& t : tensors) v.push_back(t.view());
  return v;
}

void replay_one(Suspect& s, const ReplayRequest& req, const DumpRecords& npu, const DumpRecords& bench,
                const CompareJob& job) {
  std::vector<reader::LoadedTensor> npu_out, bench_out;
  collect_outputs(*req.npu_record.find("output"), reader::TensorStore(npu.tensor_dir), &npu_out);
  collect_outputs(*req.bench_record.find("output"), reader::TensorStore(bench.tensor_dir), &bench_out);
  const std::vector<TensorView> npu_dumped = views_of(npu_out), bench_dumped = views_of(bench_out);
  job.replay(req,
             [&](const std::vector<TensorView>& npu_replay, const std::vector<TensorView>& bench_replay) {
               s.replay = judge_replay(npu_dumped, bench_dumped, npu_replay, bench_replay);
             });
}

}  // namespace

void replay_suspects(std::vector<Suspect>* suspects, const CompareJob& job) {
  if (!job.replay || suspects->empty()) return;
  std::unordered_map<std::string, size_t> wanted;  // entry -> suspect index
  for (size_t i = 0; i < suspects->size() && wanted.size() < kMaxReplayedSuspects; ++i) {
    const std::string& name = (*suspects)[i].name;
    std::string type, api;
    if (!(*suspects)[i].forward || !ends_with(name, kForward)) continue;
    if (!runut::split_api_name(std::string_view(name).substr(0, name.size() - kForward.size()), &type, &api))
      continue;
    if (type == "Module" || type == "Cell") continue;
    wanted.emplace(name, i);
  }
  if (wanted.empty()) return;
  const DumpRecords npu = read_records(job.npu_json, wanted);
  if (!npu.tensor_data) return;
  const DumpRecords bench = read_records(job.bench_json, wanted);
  if (!bench.tensor_data) return;
  for (const auto& [name, index] : wanted) {
    Suspect& s = (*suspects)[index];
    auto n = npu.records.find(name), b = bench.records.find(name);
    if (n == npu.records.end() || b == bench.records.end()) {
      s.replay.reason = "not replayed: the " + std::string(n == npu.records.end() ? "NPU" : "bench") +
                        " dump has no entry " + name;
      continue;
    }
    ReplayRequest req;
    req.entry = name;
    runut::split_api_name(std::string_view(name).substr(0, name.size() - kForward.size()), &req.api_type,
                          &req.api_name);
    req.npu_record = n->second;
    req.bench_record = b->second;
    req.npu_tensor_dir = npu.tensor_dir;
    req.bench_tensor_dir = bench.tensor_dir;
    if (!req.npu_record.find("output") || !req.bench_record.find("output")) {
      s.replay.reason = "not replayed: the entry records no output";
      continue;
    }
    try {
      replay_one(s, req, npu, bench, job);
    } catch (const std::exception& e) {
      s.replay = SuspectReplay();
      s.replay.reason = std::string("not replayed: ") + e.what();
    }
  }
}

std::string replay_line(const Suspect& s) {
  if (s.replay.empty()) return "";
  if (s.replay.verdict.empty()) return "Replay of " + s.name + ": " + s.replay.reason + ".";
  return "Replay of " + s.name + " in float64 on each run's inputs: " + s.replay.verdict + ": " +
         s.replay.reason + ".";
}

}  // namespace compare
}  // namespace msprobe
