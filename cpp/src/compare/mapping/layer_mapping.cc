// -lm: 1.2.1's layer mapping (core/compare/layer_mapping/*.py): entry scopes from construct.json
// and stack.json, a scope tree per dump, npu entries looked up in the bench tree under renamed
// layers, rows paired by their suffix. See LayerMapper in name_mapping.h.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <unordered_map>

#include "compare/matching/merged_op.h"
#include "compare/matching/op_items.h"
#include "msprobe/base/error.h"
#include "msprobe/base/path.h"
#include "msprobe/base/strings.h"
#include "msprobe/compare/name_mapping.h"
#include "msprobe/format/json_value.h"

namespace msprobe {
namespace compare {
namespace {

const char kTopLayer[] = "TopLayer";
const char kNA[] = "N/A";

bool contains_any(std::string_view s, std::initializer_list<const char*> needles) {
  for (const char* n : needles)
    if (contains(s, n)) return true;
  return false;
}

// One dump entry (1.2.1's DumpDataItem).
struct DataItem {
  std::string data_name, api_type, api_name, type_name, state;
  std::string layer_scope, frame_stack_scope, full_scope;
};

// get_stack_in_lines: the function names of stack lines, innermost last reversed to outermost
// first, without msprobe/MindSpeed files and construct/__call__ functions.
std::vector<std::string> stack_functions(const std::vector<const std::string*>& lines) {
  std::vector<std::string> out;
  for (const std::string* line : lines) {
    if (!line || line->empty()) continue;
    const std::vector<std::string_view> ele = split(*line, ',');
    if (contains_any(ele[0], {"msprobe", "MindSpeed"})) continue;
    if (ele.size() < 3) throw InvalidInput("compare -lm: stack line '" + *line + "' has no function part");
    if (contains_any(ele[2], {"construct", "__call__"})) continue;
    std::istringstream words{std::string(ele[2])};
    std::string w, name;
    words >> w >> name;  // " in func" -> "func"
    if (name.empty()) throw InvalidInput("compare -lm: stack line '" + *line + "' has no function name");
    out.push_back(name);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// set_stack_scope: the framework frame just outside the API wrapper ("frame stack scope").
std::string frame_scope(const JsonValue& stack, bool mindspore) {
  static const std::regex kStart("Template");
  static const std::regex kEndMs("construct");
  static const std::regex kEndPt("in (for|back)ward,");
  const std::regex& end_sign = mindspore ? kEndMs : kEndPt;
  const auto& lines = stack.as_array();
  long start = -1;
  size_t end = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& s = lines[i].is_string() ? lines[i].as_string() : std::string();
    if (std::regex_search(s, kStart)) {
      start = (long)i;
    } else if (start >= 0 && std::regex_search(s, end_sign)) {
      end = i;
      break;
    }
  }
  const std::string* frame = nullptr;
  bool no_entrance = true;
  for (size_t i = (size_t)(start + 1); i < end; ++i) {
    if (!lines[i].is_string()) throw InvalidInput("compare -lm: stack is invalid, it should be a list[str]");
    const std::string& line = lines[i].as_string();
    const std::string_view file = split(line, ',')[0];
    if (no_entrance && contains_any(file, {"site-packages/torch", "package/torch", "site-packages/mindspore",
                                           "package/mindspore"}))
      frame = &line;
    else
      no_entrance = false;
  }
  std::vector<std::string> funcs = stack_functions({frame});
  return join(funcs, ".");
}

DataItem make_item(const std::string& name, const JsonValue* construct, const JsonValue* stack,
                   bool mindspore) {
  DataItem it;
  it.data_name = name;
  const std::vector<std::string_view> parts = split(name, '.');
  if (parts.size() < 4)
    throw InvalidInput("compare -lm: dump entry '" + name + "' does not have the four fields of a dump name");
  const size_t n = parts.size();
  const bool is_layer_type = parts[0] == "Cell" || parts[0] == "Module";
  if (parts[n - 1] == "parameters_grad") {
    it.api_type = it.state = "parameters_grad";
    it.api_name = parts[n - 3];
    it.type_name = parts[n - 2];
  } else {
    it.api_type = parts[0];
    it.type_name = parts[n - 3];
    it.api_name = is_layer_type ? parts[n - 4] : it.type_name;
    it.state = is_layer_type ? parts[n - 2] : parts[n - 1];
  }
  // set_layer_scope
  const std::string parent = construct && construct->is_string() ? construct->as_string() : "";
  std::vector<std::string_view> scope;  // parts of `name` or of `parent`
  if (is_layer_type && it.api_type != "parameters_grad") {
    scope.assign(parts.begin(), parts.end() - 4);
    scope.insert(scope.end(), parts.end() - 3, parts.end());
  } else if (it.api_type == "parameters_grad") {
    scope = parts;
  } else if (!parent.empty()) {
    scope = split(parent, '.');
  }
  it.layer_scope = scope.empty() ? kTopLayer : join(scope, ".", 0, scope.size() >= 3 ? scope.size() - 3 : 0);
  if (!parent.empty() && split(parent, '.').size() < 4)
    throw InvalidInput("compare -lm: construct.json parent '" + parent + "' of '" + name +
                       "' does not have the four fields of a dump name");
  // set_stack_scope: APIs only, not Primitive/Jit, not without a stack
  if (!is_layer_type && it.api_type != "Primitive" && it.api_type != "Jit" && stack && stack->is_array() &&
      !stack->as_array().empty())
    it.frame_stack_scope = frame_scope(*stack, mindspore);
  it.full_scope = it.layer_scope;
  if (!it.frame_stack_scope.empty()) it.full_scope += "." + it.frame_stack_scope;
  it.full_scope += "." + it.api_name;
  return it;
}

// backward_pass: a backward entry takes its forward entry's scopes.
void backward_pass(std::vector<DataItem>& items) {
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < items.size(); ++i) by_name[items[i].data_name] = i;
  for (DataItem& it : items) {
    const std::vector<std::string_view> names = split(it.data_name, '.');
    std::vector<std::string> parts(names.begin(), names.end());
    const size_t n = parts.size();
    bool backward = false;
    for (size_t i = n >= 2 ? n - 2 : 0; i < n; ++i)
      if (parts[i] == "backward") backward = true;
    if (!backward) continue;
    for (size_t i = n >= 2 ? n - 2 : 0; i < n; ++i) parts[i] = py_replace(parts[i], "backward", "forward");
    auto f = by_name.find(join(parts, "."));
    if (f == by_name.end()) continue;
    const DataItem& fw = items[f->second];
    it.full_scope = fw.full_scope;
    it.layer_scope = fw.layer_scope;
  }
}

// renumber_index_pass(items, "ParallelTransformer", "layers"): layer indices made relative.
double next_item_last_number(const std::string& scope, const std::string& prefix) {
  if (scope.compare(0, prefix.size() + 1, prefix + ".") != 0) return INFINITY;
  size_t start = prefix.size() + 1;
  size_t stop = scope.find('.', start);
  std::string next = scope.substr(start, stop == std::string::npos ? std::string::npos : stop - start);
  if (next.empty() || next.find_first_of(" \t\n") != std::string::npos) return INFINITY;
  static const std::regex kDigits("\\d+");
  double last = INFINITY;
  for (auto m = std::sregex_iterator(next.begin(), next.end(), kDigits); m != std::sregex_iterator(); ++m)
    last = std::stod(m->str());
  return last;
}

void renumber_pass(std::vector<DataItem>& items) {
  std::vector<std::pair<std::string, double>> prefixes;
  for (const DataItem& it : items)
    if (it.type_name == "ParallelTransformer") {
      std::string p = it.full_scope + ".layers";
      if (std::none_of(prefixes.begin(), prefixes.end(), [&](auto& x) { return x.first == p; }))
        prefixes.push_back({p, INFINITY});
    }
  for (auto& [prefix, least] : prefixes)
    for (const DataItem& it : items) least = std::min(least, next_item_last_number(it.full_scope, prefix));
  for (auto& [prefix, least] : prefixes)
    for (DataItem& it : items) {
      double rel = next_item_last_number(it.full_scope, prefix) - least;
      if (std::isinf(rel)) continue;
      if (it.full_scope.compare(0, prefix.size() + 1, prefix + ".") != 0) continue;
      size_t start = prefix.size() + 1;
      size_t stop = it.full_scope.find('.', start);
      std::string rest = stop == std::string::npos ? "" : it.full_scope.substr(stop);
      std::string num = std::isnan(rel) ? "nan" : std::to_string((long long)rel);
      it.full_scope = prefix + "." + num + rest;
    }
}

struct Trie {
  std::string type_name;
  std::vector<std::pair<std::string, std::vector<const DataItem*>>> items;  // by state, in order
  std::vector<std::pair<std::string, std::unique_ptr<Trie>>> children;

