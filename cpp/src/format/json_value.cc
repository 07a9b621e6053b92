// Strict JSON parser (RFC 8259 plus Python's NaN / Infinity / -Infinity tokens).
//
// One pass over the text, recursive descent with a depth limit. Line and column are computed
// only when an error is reported, so the hot path keeps a single pointer. Strings are copied
// in runs of plain bytes; UTF-8 is validated (no overlong forms, no encoded surrogates, nothing
// above U+10FFFF) and \uXXXX escapes, including surrogate pairs, are decoded to UTF-8.
#include "msprobe/format/json_value.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>

#include "msprobe/base/error.h"
#include "msprobe/format/json_text.h"

namespace msprobe {

JsonValue JsonValue::make_bool(bool v) {
  JsonValue j;
  j.type_ = Type::kBool;
  j.n_.i = v ? 1 : 0;
  return j;
}

JsonValue JsonValue::make_int(int64_t v) {
  JsonValue j;
  j.type_ = Type::kInt;
  j.n_.i = v;
  return j;
}

JsonValue JsonValue::make_float(double v) {
  JsonValue j;
  j.type_ = Type::kFloat;
  j.n_.f = v;
  return j;
}

JsonValue JsonValue::make_string(std::string v) {
  JsonValue j;
  j.type_ = Type::kString;
  j.s_ = std::move(v);
  return j;
}

JsonValue JsonValue::make_array(Array v) {
  JsonValue j;
  j.type_ = Type::kArray;
  j.c_ = std::make_shared<const Array>(std::move(v));
  return j;
}

JsonValue JsonValue::make_object(Object v) {
  JsonValue j;
  j.type_ = Type::kObject;
  j.c_ = std::make_shared<const Object>(std::move(v));
  return j;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  if (type_ != Type::kObject || !c_) return nullptr;
  for (const auto& kv : as_object()) {
    if (kv.first == key) return &kv.second;
  }
  return nullptr;
}

const char* JsonValue::type_name() const {
  switch (type_) {
    case Type::kNull: return "null";
    case Type::kBool: return "a boolean";
    case Type::kInt: return "an integer";
    case Type::kFloat: return "a number";
    case Type::kString: return "a string";
    case Type::kArray: return "a list";
    case Type::kObject: return "an object";
  }
  return "a value";
}

namespace {

constexpr int kMaxDepth = 512;

// Character classes for the string fast path: 0 = copy as is, 1 = needs attention.
struct StringTable {
  bool special[256];
  constexpr StringTable() : special() {
    for (int c = 0; c < 256; ++c) special[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
  }
};
constexpr StringTable kStringTable;

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

namespace json_detail {

class Parser {
 public:
  Parser(std::string_view text, const std::string& origin)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), origin_(origin) {}

  // ---- cursor access (JsonCursor) ----------------------------------------------------
  size_t pos() const { return (size_t)(p_ - begin_); }
  void seek(size_t pos) { p_ = begin_ + (pos > (size_t)(end_ - begin_) ? (size_t)(end_ - begin_) : pos); }
  int peek() {
    skip_ws();
    return p_ < end_ ? (unsigned char)*p_ : -1;
  }
  void expect(char c, const char* context) {
    skip_ws();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return;
    }
    fail(p_, std::string("expected '") + c + "' " + context + ", got " + describe(p_));
  }
  std::string parse_string_at() {
    skip_ws();
    if (p_ >= end_ || *p_ != '"') fail(p_, "expected a string in double quotes, got " + describe(p_));
    std::string s;
    parse_string(s);
    return s;
  }
  JsonValue parse_value_at() {
    skip_ws();
    return parse_value();
  }
  [[noreturn]] void fail_here(const std::string& what) const { fail(p_, what); }

  JsonValue parse_document() {
    if (end_ - p_ >= 3 && (unsigned char)p_[0] == 0xEF && (unsigned char)p_[1] == 0xBB &&
        (unsigned char)p_[2] == 0xBF) {
      fail(p_, "a UTF-8 byte order mark is not allowed; save the file as UTF-8 without BOM");
    }
    skip_ws();
    if (p_ == end_) fail(p_, "expected a JSON value, got end of input (the text is empty)");
    JsonValue v = parse_value();
    skip_ws();
    if (p_ != end_) fail(p_, "expected end of input after the JSON value, got " + describe(p_));
    return v;
  }

