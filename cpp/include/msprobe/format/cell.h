// One spreadsheet cell, typed as a pandas DataFrame holds it (a Python str, float or int, bool or
// None), so that a writer gives each xlsx cell the type 1.2.1 gives it and a reader hands back
// what it found.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

namespace msprobe {

// One spreadsheet cell. kString: a Python str in the DataFrame; kNumber: a Python/numpy float
// or int (written as a number cell; may be NaN/inf, written as 1.2.1's writer does); kBool; kEmpty:
// None / missing.
struct Cell {
  enum class Kind : uint8_t { kEmpty, kString, kNumber, kBool };
  // Largest first: 48 bytes a cell (a large table has millions of them).
  std::string s;
  double d = 0;
  Kind kind = Kind::kEmpty;
  bool is_int = false;  // kNumber held as a Python int in 1.2.1 (written without a decimal point)

  static Cell empty() { return Cell{}; }
  static Cell str(std::string v) {
    Cell c;
    c.kind = Kind::kString;
    c.s = std::move(v);
    return c;
  }
  static Cell num(double v) {
    Cell c;
    c.kind = Kind::kNumber;
    c.d = v;
    return c;
  }
  static Cell integer(double v) {
    Cell c = num(v);
    c.is_int = true;
    return c;
  }
  static Cell boolean(bool v) {
    Cell c;
    c.kind = Kind::kBool;
    c.d = v ? 1.0 : 0.0;
    return c;
  }
  bool is_empty() const { return kind == Kind::kEmpty; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_number() const { return kind == Kind::kNumber; }
  bool is_bool() const { return kind == Kind::kBool; }
  bool operator==(const Cell& o) const {
    return kind == o.kind && s == o.s && (d == o.d || (d != d && o.d != o.d));
  }
};

}  // namespace msprobe