  Trie* child(std::string_view name) const {
    for (auto& c : children)
      if (c.first == name) return c.second.get();
    return nullptr;
  }
  std::vector<const DataItem*>* items_of(const std::string& state) {
    for (auto& s : items)
      if (s.first == state) return &s.second;
    return nullptr;
  }
  void insert(const DataItem& it) {
    const std::vector<std::string_view> parts = split(it.full_scope, '.');
    Trie* node = this;
    for (size_t i = 1; i < parts.size(); ++i) {
      Trie* next = node->child(parts[i]);
      if (!next) {
        node->children.push_back({std::string(parts[i]), std::make_unique<Trie>()});
        next = node->children.back().second.get();
        next->type_name = parts[i];
      }
      node = next;
    }
    auto* list = node->items_of(it.state);
    if (!list) {
      node->items.push_back({it.state, {}});
      list = &node->items.back().second;
    }
    list->push_back(&it);
    node->type_name = it.type_name;
  }
  const DataItem* query(const std::string& scope, const std::string& state, long index) {
    const std::vector<std::string_view> parts = split(scope, '.');
    Trie* node = this;
    for (size_t i = 1; i < parts.size(); ++i) {
      node = node->child(parts[i]);
      if (!node) return nullptr;
    }
    auto* list = node->items_of(state);
    long size = list ? (long)list->size() : 0;
    if (index >= size) return nullptr;
    if (index < 0) index += size;  // Python's list[-1]
    if (index < 0) return nullptr;
    return (*list)[(size_t)index];
  }
};

struct Rule {
  std::string origin, target;
  size_t level;
};
// {type: {first part of origin: rules, longest first}}
using Rules = std::map<std::string, std::map<std::string, std::vector<Rule>>>;

Rules preprocess(const LayerMapper::Table& table) {
  Rules out;
  // update_keys_in_place: a "Cell" table becomes the "TopLayer" table, replacing one given as such
  auto add = [&out](const std::string& type, const std::vector<std::pair<std::string, std::string>>& names) {
    auto& by_prefix = out[type];
    by_prefix.clear();
    for (const auto& [origin, target] : names) {
      const std::vector<std::string_view> parts = split(origin, '.');
      by_prefix[std::string(parts[0])].push_back({origin, target, parts.size()});
    }
    for (auto& [p, rules] : by_prefix)
      std::stable_sort(rules.begin(), rules.end(),
                       [](const Rule& a, const Rule& b) { return a.level > b.level; });
  };
  for (const auto& [type, names] : table)
    if (type != "Cell") add(type, names);
  for (const auto& [type, names] : table)
    if (type == "Cell") add(kTopLayer, names);
  return out;
}

struct Side {
  bool mindspore = false;
  JsonValue dump;
  std::vector<DataItem> items;
  Trie root;
};

bool is_mindspore_dump(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw FileError("compare -lm: cannot read '" + path + "'");
  static const std::regex kMs("\"type\":\\s*\"mindspore");
  static const std::regex kPt("\"type\":\\s*\"torch");
  std::string line;
  while (std::getline(f, line)) {
    if (std::regex_search(line, kMs)) return true;
    if (std::regex_search(line, kPt)) return false;
  }
  throw InvalidInput("compare -lm: " + path + " must be based on the MindSpore or PyTorch framework.");
}

void load_side(const std::string& dump_json, Side* side) {
  side->mindspore = is_mindspore_dump(dump_json);
  side->dump = parse_json_file(dump_json);
  const std::string dir = folder_of(dump_json);
  JsonValue stack = parse_json_file(join_path(dir, "stack.json"));
  JsonValue construct = parse_json_file(join_path(dir, "construct.json"));
  side->root.type_name = kTopLayer;
  const JsonValue* data = side->dump.find("data");
  bool empty_side = !stack.is_object() || stack.as_object().empty() || !construct.is_object() ||
                    construct.as_object().empty();
  if (!data || !data->is_object() || empty_side) return;
  for (const auto& [name, record] : data->as_object())
    side->items.push_back(make_item(name, construct.find(name), stack.find(name), side->mindspore));
  backward_pass(side->items);
  renumber_pass(side->items);
  for (const DataItem& it : side->items) side->root.insert(it);
}

// convert_scope: the npu item's scope with layers renamed, its state and its index in its node.
void convert_scope(Trie& npu_root, const DataItem& it, const Rules& rules, std::string* scope, long* index) {
  *scope = kTopLayer;
  const std::vector<std::string_view> parts = split(it.full_scope, '.');
  Trie* node = &npu_root;
  size_t idx = 0;
  while (idx + 1 < parts.size()) {
    const std::string_view child = parts[idx + 1];
    size_t step = 1;
    bool mapped = false;
    auto type_rules = rules.find(node->type_name);
    if (type_rules != rules.end()) {
      auto prefix_rules = type_rules->second.find(std::string(child));
      if (prefix_rules != type_rules->second.end())
        for (const Rule& r : prefix_rules->second)
          if (join(parts, ".", idx + 1, idx + r.level + 1) == r.origin) {
            *scope += "." + r.target;
            step = r.level;
            mapped = true;
            break;
          }
    }
    if (!mapped) *scope += "." + std::string(child);  // the identity rule 1.2.1 appends
    for (size_t s = 0; s < step; ++s) {
      node = node ? node->child(parts[idx + 1]) : nullptr;
      ++idx;
    }
  }
  *index = -1;
  if (!node) return;
  if (auto* list = node->items_of(it.state))
    for (size_t i = 0; i < list->size(); ++i)
      if ((*list)[i]->data_name == it.data_name) *index = (long)i;
}

// reorder_op_name_list: others, parameters, outputs, parameters_grad.
std::vector<std::string> reordered(const std::vector<std::string>& names) {
  std::vector<std::string> others, params, outputs, grads;
  for (const std::string& n : names) {
    State s = get_name_and_state(n).state;
    (s == State::kParams       ? params
     : s == State::kOutput     ? outputs
     : s == State::kParamsGrad ? grads
                               : others)
        .push_back(n);
  }
  for (auto* v : {&params, &outputs, &grads}) others.insert(others.end(), v->begin(), v->end());
  return others;
}

std::vector<std::string> row_names(const JsonValue& dump, const std::string& entry) {
  const JsonValue* data = dump.find("data");
  const JsonValue* record = data ? data->find(entry) : nullptr;
  static const JsonValue kEmpty = JsonValue::make_object({});
  std::vector<std::string> names;
  for (const OpItem& item : read_op(record ? *record : kEmpty, entry)) names.push_back(item.full_op_name);
  return reordered(names);
}

}  // namespace

LayerMapper::LayerMapper(const std::string& npu_dump_json, const std::string& bench_dump_json,
                         const Table& table) {
  Side npu, bench;
  load_side(npu_dump_json, &npu);
  load_side(bench_dump_json, &bench);
  Rules rules = preprocess(table);
  for (const DataItem& it : npu.items) {
    std::string scope;
    long index;
    convert_scope(npu.root, it, rules, &scope, &index);
    const DataItem* hit = bench.root.query(scope, it.state, index);
    entries_.push_back({it.data_name, hit ? hit->data_name : kNA});
  }
  // generate_data_mapping: rows paired by their suffix after the entry name (a dict: a later
  // npu row of the same name replaces the earlier pair in place)
  std::unordered_map<std::string, size_t> pair_of;
  for (const auto& [npu_entry, bench_entry] : entries_) {
    if (npu_entry.empty()) continue;
    std::vector<std::pair<std::string, std::string>> bench_by_suffix;
    for (const std::string& b : row_names(bench.dump, bench_entry))
      bench_by_suffix.push_back({b.substr(std::min(b.size(), bench_entry.size())), b});
    for (const std::string& n : row_names(npu.dump, npu_entry)) {
      std::string suffix = n.substr(std::min(n.size(), npu_entry.size()));
      std::string target = kNA;
      for (const auto& [s, b] : bench_by_suffix)
        if (s == suffix) target = b;  // the last bench row of that suffix, as the dict keeps
      auto same = pair_of.find(n);
      if (same != pair_of.end()) {
        pairs_[same->second].second = target;
      } else {
        pair_of[n] = pairs_.size();
        pairs_.push_back({n, target});
      }
    }
  }
}

}  // namespace compare
}  // namespace msprobe
