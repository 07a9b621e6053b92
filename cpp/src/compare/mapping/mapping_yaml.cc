#include "msprobe/compare/mapping_yaml.h"

#include <cstdio>
#include <cstring>
#include <regex>
#include <unordered_map>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/format/json_text.h"

namespace msprobe {
namespace compare {

namespace {

// PyYAML's implicit resolvers (YAML 1.1): a plain scalar matching one would load as another type,
// so PyYAML quotes the string.
bool resolves_to_non_string(const std::string& s) {
  static const std::regex kBool(
      "^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$");
  static const std::regex kNull("^(?:~|null|Null|NULL|)$");
  static const std::regex kFloat(
      "^(?:[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?|\\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
      "|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$");
  static const std::regex kInt(
      "^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
      "|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$");
  static const std::regex kTimestamp(
      "^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?"
      "(?:[Tt]|[ \\t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\\.[0-9]*)?(?:[ "
      "\\t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$");
  static const std::regex kOther("^(?:<<|=|!|&|\\*)$");
  return std::regex_match(s, kBool) || std::regex_match(s, kNull) || std::regex_match(s, kFloat) ||
         std::regex_match(s, kInt) || std::regex_match(s, kTimestamp) || std::regex_match(s, kOther);
}

enum class Style { kPlain, kSingle, kDouble };

// PyYAML's analyze_scalar + choose_scalar_style for a block-context str, default options
// (allow_unicode=False, width 80).
Style style_of(const std::string& s) {
  if (s.empty()) return Style::kSingle;
  // Any character outside printable ASCII makes PyYAML (allow_unicode=False) use double quotes
  // (line breaks too, here: names never hold them).
  bool special = false, block_indicators = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char ch = (unsigned char)s[i];
    const bool followed_by_ws = i + 1 >= s.size() || s[i + 1] == ' ';
    if (ch < 0x20 || ch > 0x7E) {
      special = true;
      continue;
    }
    if (i == 0) {
      if (std::strchr("#,[]{}&*!|>'\"%@`", ch) != nullptr) block_indicators = true;
      if ((ch == '?' || ch == ':' || ch == '-') && followed_by_ws) block_indicators = true;
    } else {
      if (ch == ':' && followed_by_ws) block_indicators = true;
      if (ch == '#' && (s[i - 1] == ' ' || s[i - 1] == '\t')) block_indicators = true;
    }
  }
  if (special) return Style::kDouble;
  const bool edge_space = s.front() == ' ' || s.back() == ' ';
  if (block_indicators || edge_space || resolves_to_non_string(s)) return Style::kSingle;
  if (s.compare(0, 3, "---") == 0 || s.compare(0, 3, "...") == 0) return Style::kSingle;
  return Style::kPlain;
}

std::vector<uint32_t> code_points(const std::string& s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = (unsigned char)s[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (i + len > s.size()) len = 1;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1Fu) : len == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3Fu);
    out.push_back(cp);
    i += len;
  }
  return out;
}

// The part of PyYAML's Emitter used for a block mapping of strings: columns counted in
// characters, long scalars folded at width 80 onto lines indented by 2 (keys are never folded).
class Emitter {
 public:
  std::string text;

  void line_start() {  // write_indent() at a mapping key or value indicator
    if (column_ > 0 || !text.empty()) {
      if (!text.empty()) text += '\n';
    }
    column_ = 0;
    whitespace_ = true;
  }
  void indicator(const char* ind, bool need_whitespace) {
    std::string data = (whitespace_ || !need_whitespace) ? ind : std::string(" ") + ind;
    text += data;
    column_ += data.size();
    whitespace_ = false;
  }
  void scalar(const std::string& s, bool split) {
    const std::vector<uint32_t> t = code_points(s);
    switch (style_of(s)) {
      case Style::kPlain: plain(t, split); break;
      case Style::kSingle: single_quoted(t, split); break;
      case Style::kDouble: double_quoted(t, split); break;
    }
  }

 private:
  static constexpr size_t kWidth = 80, kIndent = 2;
  size_t column_ = 0;
  bool whitespace_ = true;

