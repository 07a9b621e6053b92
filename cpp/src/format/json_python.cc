// Python semantics over JSON values: see json_python.h.
#include "msprobe/format/json_python.h"

namespace msprobe {

bool py_truthy(const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::kNull: return false;
    case JsonValue::Type::kBool: return v.as_bool();
    case JsonValue::Type::kInt: return v.as_int() != 0;
    case JsonValue::Type::kFloat: return v.as_double() != 0.0;
    case JsonValue::Type::kString: return !v.as_string().empty();
    case JsonValue::Type::kArray: return !v.as_array().empty();
    case JsonValue::Type::kObject: return !v.as_object().empty();
  }
  return false;
}

bool py_equal(const JsonValue& a, const JsonValue& b, bool (*skip_key)(const std::string&)) {
  const bool an = a.is_number() || a.is_bool(), bn = b.is_number() || b.is_bool();
  if (an || bn) {
    if (!(an && bn)) return false;
    if (a.is_int() && b.is_int()) return a.as_int() == b.as_int();
    const double x = a.is_bool() ? (a.as_bool() ? 1.0 : 0.0) : a.as_double();
    const double y = b.is_bool() ? (b.as_bool() ? 1.0 : 0.0) : b.as_double();
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
      for (size_t i = 0; i < x.size(); ++i)
        if (!py_equal(x[i], y[i], skip_key)) return false;
      return true;
    }
    case JsonValue::Type::kObject: {
      auto kept = [&](const JsonValue::Object& o) {
        size_t n = 0;
        for (const auto& kv : o) n += !skip_key(kv.first);
        return n;
      };
      const auto& x = a.as_object();
      const auto& y = b.as_object();
      if (skip_key ? kept(x) != kept(y) : x.size() != y.size()) return false;
      for (const auto& kv : x) {
        if (skip_key && skip_key(kv.first)) continue;
        const JsonValue* other = b.find(kv.first);
        if (!other || !py_equal(kv.second, *other, skip_key)) return false;
      }
      return true;
    }
    default: return false;
  }
}

}  // namespace msprobe
