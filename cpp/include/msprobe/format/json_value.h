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

#include "msprobe/base/error.h"

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

  // Scalars of another type read as false / 0.
  bool as_bool() const { return type_ == Type::kBool && n_.i != 0; }
  int64_t as_int() const { return type_ == Type::kInt ? n_.i : 0; }
  double as_double() const { return type_ == Type::kInt ? (double)n_.i : type_ == Type::kFloat ? n_.f : 0.0; }
  const std::string& as_string() const { return s_; }
  // Only for a list / an object.
  const Array& as_array() const { return *static_cast<const Array*>(c_.get()); }
  const Object& as_object() const { return *static_cast<const Object*>(c_.get()); }
  // Object lookup; nullptr when absent or not an object.
  const JsonValue* find(std::string_view key) const;
  // A short description of the type for error messages: "a string", "a list", ...
  const char* type_name() const;

 private:
  // Compact (64 bytes): parsers move many of these.
  Type type_ = Type::kNull;
  union Number {
    int64_t i;  // kInt, kBool (0 / 1)
    double f;   // kFloat
  } n_{0};
  std::string s_;
  std::shared_ptr<const void> c_;  // Array (kArray) or Object (kObject), shared by copies
};

// A syntax error at byte offset(); truncated() when the text ended before the value was complete
// (a file cut by a kill), as opposed to a wrong byte inside the text.
class JsonParseError : public FileError {
 public:
  JsonParseError(const std::string& message, size_t offset, bool truncated);
  size_t offset() const { return offset_; }
  bool truncated() const { return truncated_; }

 private:
  size_t offset_;
  bool truncated_;
};

namespace json_detail {
class Parser;
}

// Incremental parsing of one large text, a value at a time, with the parser of parse_json (same
// grammar, same errors): readers of big files walk the outer object themselves and parse each
// member on its own, so memory is bounded by the largest member. The text must outlive the
// cursor. Errors throw JsonParseError naming `origin`, line and column.
class JsonCursor {
 public:
  JsonCursor(std::string_view text, std::string origin);
  ~JsonCursor();
  JsonCursor(const JsonCursor&) = delete;
  JsonCursor& operator=(const JsonCursor&) = delete;

  size_t pos() const;
  void seek(size_t pos);
  // Skips whitespace; returns the next byte, or -1 at the end of the text.
  int peek();
  // Skips whitespace and consumes `c`; otherwise throws ("expected 'c' <context>, got ...").
  void expect(char c, const char* context);
  // Skips whitespace and parses a string / any value.
  std::string parse_string();
  JsonValue parse_value();
  // Throws JsonParseError at pos() (truncated() when pos() is the end of the text).
  [[noreturn]] void fail(const std::string& what) const;

 private:
  std::string origin_;
  std::unique_ptr<json_detail::Parser> impl_;
};

// Throws JsonParseError (a FileError: "<origin>: line L column C: <what>") on malformed text.
JsonValue parse_json(std::string_view text, const std::string& origin);
JsonValue parse_json_file(const std::string& path);

}  // namespace msprobe
