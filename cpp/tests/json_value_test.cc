// JSON parser: values, strictness, error positions, files.
#include "msprobe/format/json_value.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "msprobe/base/error.h"

namespace msprobe {
namespace {

JsonValue P(const std::string& text) { return parse_json(text, "t.json"); }

std::string error_of(const std::string& text) {
  try {
    P(text);
  } catch (const FileError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(JsonValue, Scalars) {
  EXPECT_TRUE(P("null").is_null());
  EXPECT_TRUE(P(" true ").as_bool());
  EXPECT_FALSE(P("false").as_bool());
  EXPECT_EQ(P("0").as_int(), 0);
  EXPECT_EQ(P("-0").type(), JsonValue::Type::kInt);
  EXPECT_EQ(P("42").as_int(), 42);
  EXPECT_EQ(P("-17").as_int(), -17);
  EXPECT_EQ(P("9223372036854775807").as_int(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(P("-9223372036854775808").as_int(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(P("\"abc\"").as_string(), "abc");
}

TEST(JsonValue, BigIntegersBecomeDoubles) {
  JsonValue v = P("9223372036854775808");
  EXPECT_EQ(v.type(), JsonValue::Type::kFloat);
  EXPECT_DOUBLE_EQ(v.as_double(), 9223372036854775808.0);
  v = P("-92233720368547758090");
  EXPECT_EQ(v.type(), JsonValue::Type::kFloat);
  EXPECT_DOUBLE_EQ(v.as_double(), -92233720368547758090.0);
}

TEST(JsonValue, Floats) {
  EXPECT_DOUBLE_EQ(P("1.5").as_double(), 1.5);
  EXPECT_EQ(P("1.0").type(), JsonValue::Type::kFloat);
  EXPECT_DOUBLE_EQ(P("-2.5e-3").as_double(), -2.5e-3);
  EXPECT_DOUBLE_EQ(P("1E+2").as_double(), 100.0);
  EXPECT_EQ(P("1e2").type(), JsonValue::Type::kFloat);
  EXPECT_DOUBLE_EQ(P("0.1").as_double(), 0.1);
  EXPECT_DOUBLE_EQ(P("1.7976931348623157e308").as_double(), 1.7976931348623157e308);
  EXPECT_TRUE(std::isinf(P("1e400").as_double()));
  EXPECT_GT(P("1e400").as_double(), 0);
  EXPECT_EQ(P("1e-400").as_double(), 0.0);
  EXPECT_TRUE(std::isnan(P("NaN").as_double()));
  EXPECT_EQ(P("Infinity").as_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(P("-Infinity").as_double(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(P("[NaN, -Infinity]").as_array().size(), 2u);
}

TEST(JsonValue, Containers) {
  JsonValue v = P(R"({"a": [1, 2.5, "x", null, true, {}], "b": {"c": []}})");
  ASSERT_TRUE(v.is_object());
  ASSERT_EQ(v.as_object().size(), 2u);
  EXPECT_EQ(v.as_object()[0].first, "a");
  EXPECT_EQ(v.as_object()[1].first, "b");
  const JsonValue* a = v.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->as_array().size(), 6u);
  EXPECT_EQ(a->as_array()[0].as_int(), 1);
  EXPECT_TRUE(a->as_array()[5].is_object());
  EXPECT_TRUE(v.find("b")->find("c")->is_array());
  EXPECT_EQ(v.find("zz"), nullptr);
  EXPECT_EQ(a->find("x"), nullptr);  // not an object
  EXPECT_TRUE(P("[]").as_array().empty());
  EXPECT_TRUE(P(" { } ").as_object().empty());
}

TEST(JsonValue, KeyOrderKeptAndDuplicatesResolvedLikePython) {
  JsonValue v = P(R"({"z": 1, "a": 2, "z": 3})");
  ASSERT_EQ(v.as_object().size(), 2u);
  EXPECT_EQ(v.as_object()[0].first, "z");
  EXPECT_EQ(v.as_object()[0].second.as_int(), 3);
  EXPECT_EQ(v.as_object()[1].first, "a");
  // Large object path (hash-based).
  std::string text = "{";
  for (int i = 0; i < 100; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ",";
  text += "\"k5\": 500}";
  v = P(text);
  ASSERT_EQ(v.as_object().size(), 100u);
  EXPECT_EQ(v.find("k5")->as_int(), 500);
  EXPECT_EQ(v.as_object()[99].first, "k99");
}

TEST(JsonValue, StringEscapesAndUnicode) {
  EXPECT_EQ(P(R"("a\"b\\c\/d\b\f\n\r\t")").as_string(), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(P(R"("\u0041\u00e9\u4e2d")").as_string(), "A\xC3\xA9\xE4\xB8\xAD");
  EXPECT_EQ(P(R"("\ud83d\ude00")").as_string(), "\xF0\x9F\x98\x80");  // U+1F600
  EXPECT_EQ(P(R"("\u0000")").as_string(), std::string(1, '\0'));
  EXPECT_EQ(P("\"\xE4\xB8\xAD\xE6\x96\x87\"").as_string(), "\xE4\xB8\xAD\xE6\x96\x87");
  EXPECT_EQ(P("\"\xF0\x9F\x98\x80\"").as_string(), "\xF0\x9F\x98\x80");
}

TEST(JsonValue, StrictnessErrors) {
  EXPECT_NE(error_of("").find("line 1 column 1"), std::string::npos);
  EXPECT_NE(error_of("[1, 2,]").find("trailing comma"), std::string::npos);
  EXPECT_NE(error_of("{\"a\": 1,}").find("trailing comma"), std::string::npos);
  EXPECT_NE(error_of("{'a': 1}").find("expected a string key"), std::string::npos);
  EXPECT_NE(error_of("01").find("leading zeros"), std::string::npos);
  EXPECT_NE(error_of("1.").find("digit after '.'"), std::string::npos);
  EXPECT_NE(error_of(".5").find("expected a JSON value"), std::string::npos);
  EXPECT_NE(error_of("+1").find("expected a JSON value"), std::string::npos);
  EXPECT_NE(error_of("1e").find("exponent"), std::string::npos);
  EXPECT_NE(error_of("tru").find("expected a JSON value"), std::string::npos);
  EXPECT_NE(error_of("nan").find("expected a JSON value"), std::string::npos);
  EXPECT_NE(error_of("-inf").find("digit"), std::string::npos);
  EXPECT_NE(error_of("[1] x").find("end of input after the JSON value"), std::string::npos);
  EXPECT_NE(error_of("\"abc").find("unterminated string"), std::string::npos);
  EXPECT_NE(error_of("\"a\tb\"").find("control character 0x09"), std::string::npos);
  EXPECT_NE(error_of(R"("\x")").find("invalid escape"), std::string::npos);
  EXPECT_NE(error_of(R"("\u12G4")").find("hex digits"), std::string::npos);
  EXPECT_NE(error_of(R"("\ud83d")").find("lone high surrogate"), std::string::npos);
  EXPECT_NE(error_of(R"("\ud83dx")").find("lone high surrogate"), std::string::npos);
  EXPECT_NE(error_of(R"("\ude00")").find("lone low surrogate"), std::string::npos);
  EXPECT_NE(error_of("\"\xC3\"").find("UTF-8"), std::string::npos);
  EXPECT_NE(error_of("\"\xC0\xAF\"").find("UTF-8"), std::string::npos);  // overlong '/'
  EXPECT_NE(error_of("\"\xE0\x80\xAF\"").find("overlong"), std::string::npos);
  EXPECT_NE(error_of("\"\xED\xA0\x80\"").find("surrogate"), std::string::npos);  // U+D800
  EXPECT_NE(error_of("\"\xF4\x90\x80\x80\"").find("UTF-8"), std::string::npos);  // > U+10FFFF
  EXPECT_NE(error_of("\"\xFF\"").find("UTF-8"), std::string::npos);
  EXPECT_NE(error_of("\xEF\xBB\xBF{}").find("byte order mark"), std::string::npos);
  EXPECT_NE(error_of("{\"a\" 1}").find("expected ':'"), std::string::npos);
  EXPECT_NE(error_of("{\"a\": 1 \"b\": 2}").find("expected ',' or '}'"), std::string::npos);
  EXPECT_NE(error_of("[1 2]").find("expected ',' or ']'"), std::string::npos);
  EXPECT_NE(error_of("[1,").find("end of input"), std::string::npos);
  EXPECT_NE(error_of("// comment\n{}").find("expected a JSON value"), std::string::npos);
}

TEST(JsonValue, ErrorNamesOriginLineAndColumn) {
  std::string msg = error_of("{\n  \"a\": 1,\n  \"b\": tru\n}");
  EXPECT_EQ(msg.rfind("t.json: line 3 column 8: ", 0), 0u) << msg;
  // Columns count characters, not bytes.
  msg = error_of("[\"\xE4\xB8\xAD\", x]");
  EXPECT_NE(msg.find("line 1 column 7"), std::string::npos) << msg;
  msg = error_of("{\"a\": [1, 2}");
  EXPECT_NE(msg.find("line 1 column 12: expected ',' or ']' in a list, got '}'"), std::string::npos) << msg;
}

TEST(JsonValue, DepthLimit) {
  std::string ok(512, '[');
  ok += std::string(512, ']');
  EXPECT_NO_THROW(P(ok));
  std::string deep(513, '[');
  deep += std::string(513, ']');
  std::string msg = error_of(deep);
  EXPECT_NE(msg.find("nesting is deeper than 512 levels"), std::string::npos) << msg;
  // Very deep input must not overflow the stack.
  std::string huge(1000000, '[');
  EXPECT_NE(error_of(huge).find("nesting"), std::string::npos);
  std::string objs;
  for (int i = 0; i < 600; ++i) objs += "{\"a\":";
  EXPECT_NE(error_of(objs).find("nesting"), std::string::npos);
}

TEST(JsonValue, Factories) {
  JsonValue v = JsonValue::make_object(
      {{"x", JsonValue::make_array({JsonValue::make_int(1), JsonValue::make_float(2.5)})},
       {"s", JsonValue::make_string("y")},
       {"b", JsonValue::make_bool(true)}});
  EXPECT_EQ(v.find("x")->as_array()[1].as_double(), 2.5);
  EXPECT_EQ(v.find("x")->as_array()[0].as_double(), 1.0);
  EXPECT_EQ(v.find("s")->as_string(), "y");
  EXPECT_TRUE(v.find("b")->as_bool());
  EXPECT_STREQ(v.type_name(), "an object");
  EXPECT_STREQ(JsonValue().type_name(), "null");
  EXPECT_STREQ(JsonValue::make_string("").type_name(), "a string");
  EXPECT_STREQ(JsonValue::make_array({}).type_name(), "a list");
  EXPECT_STREQ(JsonValue::make_int(1).type_name(), "an integer");
  EXPECT_STREQ(JsonValue::make_bool(false).type_name(), "a boolean");
}

class JsonFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msprobe_json_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string write(const std::string& name, const std::string& text) {
    std::string p = dir_ + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string dir_;
};

TEST_F(JsonFileTest, ReadsFile) {
  std::string p = write("a.json", "{\"k\": [1, 2, 3]}\n");
  EXPECT_EQ(parse_json_file(p).find("k")->as_array().size(), 3u);
}

TEST_F(JsonFileTest, EmptyFileIsAnErrorNamingThePath) {
  std::string p = write("empty.json", "");
  try {
    parse_json_file(p);
    FAIL();
  } catch (const FileError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(p + ": line 1 column 1: ", 0), 0u) << e.what();
  }
}

TEST_F(JsonFileTest, MissingDirectoryAndUnreadable) {
  try {
    parse_json_file(dir_ + "/nope.json");
    FAIL();
  } catch (const FileError& e) {
    EXPECT_EQ(std::string(e.what()), dir_ + "/nope.json: no such file");
  }
  try {
    parse_json_file(dir_);
    FAIL();
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).rfind(dir_, 0), 0u);
  }
  if (geteuid() != 0) {  // root reads anything
    std::string p = write("locked.json", "{}");
    chmod(p.c_str(), 0);
    try {
      parse_json_file(p);
      FAIL();
    } catch (const FileError& e) {
      EXPECT_NE(std::string(e.what()).find(p + ": cannot open"), std::string::npos) << e.what();
    }
  }
}

TEST_F(JsonFileTest, LargeFile) {
  std::string text = "{\"data\": {";
  for (int i = 0; i < 20000; ++i) {
    if (i) text += ",";
    text += "\"Functional.linear." + std::to_string(i) +
            ".forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
            "\"shape\": [2, 3], \"Max\": 1.5, \"Min\": -0.25, \"Mean\": NaN, \"Norm\": 1e-05}]}";
  }
  text += "}}";
  std::string p = write("big.json", text);
  JsonValue v = parse_json_file(p);
  EXPECT_EQ(v.find("data")->as_object().size(), 20000u);
  const JsonValue* e = v.find("data")->find("Functional.linear.19999.forward");
  ASSERT_NE(e, nullptr);
  EXPECT_DOUBLE_EQ(e->find("input_args")->as_array()[0].find("Norm")->as_double(), 1e-05);
}

}  // namespace
}  // namespace msprobe
