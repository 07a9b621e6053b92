// dump.json -> the forward / backward records run_ut replays (read through reader::DumpJsonReader).
#include "msprobe/runut/dump_apis.h"

#include <cmath>
#include <unordered_set>

#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "msprobe/format/json_python.h"
#include "msprobe/reader/dump_json_reader.h"

namespace msprobe {
namespace runut {

namespace {

bool is_max_or_min(const std::string& key) { return key == "Max" || key == "Min"; }

}  // namespace

DumpApis DumpApis::load(const std::string& path) {
  DumpApis out;
  out.path_ = path;
  reader::DumpJsonReader r(path);
  out.real_data_ = r.header().has_real_data();
  out.real_data_dir_ = r.header().tensor_dir();
  out.task_ = r.header().task;
  out.framework_ = r.header().framework;
  std::vector<std::pair<std::string, const JsonValue*>> backward;
  r.for_each_entry([&](std::string_view key, const JsonValue& record) {
    if (key.find("Module") != std::string_view::npos) return;
    if (ends_with(key, ".forward")) {
      out.records_.push_back(record);
      const JsonValue* kept = &out.records_.back();
      std::string name(key.substr(0, key.size() - 8));
      auto it = out.index_.find(name);
      if (it != out.index_.end()) {  // a repeated key: the last one wins (json.load)
        out.apis_[it->second].forward = kept;
        return;
      }
      out.index_.emplace(name, out.apis_.size());
      DumpApi api;
      api.name = std::move(name);
      api.forward = kept;
      out.apis_.push_back(std::move(api));
    } else if (ends_with(key, ".backward")) {
      out.records_.push_back(record);
      backward.emplace_back(std::string(key.substr(0, key.size() - 9)), &out.records_.back());
    } else {
      out.warnings_.push_back(path + ": data[\"" + std::string(key) +
                              "\"]: the name does not end in .forward or .backward; skipped");
    }
  });
  if (r.note().torn) out.warnings_.push_back(r.note().message);
  std::unordered_set<std::string> orphans;  // a repeated key counts once (json.load keeps one)
  for (const auto& b : backward) {
    auto it = out.index_.find(b.first);
    if (it == out.index_.end()) {
      orphans.insert(b.first);
    } else {
      out.apis_[it->second].backward = b.second;
    }
  }
  out.orphan_backward_ = orphans.size();
  return out;
}

int64_t DumpApis::index_of(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? -1 : (int64_t)it->second;
}

std::vector<size_t> filter_similar_apis(const DumpApis& apis) {
  static const JsonValue kEmptyList = JsonValue::make_array({});
  static const JsonValue kNull;
  std::unordered_map<std::string, std::vector<size_t>> kept_by_group;
  std::vector<size_t> kept;
  for (size_t i = 0; i < apis.size(); ++i) {
    const DumpApi& api = apis.api(i);
    const size_t dot = api.name.rfind('.');
    std::string group = dot == std::string::npos ? api.name : api.name.substr(0, dot);
    const JsonValue* args = api.forward->is_object() ? api.forward->find("input_args") : nullptr;
    const JsonValue* kwargs = api.forward->is_object() ? api.forward->find("input_kwargs") : nullptr;
    if (!args) args = &kEmptyList;
    if (!kwargs) kwargs = &kNull;
    auto& members = kept_by_group[group];
    bool duplicate = false;
    for (size_t j : members) {
      const JsonValue* jargs = apis.api(j).forward->find("input_args");
      const JsonValue* jkwargs = apis.api(j).forward->find("input_kwargs");
      if (!jargs) jargs = &kEmptyList;
      if (!jkwargs) jkwargs = &kNull;
      if (py_equal(*kwargs, *jkwargs) && py_equal(*args, *jargs, is_max_or_min)) {
        duplicate = true;
        break;
      }
    }
    if (!duplicate) {
      members.push_back(i);
      kept.push_back(i);
    }
  }
  return kept;
}

bool split_api_name(std::string_view full_name, std::string* api_type, std::string* api_name) {
  const std::vector<std::string_view> parts = split(full_name, '.');
  if (parts.size() != 3 && parts.size() != 4) return false;
  if (api_type) *api_type = std::string(parts[0]);
  if (api_name) *api_name = join(parts, ".", 1, parts.size() - 1);
  return true;
}

bool split_details_row_name(std::string_view row_name, std::string* api_name, std::string* api_full,
                            std::string* direction) {
  const std::vector<std::string_view> parts = split(row_name, '.');
  if (parts.size() < 3) return false;
  const std::string api = join(parts, ".", 0, parts.size() - 3);  // without direction.output.k
  if (!split_api_name(api, nullptr, api_name)) return false;
  if (api_full) *api_full = api;
  if (direction) *direction = std::string(parts[parts.size() - 3]);
  return true;
}

}  // namespace runut
}  // namespace msprobe