 private:
  // ---- errors -------------------------------------------------------------------------
  // A syntax error; one at the end of the text means the text was cut (truncated()).
  [[noreturn]] void fail(const char* at, const std::string& what) const {
    if (at > end_) at = end_;
    fail_impl(at, what, at == end_);
  }
  // The text ended inside a token (a string, an escape, a literal): it was cut.
  [[noreturn]] void fail_cut(const char* at, const std::string& what) const {
    fail_impl(at > end_ ? end_ : at, what, true);
  }
  [[noreturn]] void fail_impl(const char* at, const std::string& what, bool truncated) const {
    size_t line = 1;
    const char* line_start = begin_;
    for (const char* q = begin_; q < at; ++q) {
      if (*q == '\n') {
        ++line;
        line_start = q + 1;
      }
    }
    // Column in characters (UTF-8 continuation bytes do not start a character), 1-based.
    size_t column = 1;
    for (const char* q = line_start; q < at; ++q) {
      if (((unsigned char)*q & 0xC0) != 0x80) ++column;
    }
    throw JsonParseError(
        origin_ + ": line " + std::to_string(line) + " column " + std::to_string(column) + ": " + what,
        (size_t)(at - begin_), truncated);
  }

  std::string describe(const char* at) const {
    if (at >= end_) return "end of input";
    unsigned char c = (unsigned char)*at;
    if (c >= 0x20 && c < 0x7F) {
      if (c == '\'') return "\"'\"";
      return std::string("'") + (char)c + "'";
    }
    static const char* hex = "0123456789ABCDEF";
    std::string s = c < 0x20 ? "control character 0x" : "byte 0x";
    s += hex[c >> 4];
    s += hex[c & 15];
    return s;
  }

  // ---- lexing helpers ----------------------------------------------------------------
  void skip_ws() {
    while (p_ < end_) {
      char c = *p_;
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        ++p_;
      } else {
        break;
      }
    }
  }

  bool match_literal(const char* lit, size_t n) {
    const size_t avail = (size_t)(end_ - p_);
    if (avail >= n && std::memcmp(p_, lit, n) == 0) {
      p_ += n;
      return true;
    }
    if (avail < n && std::memcmp(p_, lit, avail) == 0) {
      fail_cut(end_, "expected a JSON value, got '" + std::string(p_, avail) + "' (" + lit +
                         " cut by the end of input)");
    }
    return false;
  }

  // ---- values ------------------------------------------------------------------------
  JsonValue parse_value() {
    if (p_ >= end_) fail(p_, "expected a JSON value, got end of input");
    switch (*p_) {
      case '{': return parse_object();
      case '[': return parse_array();
      case '"': {
        std::string s;
        parse_string(s);
        return JsonValue::make_string(std::move(s));
      }
      case 't':
        if (match_literal("true", 4)) return JsonValue::make_bool(true);
        break;
      case 'f':
        if (match_literal("false", 5)) return JsonValue::make_bool(false);
        break;
      case 'n':
        if (match_literal("null", 4)) return JsonValue();
        break;
      case 'N':
        if (match_literal("NaN", 3)) return JsonValue::make_float(std::numeric_limits<double>::quiet_NaN());
        break;
      case 'I':
        if (match_literal("Infinity", 8))
          return JsonValue::make_float(std::numeric_limits<double>::infinity());
        break;
      default:
        if (*p_ == '-' || is_digit(*p_)) return parse_number();
        break;
    }
    fail(p_,
         "expected a JSON value (object, list, string, number, true, false or null), got " + describe(p_));
  }

  void enter(const char* at) {
    if (++depth_ > kMaxDepth) {
      fail(at, "nesting is deeper than " + std::to_string(kMaxDepth) + " levels");
    }
  }

