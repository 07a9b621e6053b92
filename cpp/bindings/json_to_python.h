// A JsonValue as the object Python's json.load would build (dict, list, str, int, float, None).
#pragma once
#include <nanobind/nanobind.h>

#include "msprobe/format/json_value.h"

namespace msprobe {

nanobind::object json_to_python(const JsonValue& v);

}  // namespace msprobe
