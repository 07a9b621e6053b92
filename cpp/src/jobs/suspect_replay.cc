// The replay verdict of the first suspects (see suspect_replay.h).
#include "msprobe/jobs/suspect_replay.h"

#include <exception>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

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
constexpr std::string_view kBackward = ".backward";

struct DumpRecords {
  bool tensor_data = false;
  std::string tensor_dir;
  std::unordered_map<std::string, JsonValue> records;
};

DumpRecords read_records(const std::string& dump_json, const std::unordered_set<std::string>& wanted) {
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
  // A backward suspect's outputs are the gradients its autograd node passed on.
  const JsonValue& npu_entry = req.backward() ? req.npu_grad_record : req.npu_record;
  const JsonValue& bench_entry = req.backward() ? req.bench_grad_record : req.bench_record;
  std::vector<reader::LoadedTensor> npu_out, bench_out;
  collect_outputs(*npu_entry.find("output"), reader::TensorStore(npu.tensor_dir), &npu_out);
  collect_outputs(*bench_entry.find("output"), reader::TensorStore(bench.tensor_dir), &bench_out);
  const std::vector<TensorView> npu_dumped = views_of(npu_out), bench_dumped = views_of(bench_out);
  job.replay(req,
             [&](const std::vector<TensorView>& npu_replay, const std::vector<TensorView>& bench_replay) {
               if (npu_replay.size() != npu_dumped.size() || bench_replay.size() != bench_dumped.size()) {
                 s.replay.reason = "not replayed: the replay gave " + std::to_string(npu_replay.size()) +
                                   " tensors where the dump has " + std::to_string(npu_dumped.size());
                 return;
               }
               s.replay = judge_replay(npu_dumped, bench_dumped, npu_replay, bench_replay);
             });
}

bool is_module(const Suspect& s) { return starts_with(s.name, "Module.") || starts_with(s.name, "Cell."); }

// "Functional.gelu.2.forward" / ".backward" of a replayable API: the part before the direction,
// split as run_ut does; false for modules, cells and names run_ut cannot split.
bool replayable(const Suspect& s, std::string* call, std::string* type, std::string* api) {
  const std::string_view dir = s.forward ? kForward : kBackward;
  if (is_module(s) || !ends_with(s.name, dir)) return false;
  *call = s.name.substr(0, s.name.size() - dir.size());
  return runut::split_api_name(*call, type, api);
}

const JsonValue* find_record(const DumpRecords& d, const std::string& name) {
  auto it = d.records.find(name);
  return it == d.records.end() ? nullptr : &it->second;
}

}  // namespace

void replay_suspects(std::vector<Suspect>* suspects, const CompareJob& job) {
  if (!job.replay || suspects->empty()) return;
  std::vector<std::pair<size_t, ReplayRequest>> requests;  // suspect index, what to replay
  std::vector<size_t> modules;                             // module / cell suspects among them
  std::unordered_set<std::string> wanted;                  // entries to read from both dumps
  for (size_t i = 0; i < suspects->size() && requests.size() + modules.size() < kMaxReplayedSuspects; ++i) {
    if ((*suspects)[i].source) continue;  // a tensor that differs, not a call to blame
    if (is_module((*suspects)[i])) {
      modules.push_back(i);
      continue;
    }
    ReplayRequest req;
    std::string call;
    if (!replayable((*suspects)[i], &call, &req.api_type, &req.api_name)) continue;
    req.entry = (*suspects)[i].name;
    wanted.insert(call + std::string(kForward));
    if (!(*suspects)[i].forward) wanted.insert(req.entry);
    requests.emplace_back(i, std::move(req));
  }
  if (requests.empty() && modules.empty()) return;
  const DumpRecords npu = read_records(job.npu_json, wanted);
  if (!npu.tensor_data) return;
  const DumpRecords bench = read_records(job.bench_json, wanted);
  if (!bench.tensor_data) return;
  for (size_t i : modules) {
    (*suspects)[i].replay.reason =
        "not replayed: a module's code is not in the dump (a dump at level mix or L1 names the APIs inside "
        "it, "
        "which are replayed)";
  }
  for (auto& [index, req] : requests) {
    Suspect& s = (*suspects)[index];
    const std::string forward_name = req.entry.substr(0, req.entry.rfind('.')) + std::string(kForward);
    const std::vector<std::string> names = s.forward ? std::vector<std::string>{forward_name}
                                                     : std::vector<std::string>{forward_name, req.entry};
    std::string missing;
    for (const std::string& name : names) {
      if (!find_record(npu, name)) missing = "the NPU dump has no entry " + name;
      if (missing.empty() && !find_record(bench, name)) missing = "the bench dump has no entry " + name;
      if (!missing.empty()) break;
    }
    if (!missing.empty()) {
      s.replay.reason = "not replayed: " + missing;
      continue;
    }
    req.npu_record = *find_record(npu, forward_name);
    req.bench_record = *find_record(bench, forward_name);
    if (!s.forward) {
      req.npu_grad_record = *find_record(npu, req.entry);
      req.bench_grad_record = *find_record(bench, req.entry);
    }
    req.npu_tensor_dir = npu.tensor_dir;
    req.bench_tensor_dir = bench.tensor_dir;
    const JsonValue& judged = s.forward ? req.npu_record : req.npu_grad_record;
    const JsonValue& judged_bench = s.forward ? req.bench_record : req.bench_grad_record;
    if (!judged.find("output") || !judged_bench.find("output")) {
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