  JsonValue parse_array() {
    enter(p_);
    ++p_;  // '['
    skip_ws();
    if (p_ < end_ && *p_ == ']') {
      ++p_;
      --depth_;
      return JsonValue::make_array({});
    }
    // Children are collected in a scratch vector reused per depth, then moved into an
    // exactly-sized one: no growth reallocations or slack in the kept document.
    JsonValue::Array& items = array_scratch(depth_);
    const size_t base = items.size();
    for (;;) {
      skip_ws();
      if (p_ < end_ && *p_ == ']') fail(p_, "expected a JSON value, got ']' (trailing comma in a list)");
      items.push_back(parse_value());
      skip_ws();
      if (p_ >= end_) fail(p_, "expected ',' or ']' in a list, got end of input");
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ == ']') {
        ++p_;
        break;
      }
      fail(p_, "expected ',' or ']' in a list, got " + describe(p_));
    }
    --depth_;
    JsonValue::Array exact;
    exact.reserve(items.size() - base);
    for (size_t i = base; i < items.size(); ++i) exact.push_back(std::move(items[i]));
    items.resize(base);
    return JsonValue::make_array(std::move(exact));
  }

  JsonValue parse_object() {
    enter(p_);
    ++p_;  // '{'
    skip_ws();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      --depth_;
      return JsonValue::make_object({});
    }
    JsonValue::Object& scratch = object_scratch(depth_);
    const size_t base = scratch.size();
    for (;;) {
      skip_ws();
      if (p_ >= end_) fail(p_, "expected a string key in an object, got end of input");
      if (*p_ != '"') {
        if (*p_ == '}' && scratch.size() > base) {
          fail(p_, "expected a string key, got '}' (trailing comma in an object)");
        }
        fail(p_, "expected a string key in double quotes, got " + describe(p_));
      }
      std::string key;
      parse_string(key);
      skip_ws();
      if (p_ >= end_ || *p_ != ':') fail(p_, "expected ':' after an object key, got " + describe(p_));
      ++p_;
      skip_ws();
      JsonValue value = parse_value();
      scratch.emplace_back(std::move(key), std::move(value));
      skip_ws();
      if (p_ >= end_) fail(p_, "expected ',' or '}' in an object, got end of input");
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ == '}') {
        ++p_;
        break;
      }
      fail(p_, "expected ',' or '}' in an object, got " + describe(p_));
    }
    --depth_;
    JsonValue::Object members;
    members.reserve(scratch.size() - base);
    for (size_t i = base; i < scratch.size(); ++i) members.push_back(std::move(scratch[i]));
    scratch.resize(base);
    dedupe(members);
    return JsonValue::make_object(std::move(members));
  }

  // Python's json keeps the first position of a repeated key and the last value; do the same so
  // that find() and iteration agree with what the original tool sees.
  static void dedupe(JsonValue::Object& m) {
    const size_t n = m.size();
    if (n < 2) return;
    if (n <= 16) {
      bool any = false;
      for (size_t i = 1; i < n && !any; ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (m[i].first == m[j].first) {
            any = true;
            break;
          }
        }
      }
      if (!any) return;
    }
    std::unordered_map<std::string_view, size_t> first;
    first.reserve(n);
    std::vector<bool> drop;
    for (size_t i = 0; i < n; ++i) {
      auto ins = first.emplace(std::string_view(m[i].first), i);
      if (!ins.second) {
        if (drop.empty()) drop.assign(n, false);
        drop[i] = true;
      }
    }
    if (drop.empty()) return;
    // Move the last value of each repeated key into the first position, then compact.
    for (size_t i = 0; i < n; ++i) {
      if (drop[i]) {
        size_t f = first[std::string_view(m[i].first)];
        m[f].second = std::move(m[i].second);
      }
    }
    size_t out = 0;
    for (size_t i = 0; i < n; ++i) {
      if (drop[i]) continue;
      if (out != i) m[out] = std::move(m[i]);
      ++out;
    }
    m.resize(out);
  }

  // ---- strings -----------------------------------------------------------------------

  uint32_t parse_hex4(const char* at) {
    if (end_ - at < 4) fail_cut(at, "expected 4 hex digits after \\u, got end of input");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = at[i];
      uint32_t d;
      if (c >= '0' && c <= '9') {
        d = (uint32_t)(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        d = (uint32_t)(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        d = (uint32_t)(c - 'A' + 10);
      } else {
        fail(at + i, "expected 4 hex digits after \\u, got " + describe(at + i));
      }
      v = (v << 4) | d;
    }
    return v;
  }

  // Validates one multi-byte UTF-8 sequence starting at p_ and returns its length.
  size_t utf8_sequence_length(const char* at) {
    const unsigned char* s = (const unsigned char*)at;
    size_t avail = (size_t)(end_ - at);
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      fail(at, "invalid UTF-8 in a string (" + describe(at) + ")");
    }
    if (avail < len) fail_cut(at, "truncated UTF-8 sequence in a string");
    for (size_t i = 1; i < len; ++i) {
      if ((s[i] & 0xC0) != 0x80) fail(at, "invalid UTF-8 in a string (bad continuation byte)");
      cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) {
      fail(at, "invalid UTF-8 in a string (overlong encoding)");
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) fail(at, "invalid UTF-8 in a string (encoded surrogate)");
    if (cp > 0x10FFFF) fail(at, "invalid UTF-8 in a string (code point above U+10FFFF)");
    return len;
  }

  void parse_string(std::string& out) {
    const char* open = p_;
    ++p_;  // opening quote
    for (;;) {
      const char* run = p_;
      while (p_ < end_ && !kStringTable.special[(unsigned char)*p_]) ++p_;
      if (p_ != run) out.append(run, (size_t)(p_ - run));
      if (p_ >= end_) fail_cut(open, "unterminated string (no closing '\"' before end of input)");
      unsigned char c = (unsigned char)*p_;
      if (c == '"') {
        ++p_;
        return;
      }
      if (c == '\\') {
        parse_escape(out);
        continue;
      }
      if (c < 0x20) {
        fail(p_, "control character 0x" + std::string(1, "0123456789ABCDEF"[c >> 4]) +
                     "0123456789ABCDEF"[c & 15] + " in a string must be escaped");
      }
      size_t len = utf8_sequence_length(p_);
      out.append(p_, len);
      p_ += len;
    }
  }

  void parse_escape(std::string& out) {
    const char* esc = p_;
    ++p_;  // backslash
    if (p_ >= end_) fail_cut(esc, "unterminated escape sequence at end of input");
    char c = *p_++;
    switch (c) {
      case '"': out += '"'; return;
      case '\\': out += '\\'; return;
      case '/': out += '/'; return;
      case 'b': out += '\b'; return;
      case 'f': out += '\f'; return;
      case 'n': out += '\n'; return;
      case 'r': out += '\r'; return;
      case 't': out += '\t'; return;
      case 'u': {
        uint32_t cp = parse_hex4(p_);
        p_ += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          const ptrdiff_t left = end_ - p_;
          if (left < 6 && (left < 1 || p_[0] == '\\') && (left < 2 || p_[1] == 'u')) {
            fail_cut(esc, "a surrogate pair is cut by the end of input");
          }
          if (left >= 2 && p_[0] == '\\' && p_[1] == 'u') {
            uint32_t lo = parse_hex4(p_ + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
              p_ += 6;
              append_utf8(out, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
              return;
            }
          }
          fail(esc, "lone high surrogate \\u" + std::string(esc + 2, 4) +
                        " (must be followed by a low surrogate \\uDC00-\\uDFFF)");
        }
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
          fail(esc, "lone low surrogate \\u" + std::string(esc + 2, 4));
        }
        append_utf8(out, cp);
        return;
      }
      default:
        // describe() keeps the message on one line whatever the byte is.
        fail(esc, "invalid escape sequence: '\\' followed by " + describe(esc + 1) +
                      " (allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
    }
  }

  // ---- numbers -----------------------------------------------------------------------
  JsonValue parse_number() {
    const char* start = p_;
    bool neg = false;
    if (*p_ == '-') {
      neg = true;
      ++p_;
      if (match_literal("Infinity", 8))
        return JsonValue::make_float(-std::numeric_limits<double>::infinity());
    }
    if (p_ >= end_ || !is_digit(*p_)) fail(p_, "expected a digit in a number, got " + describe(p_));
    const char* int_start = p_;
    if (*p_ == '0') {
      ++p_;
      if (p_ < end_ && is_digit(*p_)) fail(start, "leading zeros are not allowed in a number");
    } else {
      while (p_ < end_ && is_digit(*p_)) ++p_;
    }
    const char* int_end = p_;
    bool is_int = true;
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      if (p_ >= end_ || !is_digit(*p_))
        fail(p_, "expected a digit after '.' in a number, got " + describe(p_));
      while (p_ < end_ && is_digit(*p_)) ++p_;
      is_int = false;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ >= end_ || !is_digit(*p_))
        fail(p_, "expected a digit in the exponent of a number, got " + describe(p_));
      while (p_ < end_ && is_digit(*p_)) ++p_;
      is_int = false;
    }
    if (is_int && int_end - int_start <= 19) {
      uint64_t mag = 0;
      for (const char* q = int_start; q < int_end; ++q) mag = mag * 10 + (uint64_t)(*q - '0');
      const uint64_t limit = neg ? (uint64_t)std::numeric_limits<int64_t>::max() + 1
                                 : (uint64_t)std::numeric_limits<int64_t>::max();
      if (mag <= limit) {
        int64_t v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
        return JsonValue::make_int(v);
      }
    }
    // Floats, and integers outside int64 (kept as the nearest double).
    double d = 0;
    auto res = std::from_chars(start, p_, d);
    if (res.ec == std::errc::result_out_of_range) {
      // Overflow to +-inf or underflow to 0, as Python's float() does.
      std::string tmp(start, p_);
      d = std::strtod(tmp.c_str(), nullptr);
    } else if (res.ec != std::errc() || res.ptr != p_) {
      fail(start, "invalid number");
    }
    return JsonValue::make_float(d);
  }

  // Scratch vectors, one per nesting depth (the vector of a depth is never resized while a
  // reference to it is live: deeper levels use other elements of the deque-like outer vector).
  JsonValue::Array& array_scratch(int depth) {
    while ((int)array_scratch_.size() <= depth) array_scratch_.emplace_back(new JsonValue::Array());
    return *array_scratch_[(size_t)depth];
  }
  JsonValue::Object& object_scratch(int depth) {
    while ((int)object_scratch_.size() <= depth) object_scratch_.emplace_back(new JsonValue::Object());
    return *object_scratch_[(size_t)depth];
  }

  std::vector<std::unique_ptr<JsonValue::Array>> array_scratch_;
  std::vector<std::unique_ptr<JsonValue::Object>> object_scratch_;
  const char* begin_;
  const char* p_;
  const char* end_;
  const std::string& origin_;
  int depth_ = 0;
};

}  // namespace json_detail

