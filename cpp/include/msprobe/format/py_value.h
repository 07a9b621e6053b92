// Python semantics over parsed JSON values, as 1.2.1's compare sees them after json.load: str(),
// repr(), type names; == and truth are format/json_python.h's. The table must hold exactly the
// text Python would produce.
#pragma once
#include <string>
#include <string_view>

#include "msprobe/format/cell.h"
#include "msprobe/format/json_python.h"  // py_equal, py_truthy
#include "msprobe/format/json_value.h"

namespace msprobe {

// repr(float): "1.0", "0.1", "1e-05", "nan", "inf", "-inf".
std::string py_float_repr(double v);
// repr(str): quotes and escapes as Python 3 does.
std::string py_str_repr(std::string_view s);
// str(value) / repr(value) of a JSON-loaded value (None, True, 3, 1.5, 'a', [..], {..}).
std::string py_str(const JsonValue& v);
std::string py_repr(const JsonValue& v);
// str(type(value)): "<class 'int'>", "<class 'NoneType'>", ...
std::string py_type_str(const JsonValue& v);
// str(np.shape(np.array(value))): "(3,)", "()", "(2, 3)"; throws InvalidInput for ragged lists.
std::string np_shape_str(const JsonValue& v);

// The DataFrame cell a JSON value becomes: numbers stay numbers (ints flagged), bools, None,
// strings; lists and dicts become their Python str() (which is all a writer does with them).
Cell cell_of(const JsonValue& v);
// str(cell) as Python prints the DataFrame value.
std::string cell_str(const Cell& c);

}  // namespace msprobe
