// Emitting JSON text the way Python's json module does (json.dump(indent=1)): float repr,
// NaN/Infinity/-Infinity tokens, \uXXXX escapes for non-ASCII (ensure_ascii=True).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace msprobe {

// Appends repr(float(v)) as Python prints it: "1.0", "0.1", "1e-05", "1.2345678901234568e+17",
// "NaN", "Infinity", "-Infinity".
void append_python_float(std::string& out, double v);
// Appends a quoted, escaped JSON string (ensure_ascii semantics).
void append_json_string(std::string& out, std::string_view s);
void append_int(std::string& out, int64_t v);
// One Unicode code point as UTF-8 (JSON \u escapes, xlsx entities, YAML text).
void append_utf8(std::string& out, uint32_t cp);

}  // namespace msprobe
