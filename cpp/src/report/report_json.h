// The compact, columnar JSON that the report page reads (embedded once in the page). Numbers go
// as base64 of little-endian typed arrays (float32 for values shown to people, int32/uint8 for
// indices), strings through dictionaries, so that 200k table rows stay in tens of MB and decode
// in a few hundred milliseconds. Layout: docs/report.md, "Data".
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "msprobe/compare/compare_table.h"

namespace msprobe {
namespace report {

// A JSON string safe inside <script>: '<' is written as \u003c, non-ASCII as \uXXXX.
void append_html_json_string(std::string& out, std::string_view s);
// A number; NaN and infinities as the strings "nan", "inf", "-inf" (JSON has no such tokens).
void append_json_number(std::string& out, double v);
// A table cell as a JSON value (string, number, bool or null).
void append_cell_json(std::string& out, const compare::Cell& c);

// "\"<base64>\"" of raw bytes.
void append_base64(std::string& out, const void* data, size_t bytes);
template <typename T>
void append_base64_array(std::string& out, const std::vector<T>& v) {
  append_base64(out, v.data(), v.size() * sizeof(T));
}

// One table column, encoded for the page (an object {"name":..., "enc":..., ...}). Cells that
// start with the row's own name are stored relative to it (Bench Name, Data_name).
// row_names: the NPU name of every row.
// label: the title to show, "" for the name.
void append_table_column(std::string& out, const std::string& name,
                         const std::vector<std::vector<compare::Cell>>& rows, int col,
                         const std::vector<std::string>& row_names, const std::string& label = "");

}  // namespace report
}  // namespace msprobe