  void write(const std::vector<uint32_t>& t, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) append_utf8(text, t[i]);
    column_ += to - from;
  }
  void write(const std::string& ascii) {
    text += ascii;
    column_ += ascii.size();
  }
  void indent() {  // write_indent() inside a scalar: always a new line, then 2 spaces
    text += '\n';
    text += std::string(kIndent, ' ');
    column_ = kIndent;
    whitespace_ = true;
  }

  void plain(const std::vector<uint32_t>& t, bool split) {
    if (t.empty()) return;
    if (!whitespace_) write(" ");
    whitespace_ = false;
    bool spaces = false;
    size_t start = 0;
    for (size_t end = 0; end <= t.size(); ++end) {
      const bool has = end < t.size();
      const uint32_t ch = has ? t[end] : 0;
      if (spaces) {
        if (!has || ch != ' ') {
          if (start + 1 == end && column_ > kWidth && split) {
            indent();
            whitespace_ = false;
          } else {
            write(t, start, end);
          }
          start = end;
        }
      } else if (!has || ch == ' ') {
        write(t, start, end);
        start = end;
      }
      if (has) spaces = ch == ' ';
    }
  }

  void single_quoted(const std::vector<uint32_t>& t, bool split) {
    indicator("'", true);
    bool spaces = false;
    size_t start = 0;
    for (size_t end = 0; end <= t.size(); ++end) {
      const bool has = end < t.size();
      const uint32_t ch = has ? t[end] : 0;
      if (spaces) {
        if (!has || ch != ' ') {
          if (start + 1 == end && column_ > kWidth && split && start != 0 && end != t.size()) {
            indent();
          } else {
            write(t, start, end);
          }
          start = end;
        }
      } else if (!has || ch == ' ' || ch == '\'') {
        if (start < end) {
          write(t, start, end);
          start = end;
        }
      }
      if (has && ch == '\'') {
        write("''");
        start = end + 1;
      }
      if (has) spaces = ch == ' ';
    }
    indicator("'", false);
  }

  static std::string escape(uint32_t ch) {
    switch (ch) {
      case 0: return "\\0";
      case 0x07: return "\\a";
      case 0x08: return "\\b";
      case 0x09: return "\\t";
      case 0x0A: return "\\n";
      case 0x0B: return "\\v";
      case 0x0C: return "\\f";
      case 0x0D: return "\\r";
      case 0x1B: return "\\e";
      case '"': return "\\\"";
      case '\\': return "\\\\";
      case 0x85: return "\\N";
      case 0xA0: return "\\_";
      case 0x2028: return "\\L";
      case 0x2029: return "\\P";
      default: break;
    }
    char buf[16];
    if (ch <= 0xFF)
      std::snprintf(buf, sizeof(buf), "\\x%02X", ch);
    else if (ch <= 0xFFFF)
      std::snprintf(buf, sizeof(buf), "\\u%04X", ch);
    else
      std::snprintf(buf, sizeof(buf), "\\U%08X", ch);
    return buf;
  }

  void double_quoted(const std::vector<uint32_t>& t, bool split) {
    indicator("\"", true);
    size_t start = 0;
    for (size_t end = 0; end <= t.size(); ++end) {
      const bool has = end < t.size();
      const uint32_t ch = has ? t[end] : 0;
      const bool needs_escape = has && (ch == '"' || ch == '\\' || ch == 0x85 || ch == 0x2028 ||
                                        ch == 0x2029 || ch == 0xFEFF || ch < 0x20 || ch > 0x7E);
      if (!has || needs_escape) {
        if (start < end) {
          write(t, start, end);
          start = end;
        }
        if (has) {
          write(escape(ch));
          start = end + 1;
        }
      }
      if (end > 0 && end + 1 < t.size() && (ch == ' ' || start >= end) && column_ + (end - start) > kWidth &&
          split) {
        write(t, start, end);
        write("\\");
        if (start < end) start = end;
        indent();
        whitespace_ = false;
        if (t[start] == ' ') write("\\");
      }
    }
    indicator("\"", false);
  }
};

}  // namespace

std::string mapping_yaml_text(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::vector<std::pair<std::string, std::string>> dict;
  std::unordered_map<std::string, size_t> at;
  for (const auto& kv : pairs) {
    const auto it = at.find(kv.first);
    if (it != at.end()) {
      dict[it->second].second = kv.second;
    } else {
      at.emplace(kv.first, dict.size());
      dict.push_back(kv);
    }
  }
  if (dict.empty()) return "{}\n";
  Emitter e;
  for (const auto& kv : dict) {
    // PyYAML writes a simple key only when it is not empty and its text (in characters, before
    // quoting) plus the 5-character "!!str" tag stays below 128; simple keys are never folded.
    const size_t chars = code_points(kv.first).size();
    e.line_start();
    if (chars > 0 && chars + 5 < 128) {
      e.scalar(kv.first, false);
      e.indicator(":", false);
    } else {
      e.indicator("?", true);
      e.scalar(kv.first, true);
      e.line_start();
      e.indicator(":", true);
    }
    e.scalar(kv.second, true);
  }
  return e.text + "\n";
}

std::string data_mapping_file_name(const std::string& suffix, const std::string& timestamp) {
  return "data_mapping" + suffix + "_" + timestamp + ".yaml";
}

void write_mapping_yaml(const std::vector<std::pair<std::string, std::string>>& pairs,
                        const std::string& path) {
  const std::string text = mapping_yaml_text(pairs);
  write_file_atomically(path, text);
}

}  // namespace compare
}  // namespace msprobe
