// Python's truth and == over parsed JSON values, as the original's code sees them after
// json.load: bool is an int, 1 == 1.0, NaN != NaN, dicts compare regardless of key order.
#pragma once
#include <string>

#include "msprobe/format/json_value.h"

namespace msprobe {

// bool(value): null, false, 0, 0.0, "", [] and {} are false (NaN is true).
bool py_truthy(const JsonValue& v);

// value_a == value_b. With `skip_key`, every object's keys for which it returns true are left
// out on both sides first (run_ut compares args without their Max and Min).
bool py_equal(const JsonValue& a, const JsonValue& b, bool (*skip_key)(const std::string&) = nullptr);

}  // namespace msprobe
