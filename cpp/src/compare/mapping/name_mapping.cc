// MindSpore name mappings of 1.2.1's compare (-am, -cm, -dm); see name_mapping.h.
#include "msprobe/compare/name_mapping.h"

#include <regex>

#include "msprobe/base/error.h"

namespace msprobe {
namespace compare {

std::string api_name_of(const std::string& row_name) {
  size_t first = row_name.find('.');
  if (first == std::string::npos)
    throw InvalidInput("compare: op name '" + row_name +
                       "' has no API name (expected '{type}.{api}.{index}...')");
  size_t second = row_name.find('.', first + 1);
  return row_name.substr(0, second);
}

std::string py_replace(const std::string& s, const std::string& old_text, const std::string& new_text,
                       int count) {
  if (old_text.empty() || count == 0) return s;
  std::string out;
  size_t pos = 0;
  int done = 0;
  while (count < 0 || done < count) {
    size_t hit = s.find(old_text, pos);
    if (hit == std::string::npos) break;
    out.append(s, pos, hit - pos);
    out += new_text;
    pos = hit + old_text.size();
    ++done;
  }
  out.append(s, pos, std::string::npos);
  return out;
}

// ---------------------------------------------------------------- -am

ApiMapper::ApiMapper(std::unordered_map<std::string, std::string> builtin, std::vector<UserApiMapping> user)
    : builtin_(std::move(builtin)), user_(std::move(user)) {}

std::string ApiMapper::builtin_key(const std::string& row_name) const {
  const std::string api = api_name_of(row_name);
  const std::string type = api.substr(0, api.find('.'));
  if (type == "Mint") return py_replace(row_name, "Mint", "Torch");
  if (type == "MintFunctional") return py_replace(row_name, "MintFunctional", "Functional");
  auto it = builtin_.find(api);
  if (it != builtin_.end() && !it->second.empty()) return py_replace(row_name, api, it->second);
  return row_name;
}

namespace {

// 1.2.1's gen_input_compare_key: rewrites the index after `pattern`; true when none matched.
bool rewrite_index(const std::string& op_name, const std::string& pattern,
                   const std::vector<std::string>& ms_values, const std::vector<std::string>& pt_values,
                   std::string* key) {
  bool abandoned = true;
  size_t at = op_name.find(pattern);
  // Python's op_name.split(pattern)[1]: the text between the first and the second occurrence
  std::string after = op_name.substr(at + pattern.size());
  size_t next = after.find(pattern);
  if (next != std::string::npos) after.resize(next);
  for (size_t i = 0; i < ms_values.size(); ++i) {
    if (after.compare(0, ms_values[i].size(), ms_values[i]) != 0) continue;
    *key = py_replace(op_name, pattern + ms_values[i], pattern + pt_values[i]);
    abandoned = false;
  }
  return abandoned;
}

bool same_lengths(const UserApiMapping& m) {
  return m.ms_args.size() == m.pt_args.size() && m.ms_output.size() == m.pt_output.size() &&
         m.ms_parameters.size() == m.pt_parameters.size() &&
         m.ms_parameters_grad.size() == m.pt_parameters_grad.size();
}

}  // namespace

void ApiMapper::prepare(const std::vector<std::string>& npu_rows,
                        const std::vector<std::string>& bench_rows) {
  user_keys_.clear();
  skipped_.clear();
  if (user_.empty()) return;
  std::unordered_map<std::string, std::vector<const std::string*>> npu_by_api;
  for (const std::string& row : npu_rows) npu_by_api[api_name_of(row)].push_back(&row);
  std::unordered_set<std::string> bench_apis;
  for (const std::string& row : bench_rows) bench_apis.insert(api_name_of(row));

  for (const UserApiMapping& m : user_) {
    if (!same_lengths(m)) {
      skipped_.push_back(m.ms_api);
      continue;
    }
    auto rows = npu_by_api.find(m.ms_api);
    if (rows == npu_by_api.end() || !bench_apis.count(m.pt_api)) continue;
    for (const std::string* row : rows->second) {
      const std::string op_name = py_replace(*row, m.ms_api, m.pt_api, 1);
      std::string key;
      bool abandoned;
      if (op_name.find(".input.") != std::string::npos)
        abandoned = rewrite_index(op_name, ".input.", m.ms_args, m.pt_args, &key);
      else if (op_name.find(".kwargs.") != std::string::npos)
        abandoned = rewrite_index(op_name, ".kwargs.", m.ms_args, m.pt_args, &key);
      else if (op_name.find(".output.") != std::string::npos)
        abandoned = rewrite_index(op_name, ".output.", m.ms_output, m.pt_output, &key);
      else if (op_name.find(".parameters.") != std::string::npos)
        abandoned = rewrite_index(op_name, ".parameters.", m.ms_parameters, m.pt_parameters, &key);
      else if (op_name.find(".parameters_grad.") != std::string::npos)
        abandoned =
            rewrite_index(op_name, ".parameters_grad.", m.ms_parameters_grad, m.pt_parameters_grad, &key);
      else
        throw InvalidInput("compare -am: op name '" + op_name +
                           "' has none of .input. .kwargs. .output. .parameters. "
                           ".parameters_grad.");
      // a later entry for the same API overrides an earlier one, as in 1.2.1
      user_keys_[*row] = abandoned ? op_name + "abandoned" : key;
    }
  }
}

std::string ApiMapper::npu_key(const std::string& row_name) const {
  auto it = user_keys_.find(row_name);
  if (it != user_keys_.end()) return it->second;
  return builtin_key(row_name);
}

// ---------------------------------------------------------------- -cm

CellMapper::CellMapper(std::unordered_map<std::string, std::string> table) : table_(std::move(table)) {}

std::string CellMapper::npu_key(const std::string& row_name) const {
  if (row_name.empty()) return "N/A";
  bool params_grad = false;  // 1.2.1: "parameters_grad" in name.split(".")
  for (size_t start = 0; start <= row_name.size();) {
    size_t end = row_name.find('.', start);
    if (end == std::string::npos) end = row_name.size();
    if (row_name.compare(start, end - start, "parameters_grad") == 0) params_grad = true;
    start = end + 1;
  }
  if (!params_grad && row_name.find(".forward.") == std::string::npos &&
      row_name.find(".backward.") == std::string::npos)
    return "N/A";
  std::string name = py_replace(row_name, "Cell", "Module", 1);
  if (table_.empty()) return name;
  // 1.2.1: re.split(r'\.(?:forward|backward|parameters_grad)\.', name.split('.', 1)[-1])[0]
  size_t dot = name.find('.');
  std::string rest = dot == std::string::npos ? name : name.substr(dot + 1);
  static const std::regex kPhase(R"(\.(?:forward|backward|parameters_grad)\.)");
  std::smatch m;
  std::string cell = std::regex_search(rest, m, kPhase) ? rest.substr(0, m.position(0)) : rest;
  auto it = table_.find(cell);
  if (it != table_.end()) name = py_replace(name, cell, it->second, 1);
  return name;
}

// ---------------------------------------------------------------- -dm

DataMapper::DataMapper(std::vector<std::pair<std::string, std::string>> pairs) : pairs_(std::move(pairs)) {}

}  // namespace compare
}  // namespace msprobe
