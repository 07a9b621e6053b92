// Internal to the reader: walking the members of one big JSON object a member at a time, and
// telling a file cut by a kill (every complete member kept, a RepairNote) from a malformed one.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "msprobe/format/json_value.h"
#include "msprobe/reader/repair_note.h"

namespace msprobe {
namespace reader {
namespace detail {

// The text of a file to parse: trailing NUL bytes are cut off (a crash can leave the last pages
// of a file allocated but never written; they read as zeros).
std::string_view without_zero_tail(std::string_view text);

// A name for a one-line message: control characters (a key may hold "\n") shown as \xNN.
std::string printable(std::string_view name);

struct MemberWalk {
  size_t kept = 0;                // members handed to fn
  bool complete = false;          // the object's closing '}' was read
  bool torn = false;              // the text ended inside the object
  size_t valid_end = 0;           // end of the last complete member (or of the opening '{')
  std::string dropped;            // the incomplete member's name ("" when none had started)
  bool dropped_name_cut = false;  // the name itself was cut (dropped holds its beginning)
};

// The cursor stands before an object's '{' (whitespace allowed). Calls fn(name, value) for each
// complete member in text order; returns with the cursor after the closing '}' when complete.
// A cut (JsonParseError::truncated) ends the walk; any other syntax error is rethrown.
// Exceptions thrown by fn propagate unchanged.
MemberWalk walk_members(JsonCursor& cur, std::string_view text,
                        const std::function<void(std::string&& name, JsonValue&& value)>& fn);

// Fills note from a torn walk: "<file>: cut at byte N; kept K <what>, dropped ...".
void describe_cut(const std::string& path, size_t file_size, size_t text_size, const MemberWalk& walk,
                  const char* what, RepairNote* note);

}  // namespace detail
}  // namespace reader
}  // namespace msprobe
