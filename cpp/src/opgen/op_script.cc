// The reproduction script of op_generate (see op_script.h).
#include "msprobe/opgen/op_script.h"

#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "msprobe/check/standards.h"
#include "msprobe/format/json_text.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace opgen {
namespace {

bool is_tensor_type(const std::string& t) {
  return t == "torch.Tensor" || t == "torch.nn.parameter.Parameter";
}

std::string float_source(double v) {
  if (std::isnan(v)) return "float(\"nan\")";
  if (std::isinf(v)) return v > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  return py_float_repr(v);
}

// A plain JSON value (no record types) as a Python literal.
std::string literal(const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::kNull: return "None";
    case JsonValue::Type::kBool: return v.as_bool() ? "True" : "False";
    case JsonValue::Type::kInt: return std::to_string(v.as_int());
    case JsonValue::Type::kFloat: return float_source(v.as_double());
    case JsonValue::Type::kString: return py_str_repr(v.as_string());
    case JsonValue::Type::kArray: {
      std::vector<std::string> items;
      for (const JsonValue& e : v.as_array()) items.push_back(literal(e));
      return "[" + join(items, ", ") + "]";
    }
    case JsonValue::Type::kObject: {
      std::vector<std::string> items;
      for (const auto& [k, e] : v.as_object()) items.push_back(py_str_repr(k) + ": " + literal(e));
      return "{" + join(items, ", ") + "}";
    }
  }
  return "None";
}

// "torch.float32" -> torch.float32 (code), anything else stays a string.
std::string torch_attribute(const std::string& name) {
  if (!starts_with(name, "torch.") || name.size() <= 6) return py_str_repr(name);
  for (char c : name.substr(6))
    if (!(std::isalnum((unsigned char)c) || c == '_')) return py_str_repr(name);
  return name;
}

// The keys of a tensor record the script needs: what random generation reads, and the file.
std::string tensor_source(const JsonValue& rec) {
  std::vector<std::string> items;
  for (const char* key : {"dtype", "shape", "Max", "Min", "requires_grad", "data_name"}) {
    if (const JsonValue* v = rec.find(key)) items.push_back(py_str_repr(key) + ": " + literal(*v));
  }
  return "tensor({" + join(items, ", ") + "})";
}

std::string record_source(const JsonValue& rec) {
  const JsonValue* type = rec.find("type");
  if (type == nullptr || !type->is_string()) {  // a dict argument
    std::vector<std::string> items;
    for (const auto& [k, e] : rec.as_object()) items.push_back(py_str_repr(k) + ": " + python_source(e));
    return "{" + join(items, ", ") + "}";
  }
  const std::string& t = type->as_string();
  const JsonValue* value = rec.find("value");
  if (is_tensor_type(t)) return tensor_source(rec);
  if (t == "ellipsis") return "...";
  if (t == "slice" && value != nullptr && value->is_array() && value->as_array().size() == 3) {
    const auto& a = value->as_array();
    return "slice(" + literal(a[0]) + ", " + literal(a[1]) + ", " + literal(a[2]) + ")";
  }
  if (t == "torch.dtype" && value != nullptr && value->is_string())
    return torch_attribute(value->as_string());
  if (t == "torch.device" && value != nullptr && value->is_string()) {
    return "torch.device(" + py_str_repr(value->as_string()) + ")";
  }
  if (t == "torch.Size" && value != nullptr) return "torch.Size(" + literal(*value) + ")";
  if (t == "torch.memory_format") {
    const JsonValue* f = rec.find("format");
    if (f != nullptr && f->is_string()) return torch_attribute("torch." + f->as_string());
  }
  if (value != nullptr) return literal(*value);
  return "None";  // a value the dump describes but does not hold (a process group, ...)
}

// Items of a list or dict, one a line, for the template's ARGS / KWARGS / GRAD_OUTPUTS.
constexpr const char* kItemIndent = "        ";

std::string list_lines(const JsonValue* v) {
  std::string out;
  if (v == nullptr || !v->is_array()) return out;
  for (const JsonValue& e : v->as_array()) out += kItemIndent + python_source(e) + ",\n";
  return out;
}

