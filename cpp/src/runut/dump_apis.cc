// dump.json -> the forward / backward records run_ut replays (read through reader::DumpJsonReader).
#include "msprobe/runut/dump_apis.h"

#include <cmath>
#include <unordered_set>

#include "msprobe/base/error.h"
#include "msprobe/reader/dump_json_reader.h"

namespace msprobe {
namespace runut {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Numbers as Python sees them: bool is an int subclass.
bool as_number(const JsonValue& v, bool* is_int, int64_t* i, double* d) {
  switch (v.type()) {
    case JsonValue::Type::kBool:
      *is_int = true;
      *i = v.as_bool() ? 1 : 0;
      return true;
    case JsonValue::Type::kInt:
      *is_int = true;
      *i = v.as_int();
      return true;
    case JsonValue::Type::kFloat:
      *is_int = false;
      *d = v.as_double();
      return true;
    default: return false;
  }
}

// Python == with the keys Max and Min of every object removed (`strip` true) or kept.
bool equal_impl(const JsonValue& a, const JsonValue& b, bool strip_max_min) {
  bool ai, bi;
  int64_t aiv = 0, biv = 0;
  double adv = 0, bdv = 0;
  const bool an = as_number(a, &ai, &aiv, &adv), bn = as_number(b, &bi, &biv, &bdv);
  if (an || bn) {
    if (!(an && bn)) return false;
    if (ai && bi) return aiv == biv;
    const double x = ai ? (double)aiv : adv, y = bi ? (double)biv : bdv;
    return x == y;  // NaN != NaN, as for distinct float objects in Python
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case JsonValue::Type::kNull: return true;
    case JsonValue::Type::kString: return a.as_string() == b.as_string();
    case JsonValue::Type::kArray: {
      const auto& x = a.as_array();
      const auto& y = b.as_array();
      if (x.size() != y.size()) return false;
      for (size_t k = 0; k < x.size(); ++k) {
        if (!equal_impl(x[k], y[k], strip_max_min)) return false;
      }
      return true;
    }
    case JsonValue::Type::kObject: {
      auto skip = [&](const std::string& k) { return strip_max_min && (k == "Max" || k == "Min"); };
      size_t na = 0, nb = 0;
      for (const auto& kv : a.as_object()) na += !skip(kv.first);
      for (const auto& kv : b.as_object()) nb += !skip(kv.first);
      if (na != nb) return false;
      for (const auto& kv : a.as_object()) {
        if (skip(kv.first)) continue;
        const JsonValue* other = b.find(kv.first);
        if (!other || !equal_impl(kv.second, *other, strip_max_min)) return false;
      }
      return true;
    }
    default: return false;
  }
}

}  // namespace

bool json_truthy(const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::kNull: return false;
    case JsonValue::Type::kBool: return v.as_bool();
    case JsonValue::Type::kInt: return v.as_int() != 0;
    case JsonValue::Type::kFloat: return v.as_double() != 0.0;  // NaN is true
    case JsonValue::Type::kString: return !v.as_string().empty();
    case JsonValue::Type::kArray: return !v.as_array().empty();
    case JsonValue::Type::kObject: return !v.as_object().empty();
  }
  return false;
}

bool json_equal(const JsonValue& a, const JsonValue& b) { return equal_impl(a, b, false); }

DumpApis DumpApis::load(const std::string& path) {
  DumpApis out;
  out.path_ = path;
  reader::DumpJsonReader r(path);
  out.real_data_ = r.header().has_real_data();
  out.real_data_dir_ = r.header().tensor_dir();
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
      if (json_equal(*kwargs, *jkwargs) && equal_impl(*args, *jargs, true)) {
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
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = full_name.find('.', start);
    parts.push_back(
        full_name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() == 3) {
    if (api_type) *api_type = std::string(parts[0]);
    if (api_name) *api_name = std::string(parts[1]);
    return true;
  }
  if (parts.size() == 4) {
    if (api_type) *api_type = std::string(parts[0]);
    if (api_name) *api_name = std::string(parts[1]) + "." + std::string(parts[2]);
    return true;
  }
  return false;
}

}  // namespace runut
}  // namespace msprobe
