// get_bench_data_name of 1.2.1 (see bench_data_name.h).
#include "bench_data_name.h"

#include <unordered_map>

#include "compare/matching/dump_parse.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace compare {

namespace {

struct Query {
  bool valid = false;
  std::string key;    // the bench entry
  std::string group;  // input / output / kwargs / parameters / parameters_grad
  std::vector<std::string> layers;
};

// re.split(r'\.(input|output|kwargs|parameters|parameters_grad)\.', name): the parts before the
// first match, the matched word and the text up to the next match.
bool split_first(const std::string& name, size_t from, size_t& pos, std::string& word, size_t& end) {
  static const char* const kWords[] = {"input", "output", "kwargs", "parameters", "parameters_grad"};
  for (size_t p = name.find('.', from); p != std::string::npos; p = name.find('.', p + 1)) {
    for (const char* w : kWords) {
      const size_t n = std::char_traits<char>::length(w);
      if (name.compare(p + 1, n, w) == 0 && p + 1 + n < name.size() && name[p + 1 + n] == '.') {
        pos = p;
        word = w;
        end = p + n + 2;
        return true;
      }
    }
  }
  return false;
}

Query parse_query(const std::string& name) {
  Query q;
  size_t pos, end;
  std::string word;
  if (!split_first(name, 0, pos, word, end)) {
    q.key = name;  // 1.2.1 looks the whole name up and then finds fewer than 3 parts: None
    return q;
  }
  size_t pos2, end2;
  std::string word2;
  const size_t stop = split_first(name, end, pos2, word2, end2) ? pos2 : name.size();
  q.valid = true;
  q.group = word;
  q.key = name.substr(0, pos);
  if (word == "parameters_grad") q.key += ".parameters_grad";
  const std::string rest = name.substr(end, stop - end);
  size_t start = 0;
  while (true) {
    const size_t dot = rest.find('.', start);
    q.layers.push_back(rest.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (word == "parameters_grad") q.layers.push_back("0");
  return q;
}

// _get(key, container)
const JsonValue* step(const JsonValue* c, const std::string& key) {
  if (!c) return nullptr;
  if (c->is_object()) return c->find(key);
  if (c->is_array()) {
    // int(key): optional sign and digits (surrounding spaces allowed); negative indexes count
    // from the end
    size_t i = 0;
    while (i < key.size() && key[i] == ' ') ++i;
    size_t j = key.size();
    while (j > i && key[j - 1] == ' ') --j;
    std::string s = key.substr(i, j - i);
    bool neg = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
      neg = s[0] == '-';
      s = s.substr(1);
    }
    if (s.empty() || s.size() > 18) return nullptr;
    for (char ch : s)
      if (ch < '0' || ch > '9') return nullptr;
    long long idx = std::stoll(s);
    const auto& a = c->as_array();
    if (neg) idx = (long long)a.size() - idx;
    if (idx < 0 || idx >= (long long)a.size()) return nullptr;
    return &a[(size_t)idx];
  }
  return nullptr;
}

std::string resolve(const Query& q, const JsonValue& bundle) {
  if (!py_truthy(bundle)) return "";
  const JsonValue* start = nullptr;
  if (q.group == "input") {
    start = bundle.find("input");
    if (!bundle.find("input")) start = bundle.find("input_args");
  } else if (q.group == "kwargs") {
    start = bundle.find("input_kwargs");
  } else if (q.group == "output") {
    start = bundle.find("output");
  } else if (q.group == "parameters") {
    start = bundle.find("parameters");
  } else {
    start = &bundle;
  }
  const JsonValue* d = start;
  for (const auto& layer : q.layers) d = step(d, layer);
  const JsonValue* name = step(d, "data_name");
  if (!name || !py_truthy(*name)) return "";
  return py_str(*name);
}

}  // namespace

std::vector<std::string> resolve_bench_data_names(const std::string& bench_dump_json,
                                                  const std::vector<std::string>& bench_names) {
  std::vector<Query> queries;
  queries.reserve(bench_names.size());
  std::unordered_map<std::string, std::vector<size_t>> by_key;
  for (size_t i = 0; i < bench_names.size(); ++i) {
    queries.push_back(parse_query(bench_names[i]));
    if (queries.back().valid) by_key[queries.back().key].push_back(i);
  }
  std::vector<std::string> out(bench_names.size());
  if (by_key.empty()) return out;
  for_each_record(bench_dump_json, [&](const std::string& name, const JsonValue& record) {
    auto it = by_key.find(name);
    if (it == by_key.end()) return;
    for (size_t i : it->second) out[i] = resolve(queries[i], record);  // a repeated entry: last wins
  });
  return out;
}

}  // namespace compare
}  // namespace msprobe