JsonParseError::JsonParseError(const std::string& message, size_t offset, bool truncated)
    : FileError(message), offset_(offset), truncated_(truncated) {}

JsonCursor::JsonCursor(std::string_view text, std::string origin)
    : origin_(std::move(origin)), impl_(new json_detail::Parser(text, origin_)) {}
JsonCursor::~JsonCursor() = default;
size_t JsonCursor::pos() const { return impl_->pos(); }
void JsonCursor::seek(size_t pos) { impl_->seek(pos); }
int JsonCursor::peek() { return impl_->peek(); }
void JsonCursor::expect(char c, const char* context) { impl_->expect(c, context); }
std::string JsonCursor::parse_string() { return impl_->parse_string_at(); }
JsonValue JsonCursor::parse_value() { return impl_->parse_value_at(); }
void JsonCursor::fail(const std::string& what) const { impl_->fail_here(what); }

JsonValue parse_json(std::string_view text, const std::string& origin) {
  json_detail::Parser parser(text, origin);
  return parser.parse_document();
}

JsonValue parse_json_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) throw FileError(path + ": no such file");
    throw FileError(path + ": cannot access the file: " + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) throw FileError(path + ": is a directory, expected a JSON file");
  if (!S_ISREG(st.st_mode)) throw FileError(path + ": is not a regular file");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    throw FileError(path + ": cannot open the file for reading: " + std::strerror(e));
  }
  std::string text;
  // One spare byte so that a file of exactly st_size bytes is read without growing the buffer.
  text.resize((size_t)st.st_size + 1);
  size_t got = 0;
  for (;;) {
    if (got == text.size()) text.resize(text.size() * 2);  // the file grew since stat
    ssize_t n = ::read(fd, &text[got], text.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      throw FileError(path + ": cannot read the file: " + std::strerror(e));
    }
    if (n == 0) break;
    got += (size_t)n;
  }
  ::close(fd);
  text.resize(got);
  return parse_json(text, path);
}

}  // namespace msprobe
