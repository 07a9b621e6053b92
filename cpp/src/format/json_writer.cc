// A parsed JSON value written back through JsonWriter (see json_writer.h).
#include "msprobe/format/json_writer.h"

#include "msprobe/format/json_value.h"

namespace msprobe {

void write_json_value(JsonWriter& w, const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::kNull: w.null(); return;
    case JsonValue::Type::kBool: w.boolean(v.as_bool()); return;
    case JsonValue::Type::kInt: w.integer(v.as_int()); return;
    case JsonValue::Type::kFloat: w.floating(v.as_double()); return;
    case JsonValue::Type::kString: w.string(v.as_string()); return;
    case JsonValue::Type::kArray:
      w.begin_array();
      for (const JsonValue& e : v.as_array()) write_json_value(w, e);
      w.end_array();
      return;
    case JsonValue::Type::kObject:
      w.begin_object();
      for (const auto& [k, e] : v.as_object()) {
        w.key(k);
        write_json_value(w, e);
      }
      w.end_object();
      return;
  }
}

}  // namespace msprobe
