// Streaming JSON writer producing exactly the layout of Python's json.dump(obj, f, indent=1):
// one space per level (indent_width spaces: json.dump(..., indent=indent_width)), ", " never used between
// items (",\n" instead), "key": value, [] and {} for empty containers. Starts at a base depth so fragments
// can be spliced into a document.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "msprobe/format/json_text.h"

namespace msprobe {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out, int base_depth = 0, int indent_width = 1)
      : out_(out), base_(base_depth), width_(indent_width) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // Inside an object: writes the separator, indentation and "key": .
  void key(std::string_view k) {
    separate();
    append_json_string(out_, k);
    out_ += ": ";
    pending_key_ = true;
  }
  void null() {
    value_prefix();
    out_ += "null";
  }
  void boolean(bool v) {
    value_prefix();
    out_ += v ? "true" : "false";
  }
  void integer(int64_t v) {
    value_prefix();
    append_int(out_, v);
  }
  void floating(double v) {
    value_prefix();
    append_python_float(out_, v);
  }
  void string(std::string_view v) {
    value_prefix();
    append_json_string(out_, v);
  }
  // A value already rendered as JSON text (single line).
  void raw(std::string_view text) {
    value_prefix();
    out_.append(text);
  }
  int depth() const { return base_ + (int)stack_.size(); }

 private:
  struct Level {
    bool first = true;
  };
  void indent(int d) {
    out_ += '\n';
    out_.append((size_t)d * (size_t)width_, ' ');
  }
  void separate() {
    if (stack_.empty()) return;
    Level& l = stack_.back();
    if (!l.first) out_ += ',';
    l.first = false;
    indent(depth());
  }
  void value_prefix() {
    if (pending_key_) {
      pending_key_ = false;
      return;
    }
    separate();
  }
  void open(char c) {
    value_prefix();
    out_ += c;
    stack_.push_back(Level{});
  }
  void close(char c) {
    bool empty = stack_.back().first;
    stack_.pop_back();
    if (!empty) indent(depth());
    out_ += c;
  }

  std::string& out_;
  int base_;
  int width_;
  std::vector<Level> stack_;
  bool pending_key_ = false;
};

class JsonValue;
// A parsed value written as it stands (object members in their order; floats as Python writes
// them, NaN and Infinity included).
void write_json_value(JsonWriter& w, const JsonValue& v);

}  // namespace msprobe
