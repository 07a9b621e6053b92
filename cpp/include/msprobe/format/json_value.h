// A small JSON document model and parser for the files we read (config.json, dump.json).
// Accepts Python's NaN/Infinity/-Infinity tokens. Errors name the line and column.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace msprobe {

class JsonValue {
 public:
  enum class Type { kNull, kBool, kInt, kFloat, kString, kArray, kObject };
  using Array = std::vector<JsonValue>;
  using Object = std::vector<std::pair<std::string, JsonValue>>;  // insertion order kept

  JsonValue() = default;
  static JsonValue make_bool(bool v);
  static JsonValue make_int(int64_t v);
  static JsonValue make_float(double v);
  static JsonValue make_string(std::string v);
  static JsonValue make_array(Array v);
  static JsonValue make_object(Object v);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_int() const { return type_ == Type::kInt; }
  bool is_number() const { return type_ == Type::kInt || type_ == Type::kFloat; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  bool as_bool() const { return b_; }
  int64_t as_int() const { return i_; }
  double as_double() const { return type_ == Type::kInt ? (double)i_ : f_; }
  const std::string& as_string() const { return s_; }
  const Array& as_array() const { return *a_; }
  const Object& as_object() const { return *o_; }
  // Object lookup; nullptr when absent or not an object.
  const JsonValue* find(std::string_view key) const;
  // A short description of the type for error messages: "a string", "a list", ...
  const char* type_name() const;

 private:
  Type type_ = Type::kNull;
  bool b_ = false;
  int64_t i_ = 0;
  double f_ = 0;
  std::string s_;
  std::shared_ptr<Array> a_;
  std::shared_ptr<Object> o_;
};

// Throws FileError("<origin>: line L column C: <what>") on malformed text.
JsonValue parse_json(std::string_view text, const std::string& origin);
JsonValue parse_json_file(const std::string& path);

}  // namespace msprobe
