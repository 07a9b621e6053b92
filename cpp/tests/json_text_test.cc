// Python-compatible JSON text: float repr, escaping, indent=1 layout.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "msprobe/format/json_text.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {
namespace {

std::string py_float(double v) {
  std::string s;
  append_python_float(s, v);
  return s;
}

TEST(PythonFloat, MatchesRepr) {
  EXPECT_EQ(py_float(1.0), "1.0");
  EXPECT_EQ(py_float(0.1), "0.1");
  EXPECT_EQ(py_float(-2.5), "-2.5");
  EXPECT_EQ(py_float(1e-05), "1e-05");
  EXPECT_EQ(py_float(0.0001), "0.0001");
  EXPECT_EQ(py_float(1e16), "1e+16");
  EXPECT_EQ(py_float(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(py_float(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(py_float(0.8982915282249451), "0.8982915282249451");
  EXPECT_EQ(py_float((double)0.1f), "0.10000000149011612");
  EXPECT_EQ(py_float(-0.0), "-0.0");
  EXPECT_EQ(py_float(5e-324), "5e-324");
  EXPECT_EQ(py_float(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(py_float(INFINITY), "Infinity");
  EXPECT_EQ(py_float(-INFINITY), "-Infinity");
}

TEST(JsonString, EscapesLikeEnsureAscii) {
  std::string s;
  append_json_string(s, "a\"b\\c\nd\x01");
  EXPECT_EQ(s, "\"a\\\"b\\\\c\\nd\\u0001\"");
  s.clear();
  append_json_string(s, "\xc3\xa9\xf0\x9f\x98\x80");  // é and an emoji (surrogate pair)
  EXPECT_EQ(s, "\"\\u00e9\\ud83d\\ude00\"");
}

TEST(JsonWriter, IndentOneLayout) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("a");
  w.begin_array();
  w.integer(1);
  w.null();
  w.end_array();
  w.key("b");
  w.begin_object();
  w.end_object();
  w.key("c");
  w.begin_array();
  w.end_array();
  w.end_object();
  EXPECT_EQ(out, "{\n \"a\": [\n  1,\n  null\n ],\n \"b\": {},\n \"c\": []\n}");
}

}  // namespace
}  // namespace msprobe