std::string dict_lines(const JsonValue* v) {
  std::string out;
  if (v == nullptr || !v->is_object()) return out;
  for (const auto& [k, e] : v->as_object())
    out += kItemIndent + py_str_repr(k) + ": " + python_source(e) + ",\n";
  return out;
}

}  // namespace

const char* script_standard_key(const std::string& api_name) {
  const check::Standard s = check::standard_for_api(api_name);
  return s == check::Standard::kAccumulativeError ? check::standard_key(check::Standard::kBenchmark)
                                                  : check::standard_key(s);
}

std::string ApiCall::function() const {
  const char* ns = api_type == "Functional" ? "torch.nn.functional"
                   : api_type == "Tensor"   ? "torch.Tensor"
                                            : "torch";
  return std::string(ns) + "." + api_name;
}

ApiCall split_api_entry(const std::string& entry_name) {
  const std::vector<std::string_view> parts = split(entry_name, '.');
  ApiCall c;
  c.entry_name = entry_name;
  c.api_type = parts.empty() ? "" : std::string(parts[0]);
  MSPROBE_CHECK(c.api_type == "Functional" || c.api_type == "Tensor" || c.api_type == "Torch", InvalidInput,
                "type " + c.api_type + " of API is not supported!");
  if (parts.size() == 4) {
    c.api_name = std::string(parts[1]);
  } else if (parts.size() == 5) {
    c.api_name = std::string(parts[1]) + "." + std::string(parts[2]);
  } else {
    throw InvalidInput("op_generate: cannot split the entry name " + entry_name +
                       " into type.api.number.direction (or type.prefix.api.number.direction)");
  }
  c.ordinal = std::string(parts[parts.size() - 2]);
  c.direction = std::string(parts.back());
  return c;
}

std::string python_source(const JsonValue& v) {
  if (v.is_array()) {
    std::vector<std::string> items;
    for (const JsonValue& e : v.as_array()) items.push_back(python_source(e));
    return "[" + join(items, ", ") + "]";
  }
  if (v.is_object()) return record_source(v);
  return literal(v);
}

std::string render_op_script(std::string_view template_text, const OpScriptInput& in) {
  const std::string propagation = in.call.direction == "backward" ? "backward" : "forward";
  auto value_of = [&](std::string_view name) -> std::string {
    if (name == "API_ENTRY") return in.call.entry_name;
    if (name == "API_FUNCTION") return in.call.function();
    if (name == "API_NAME") return in.call.api_name;
    if (name == "PROPAGATION") return propagation;
    if (name == "STANDARD") return script_standard_key(in.call.api_name);
    if (name == "DATA_MODE") return in.data_mode.empty() ? "random_data" : in.data_mode;
    if (name == "RANDOM_SEED") return std::to_string(in.random_seed);
    if (name == "ITER_TIMES") return std::to_string(in.iter_times);
    if (name == "SOURCE") return in.source;
    if (name == "ARGS") return list_lines(in.forward.find("input_args"));
    if (name == "KWARGS") return dict_lines(in.forward.find("input_kwargs"));
    if (name == "GRAD_OUTPUTS") {
      if (in.backward.is_null()) return "";
      const JsonValue* g = in.backward.find("grad_input");  // 1.2.1 prefers it, then "input"
      return list_lines(g != nullptr ? g : in.backward.find("input"));
    }
    throw InvalidInput("op_generate template: unknown placeholder {{" + std::string(name) + "}}");
  };
  std::string out;
  out.reserve(template_text.size() + 4096);
  size_t pos = 0;
  while (true) {
    const size_t open = template_text.find("{{", pos);
    if (open == std::string_view::npos) break;
    const size_t close = template_text.find("}}", open + 2);
    MSPROBE_CHECK(close != std::string_view::npos, InvalidInput, "op_generate template: unclosed {{");
    out.append(template_text.substr(pos, open - pos));
    out += value_of(template_text.substr(open + 2, close - open - 2));
    pos = close + 2;
  }
  out.append(template_text.substr(pos));
  return out;
}

}  // namespace opgen
}  // namespace msprobe
