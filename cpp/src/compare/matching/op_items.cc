// Flattening a dump.json entry into 1.2.1's leaf items (see op_items.h).
#include "op_items.h"

#include <cstdio>

#include "msprobe/base/error.h"
#include "msprobe/format/py_value.h"
#include "msprobe/stats/tensor_stats.h"

namespace msprobe {
namespace compare {

namespace {

constexpr int kMaxDepth = 10;  // Const.MAX_DEPTH
const char* const kStatKeys[4] = {"Max", "Min", "Mean", "Norm"};

bool contains_segment(const std::string& name, const char* seg) {
  size_t start = 0;
  while (start <= name.size()) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    if (name.compare(start, dot - start, seg) == 0 && std::char_traits<char>::length(seg) == dot - start)
      return true;
    start = dot + 1;
  }
  return false;
}

JsonValue get(const JsonValue& obj, const char* key) {
  const JsonValue* v = obj.find(key);
  return v ? *v : JsonValue();
}

OpItem default_item(const std::string& op_name) {
  OpItem item;
  item.full_op_name = op_name;
  return item;  // dtype, shape, md5, stats None; data_name "-1"
}

// gen_op_item
OpItem leaf_item(const JsonValue& data, const std::string& op_name) {
  OpItem item;
  const JsonValue data_name = get(data, "data_name");
  if (py_truthy(data_name)) item.data_name = py_str(data_name);
  if (item.data_name != "-1") {
    const size_t dot = item.data_name.rfind('.');
    item.full_op_name = dot == std::string::npos ? item.data_name : item.data_name.substr(0, dot);
  } else {
    item.full_op_name = op_name;
  }
  for (int i = 0; i < 4; ++i) item.stats[i] = get(data, kStatKeys[i]);
  item.dtype = get(data, "dtype");
  item.shape = get(data, "shape");
  if (!py_truthy(item.dtype)) {
    const JsonValue type = get(data, "type");
    const JsonValue value = get(data, "value");
    if (type.is_string() && type.as_string() == "torch.Size") {
      item.dtype = type;
      item.shape = JsonValue::make_string(py_str(value));
    } else if (type.is_string() && type.as_string() == "slice") {
      item.dtype = type;
      item.shape = JsonValue::make_string(np_shape_str(value));
    } else {
      item.dtype = JsonValue::make_string(py_type_str(value));
      item.shape = JsonValue::make_string("[]");
      for (auto& s : item.stats) s = value;
    }
  }
  item.md5 = get(data, "md5");
  if (!py_truthy(item.md5)) {
    const JsonValue* value = data.find("value");
    const std::string text = value ? py_str(*value) : std::string();
    const uint32_t crc = crc32_update(0, text.data(), text.size());
    char hex[16];
    std::snprintf(hex, sizeof hex, "%08x", crc);
    item.md5 = JsonValue::make_string(hex);
  }
  return item;
}

bool is_leaf(const JsonValue& v) {
  const JsonValue* type = v.find("type");
  return type && type->is_string();
}

void parse_items(const JsonValue& data, const std::string& op_name, int depth, std::vector<OpItem>& out) {
  if (depth > kMaxDepth)
    throw InvalidInput("parse of api/module of " + op_name + " exceeds the recursion limit.");
  if (data.is_null()) {
    out.push_back(default_item(op_name));
    return;
  }
  if (!py_truthy(data)) return;
  if (data.is_array()) {
    const bool params_grad = contains_segment(op_name, "parameters_grad");
    const auto& a = data.as_array();
    for (size_t i = 0; i < a.size(); ++i)
      parse_items(a[i], params_grad ? op_name : op_name + "." + std::to_string(i), depth + 1, out);
  } else if (data.is_object()) {
    if (is_leaf(data)) {
      out.push_back(leaf_item(data, op_name));
      return;
    }
    for (const auto& kv : data.as_object()) parse_items(kv.second, op_name + "." + kv.first, depth + 1, out);
  }
}

// A full-width + - = % @ (U+FF0B, U+FF0D, U+FF1D, U+FF05, U+FF20) at s[i].
bool fullwidth_mark_at(const std::string& s, size_t i) {
  if (i + 3 > s.size()) return false;
  if ((unsigned char)s[i] != 0xEF) return false;
  const unsigned char b = (unsigned char)s[i + 1], c = (unsigned char)s[i + 2];
  return (b == 0xBC && (c == 0x8B || c == 0x8D || c == 0x9D || c == 0x85 || c == 0xA0));
}

bool mark_at(const std::string& s, size_t i) {
  if (i >= s.size()) return false;
  const char c = s[i];
  return c == '+' || c == '-' || c == '=' || c == '%' || c == '@' || fullwidth_mark_at(s, i);
}

void check_value(const std::string& key, const JsonValue& value, const std::string& op_name) {
  if (key == "shape" && !value.is_array())
    throw InvalidInput("shape of input or output of " + op_name + " is not list or tuple, please check!");
  if (key == "requires_grad" && !value.is_bool())
    throw InvalidInput("requires_grad of input or output of " + op_name + " is not bool, please check!");
  if (key != "shape" && key != "requires_grad" && value.is_string() &&
      is_blacklisted_string(value.as_string()))
    throw InvalidInput("data info of " + op_name + " contains special characters, please check!");
}

void check_key_values(const JsonValue& v, const std::string& op_name, int depth) {
  if (depth > kMaxDepth) return;  // 1.2.1 logs and stops checking
  if (v.is_array()) {
    for (const auto& e : v.as_array()) check_key_values(e, op_name, depth + 1);
  } else if (v.is_object()) {
    for (const auto& kv : v.as_object()) {
      if (kv.second.is_object()) {
        check_key_values(kv.second, op_name, depth + 1);
      } else {
        check_value(kv.first, kv.second, op_name);
      }
    }
  }
}

}  // namespace

bool is_blacklisted_string(const std::string& s) {
  if (mark_at(s, 0)) return true;
  for (size_t i = s.find(';'); i != std::string::npos; i = s.find(';', i + 1))
    if (mark_at(s, i + 1)) return true;
  return false;
}

void check_entry_name(const std::string& name) {
  if (is_blacklisted_string(name))
    throw InvalidInput("api name contains special characters, please check! (" + name + ")");
}

void check_entry_strings(const JsonValue& record, const std::string& op_name) {
  if (!record.is_object()) return;
  const JsonValue args = get(record, "input_args");
  const JsonValue inputs = py_truthy(args) ? args : get(record, "input");
  for (const JsonValue& arg : {inputs, get(record, "input_kwargs"), get(record, "output")}) {
    if (!py_truthy(arg)) continue;
    if (arg.is_object()) {
      check_key_values(arg, op_name, 0);
    } else if (arg.is_array()) {
      for (const auto& e : arg.as_array())
        if (py_truthy(e)) check_key_values(e, op_name, 0);
    }
  }
}

void check_stack_strings(const JsonValue& stack, const std::string& op_name) {
  if (!stack.is_array()) {
    const std::string t = py_type_str(stack);  // "<class 'dict'>" -> "dict"
    throw InvalidInput("Expected stack_info to be a list, but got " + t.substr(8, t.size() - 10) + " for '" +
                       op_name + "'");
  }
  for (const auto& line : stack.as_array())
    if (line.is_string() && is_blacklisted_string(line.as_string()))
      throw InvalidInput("stack info of " + op_name + " contains special characters, please check!");
}

std::vector<OpItem> read_op(const JsonValue& record, const std::string& op_name) {
  std::vector<OpItem> items;
  if (contains_segment(op_name, "parameters_grad")) {
    parse_items(record, op_name, 0, items);
    return items;
  }
  if (!record.is_object()) return items;
  static const std::pair<const char*, const char*> kIo[] = {{"input_args", ".input"},
                                                            {"input_kwargs", ".input"},
                                                            {"input", ".input"},
                                                            {"output", ".output"},
                                                            {"parameters", ".parameters"}};
  for (const auto& io : kIo) {
    const JsonValue* v = record.find(io.first);
    if (v) parse_items(*v, op_name + io.second, 0, items);
  }
  return items;
}

}  // namespace compare
}  // namespace msprobe
