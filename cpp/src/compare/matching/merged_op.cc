// merge_tensor, get_name_and_state and reorder_op_x_list of 1.2.1 (see merged_op.h).
#include "merged_op.h"

#include <cctype>
#include <unordered_map>

#include "msprobe/base/error.h"

namespace msprobe {
namespace compare {

namespace {

bool has_params_grad_segment(const std::string& name) {
  static const std::string seg = "parameters_grad";
  for (size_t p = name.find(seg); p != std::string::npos; p = name.find(seg, p + 1)) {
    const bool left = p == 0 || name[p - 1] == '.';
    const bool right = p + seg.size() == name.size() || name[p + seg.size()] == '.';
    if (left && right) return true;
  }
  return false;
}

// Position and length of the first ".forward." / ".backward." at or after `from`.
bool find_direction(const std::string& name, size_t from, size_t& pos, size_t& len, std::string& word) {
  for (size_t p = name.find('.', from); p != std::string::npos; p = name.find('.', p + 1)) {
    for (const char* w : {"forward", "backward"}) {
      const size_t n = std::char_traits<char>::length(w);
      if (name.compare(p + 1, n, w) == 0 && p + 1 + n < name.size() && name[p + 1 + n] == '.') {
        pos = p;
        len = n + 2;
        word = w;
        return true;
      }
    }
  }
  return false;
}

[[noreturn]] void invalid_name(const std::string& name) {
  throw InvalidInput("Invalid name string: " + name);
}

}  // namespace

StructGroup group_of(State s) {
  switch (s) {
    case State::kInput:
    case State::kKwargs: return kInputGroup;
    case State::kOutput: return kOutputGroup;
    case State::kParams: return kParamsGroup;
    case State::kParamsGrad: return kParamsGradGroup;
  }
  return kInputGroup;
}

NameState get_name_and_state(const std::string& name) {
  if (has_params_grad_segment(name))
    return {name.substr(0, name.find("parameters_grad")), State::kParamsGrad};
  size_t pos, len;
  std::string word;
  if (!find_direction(name, 0, pos, len, word)) invalid_name(name);
  std::string api = name.substr(0, pos) + "." + word + ".";
  size_t end = name.size(), pos2, len2;
  std::string word2;
  if (find_direction(name, pos + len, pos2, len2, word2)) end = pos2;
  const std::string rest = name.substr(pos + len, end - (pos + len));
  // ^(\d+\.)?(input|output|kwargs|parameters)\..+$
  size_t i = 0;
  while (i < rest.size() && std::isdigit((unsigned char)rest[i])) ++i;
  size_t body = 0;
  if (i > 0 && i < rest.size() && rest[i] == '.') body = i + 1;
  auto try_state = [&](size_t at, State& st) {
    static const std::pair<const char*, State> kStates[] = {{"input", State::kInput},
                                                            {"output", State::kOutput},
                                                            {"kwargs", State::kKwargs},
                                                            {"parameters", State::kParams}};
    for (const auto& s : kStates) {
      const size_t n = std::char_traits<char>::length(s.first);
      if (rest.compare(at, n, s.first) == 0 && at + n + 1 < rest.size() && rest[at + n] == '.' &&
          rest.find('\n', at + n + 1) == std::string::npos) {
        st = s.second;
        return true;
      }
    }
    return false;
  };
  State st;
  if (body > 0 && try_state(body, st)) return {api + rest.substr(0, body), st};
  if (try_state(0, st)) return {api, st};
  invalid_name(name);
}

const JsonValue& MergedOp::stack_value() const {
  static const JsonValue kNone;
  return stack ? *stack : kNone;
}

MergedOp merge_items(const std::string& entry, std::vector<OpItem>&& items) {
  MergedOp op;
  op.entry = entry;
  op.op_name.reserve(items.size());
  for (auto& it : items) {
    const State st = get_name_and_state(it.full_op_name).state;
    op.op_name.push_back(std::move(it.full_op_name));
    LeafStruct s{std::move(it.dtype), std::move(it.shape), std::move(it.md5)};
    op.structs[group_of(st)].push_back(std::move(s));
    op.summary.push_back(std::move(it.stats));
    op.data_name.push_back(std::move(it.data_name));
  }
  return op;
}

std::vector<size_t> reordered_leaves(const MergedOp& op) {
  std::unordered_map<std::string, size_t> last;
  for (size_t i = 0; i < op.op_name.size(); ++i) last[op.op_name[i]] = i;
  std::vector<size_t> others, params, outputs, grads;
  for (size_t i = 0; i < op.op_name.size(); ++i) {
    switch (get_name_and_state(op.op_name[i]).state) {
      case State::kParams: params.push_back(i); break;
      case State::kOutput: outputs.push_back(i); break;
      case State::kParamsGrad: grads.push_back(i); break;
      default: others.push_back(i);
    }
  }
  std::vector<size_t> order;
  order.reserve(op.op_name.size());
  for (const auto* part : {&others, &params, &outputs, &grads})
    for (size_t i : *part) order.push_back(last[op.op_name[i]]);
  return order;
}

}  // namespace compare
}  // namespace msprobe
