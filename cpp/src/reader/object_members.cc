// Member-at-a-time walk over a JSON object with cut detection: see object_members.h.
#include "object_members.h"

#include <utility>

namespace msprobe {
namespace reader {
namespace detail {

std::string_view without_zero_tail(std::string_view text) {
  size_t n = text.size();
  while (n > 0 && text[n - 1] == '\0') --n;
  return text.substr(0, n);
}

std::string printable(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if ((unsigned char)c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[(unsigned char)c >> 4];
      out += hex[(unsigned char)c & 15];
    } else {
      out += c;
    }
  }
  return out;
}

MemberWalk walk_members(JsonCursor& cur, std::string_view text,
                        const std::function<void(std::string&& name, JsonValue&& value)>& fn) {
  MemberWalk w;
  std::string name;
  JsonValue value;
  size_t name_pos = 0;
  try {
    cur.expect('{', "to open an object");
    w.valid_end = cur.pos();
    if (cur.peek() == '}') {
      cur.expect('}', "");
      w.complete = true;
      return w;
    }
  } catch (const JsonParseError& e) {
    if (!e.truncated()) throw;
    w.torn = true;
    return w;
  }
  for (;;) {
    bool in_value = false;
    try {
      cur.peek();
      name_pos = cur.pos();
      name = cur.parse_string();
      cur.expect(':', "after an object key");
      in_value = true;
      value = cur.parse_value();
    } catch (const JsonParseError& e) {
      if (!e.truncated()) throw;
      w.torn = true;
      if (in_value) {
        w.dropped = std::move(name);
      } else if (name_pos < text.size() && text[name_pos] == '"') {
        // The cut fell inside the name, or right after it: keep what is legible.
        w.dropped = std::string(text.substr(name_pos + 1, 80));
        const size_t quote = w.dropped.find('"');
        if (quote != std::string::npos) {
          w.dropped.resize(quote);
        } else {
          w.dropped_name_cut = true;
        }
      }
      return w;
    }
    w.valid_end = cur.pos();
    ++w.kept;
    fn(std::move(name), std::move(value));
    name.clear();
    try {
      const int c = cur.peek();
      if (c == ',') {
        cur.expect(',', "");
        continue;
      }
      if (c == '}') {
        cur.expect('}', "");
        w.complete = true;
        return w;
      }
      if (c < 0) cur.fail("expected ',' or '}' in an object, got end of input");
      cur.fail("expected ',' or '}' after a member of the object");
    } catch (const JsonParseError& e) {
      if (!e.truncated()) throw;
      w.torn = true;
      return w;
    }
  }
}

void describe_cut(const std::string& path, size_t file_size, size_t text_size, const MemberWalk& walk,
                  const char* what, RepairNote* note) {
  if (!note) return;
  note->torn = true;
  note->valid_bytes = walk.valid_end;
  note->records_kept = walk.kept;
  std::string m = path + ": cut at byte " + std::to_string(text_size);
  if (file_size > text_size) {
    m += " (followed by " + std::to_string(file_size - text_size) + " zero bytes)";
  }
  m += "; kept " + std::to_string(walk.kept) + " " + what;
  if (!walk.dropped.empty()) {
    m +=
        ", dropped the incomplete entry '" + printable(walk.dropped) + (walk.dropped_name_cut ? "...'" : "'");
  } else if (walk.complete) {
    m += ", only the closing of the file is missing";
  } else {
    m += ", nothing else was started";
  }
  note->message = std::move(m);
}

}  // namespace detail
}  // namespace reader
}  // namespace msprobe
