// dump.json records of values that are not tensors (reference data-dump §3.3): an object
// {"type": T, "value": V} with T the framework's type name ("bool", "int", "float", "str",
// "slice", "ellipsis", "torch.Size", a numpy scalar type...).
#pragma once
#include <string_view>

#include "msprobe/format/json_writer.h"

namespace msprobe {

// Opens the record of a value of `type`; the caller writes the value, then end_value_record.
void begin_value_record(JsonWriter& w, std::string_view type);
inline void end_value_record(JsonWriter& w) { w.end_object(); }

void write_bool_record(JsonWriter& w, bool v);
void write_float_record(JsonWriter& w, double v);
void write_str_record(JsonWriter& w, std::string_view v);
// Python's `...`: {"type": "ellipsis", "value": "..."}.
void write_ellipsis_record(JsonWriter& w);

}  // namespace msprobe
