// A text that identifies a JSON value, object key order included, for comparing records read
// back with the records expected (NaN prints the same on both sides).
#pragma once
#include <cstdio>
#include <string>

#include "msprobe/format/json_value.h"

namespace msprobe {
namespace test {

inline std::string canon(const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::kNull: return "null";
    case JsonValue::Type::kBool: return v.as_bool() ? "true" : "false";
    case JsonValue::Type::kInt: return std::to_string(v.as_int());
    case JsonValue::Type::kFloat: {
      char b[40];
      std::snprintf(b, sizeof b, "%.17g", v.as_double());
      return b;
    }
    case JsonValue::Type::kString: return "\"" + v.as_string() + "\"";
    case JsonValue::Type::kArray: {
      std::string s = "[";
      for (const auto& x : v.as_array()) s += canon(x) + ",";
      return s + "]";
    }
    case JsonValue::Type::kObject: {
      std::string s = "{";
      for (const auto& kv : v.as_object()) s += kv.first + ":" + canon(kv.second) + ",";
      return s + "}";
    }
  }
  return "";
}

}  // namespace test
}  // namespace msprobe
