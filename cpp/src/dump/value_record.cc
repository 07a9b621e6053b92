#include "msprobe/dump/value_record.h"

namespace msprobe {

void begin_value_record(JsonWriter& w, std::string_view type) {
  w.begin_object();
  w.key("type");
  w.string(type);
  w.key("value");
}

void write_bool_record(JsonWriter& w, bool v) {
  begin_value_record(w, "bool");
  w.boolean(v);
  end_value_record(w);
}

void write_float_record(JsonWriter& w, double v) {
  begin_value_record(w, "float");
  w.floating(v);
  end_value_record(w);
}

void write_str_record(JsonWriter& w, std::string_view v) {
  begin_value_record(w, "str");
  w.string(v);
  end_value_record(w);
}

void write_ellipsis_record(JsonWriter& w) {
  begin_value_record(w, "ellipsis");
  w.string("...");
  end_value_record(w);
}

}  // namespace msprobe
