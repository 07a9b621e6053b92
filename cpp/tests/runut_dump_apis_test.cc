// run_ut's dump.json reading: classification by last segment, errors, -f filter, name split.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "msprobe/base/error.h"
#include "msprobe/format/json_python.h"
#include "msprobe/runut/dump_apis.h"

namespace msprobe {
namespace runut {
namespace {

std::string write_temp(const std::string& text) {
  char tmpl[] = "/tmp/runut_dump_XXXXXX";
  int fd = ::mkstemp(tmpl);
  EXPECT_GE(fd, 0);
  ::close(fd);
  std::string path = std::string(tmpl) + ".json";
  std::rename(tmpl, path.c_str());
  std::ofstream(path) << text;
  return path;
}

std::string load_error(const std::string& text) {
  const std::string p = write_temp(text);
  try {
    DumpApis::load(p);
  } catch (const FileError& e) {
    ::unlink(p.c_str());
    return e.what();
  }
  ::unlink(p.c_str());
  return "<no error>";
}

TEST(RunutDumpApis, ClassifiesByLastSegment) {
  const std::string p = write_temp(R"({"task":"tensor","dump_data_dir":"x","data":{
    "Functional.multi_head_attention_forward.0.forward": {"input_args": []},
    "Functional.multi_head_attention_forward.0.backward": {"input": []},
    "Torch.add.0.forward": {"input_args": [], "input_kwargs": {}},
    "Module.fc.Linear.forward.0": {},
    "Module.fc.Linear.parameters_grad": {},
    "Torch.weird.0.sideways": {},
    "Torch.orphan.0.backward": {}
  }})");
  DumpApis d = DumpApis::load(p);
  ::unlink(p.c_str());
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d.api(0).name, "Functional.multi_head_attention_forward.0");
  EXPECT_NE(d.api(0).backward, nullptr);
  EXPECT_EQ(d.api(1).name, "Torch.add.0");
  EXPECT_EQ(d.api(1).backward, nullptr);
  EXPECT_TRUE(d.has_real_data());
  EXPECT_EQ(d.orphan_backward(), 1u);
  ASSERT_EQ(d.warnings().size(), 1u);
  EXPECT_NE(d.warnings()[0].find("Torch.weird.0.sideways"), std::string::npos);
  EXPECT_EQ(d.index_of("Torch.add.0"), 1);
  EXPECT_EQ(d.index_of("Torch.nope.0"), -1);
  EXPECT_EQ(d.real_data_dir().substr(d.real_data_dir().size() - 17), "/dump_tensor_data");
}

TEST(RunutDumpApis, RealDataFlagIsPythonTruth) {
  for (auto [value, expect] : std::initializer_list<std::pair<const char*, bool>>{
           {"null", false}, {"\"\"", false}, {"0", false}, {"\"/a\"", true}, {"1", true}}) {
    const std::string p = write_temp(std::string(R"({"dump_data_dir":)") + value + R"(,"data":{}})");
    EXPECT_EQ(DumpApis::load(p).has_real_data(), expect) << value;
    ::unlink(p.c_str());
  }
}

TEST(RunutDumpApis, ErrorsNameThePosition) {
  EXPECT_NE(load_error("{\"data\": {\"a\": [1, 2,]}}").find("line 1 column"), std::string::npos);
  EXPECT_NE(load_error("{\n\"data\": {\n  \"x\": tru }}").find("line 3"), std::string::npos);
  EXPECT_NE(load_error("[]").find("top level must be a JSON object"), std::string::npos);
  EXPECT_NE(load_error("{\"task\": 1}").find("no \"data\" object"), std::string::npos);
  EXPECT_NE(load_error("{\"data\": null}").find("no \"data\" object"), std::string::npos);
  EXPECT_NE(load_error("{\"data\": [1]}").find("\"data\" must be an object"), std::string::npos);
  EXPECT_NE(load_error(""), "<no error>");
}

TEST(RunutDumpApis, MissingFile) {
  try {
    DumpApis::load("/nonexistent/dump.json");
    FAIL();
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dump.json"), std::string::npos);
  }
}

TEST(RunutDumpApis, FilterKeepsFirstOfSimilarCalls) {
  // Spec §1.4: add.1 differs from add.0 only in Max/Min -> dropped; add.2 differs in Mean; add.3
  // has an extra kwarg; mul.0 is another group.
  const char* t =
      R"({"type":"torch.Tensor","dtype":"torch.float32","shape":[2],"Max":%s,"Min":%s,"Mean":%s})";
  auto tensor = [&](const char* mx, const char* mn, const char* mean) {
    char buf[256];
    std::snprintf(buf, sizeof(buf), t, mx, mn, mean);
    return std::string(buf);
  };
  auto entry = [](const std::string& name, const std::string& args, const std::string& kwargs = "{}") {
    return "\"" + name + "\":{\"input_args\":[" + args + "],\"input_kwargs\":" + kwargs + "}";
  };
  const std::string p = write_temp(
      "{\"data\":{" + entry("Torch.add.0.forward", tensor("1", "0", "0.5")) + "," +
      entry("Torch.add.1.forward", tensor("3", "-1", "0.5")) + "," +
      entry("Torch.add.2.forward", tensor("1", "0", "0.7")) + "," +
      entry("Torch.add.3.forward", tensor("1", "0", "0.5"), "{\"alpha\":{\"type\":\"int\",\"value\":2}}") +
      "," + entry("Torch.mul.0.forward", tensor("1", "0", "0.5")) + "," +
      entry("Torch.add.4.forward", "[" + tensor("1", "0", "0.5") + "]") + "," +
      entry("Torch.add.5.forward", "[" + tensor("9", "0", "0.5") + "]") + "," +
      entry("Torch.add.6.forward", "[" + tensor("1", "0", "0.9") + "]") + "}}");
  DumpApis d = DumpApis::load(p);
  ::unlink(p.c_str());
  std::vector<std::string> kept;
  for (size_t i : filter_similar_apis(d)) kept.push_back(d.api(i).name);
  EXPECT_EQ(kept, (std::vector<std::string>{"Torch.add.0", "Torch.add.2", "Torch.add.3", "Torch.mul.0",
                                            "Torch.add.4", "Torch.add.6"}));
}

TEST(RunutDumpApis, PyEqualIsPythonEquality) {
  auto v = [](const char* s) { return parse_json(s, "t"); };
  EXPECT_TRUE(py_equal(v("{\"a\":1,\"b\":[1,2]}"), v("{\"b\":[1,2.0],\"a\":1}")));
  EXPECT_TRUE(py_equal(v("true"), v("1")));
  EXPECT_FALSE(py_equal(v("NaN"), v("NaN")));
  EXPECT_FALSE(py_equal(v("\"1\""), v("1")));
  EXPECT_FALSE(py_equal(v("{\"a\":1}"), v("{\"a\":1,\"b\":2}")));
  EXPECT_TRUE(py_equal(v("null"), v("null")));
  bool (*max_min)(const std::string&) = [](const std::string& k) { return k == "Max" || k == "Min"; };
  EXPECT_TRUE(py_equal(v("[{\"Max\":1,\"a\":2}]"), v("[{\"a\":2.0,\"Min\":3}]"), max_min));
  EXPECT_FALSE(py_equal(v("[{\"Max\":1,\"a\":2}]"), v("[{\"a\":2.0,\"Min\":3}]")));
  EXPECT_FALSE(py_equal(v("{\"Max\":1}"), v("{\"b\":1}"), max_min));
}

TEST(RunutDumpApis, SplitApiName) {
  std::string t, n;
  ASSERT_TRUE(split_api_name("Functional.conv2d.0", &t, &n));
  EXPECT_EQ(t, "Functional");
  EXPECT_EQ(n, "conv2d");
  ASSERT_TRUE(split_api_name("Torch.linalg.norm.3", &t, &n));
  EXPECT_EQ(t, "Torch");
  EXPECT_EQ(n, "linalg.norm");
  EXPECT_FALSE(split_api_name("Torch.add", &t, &n));
  EXPECT_FALSE(split_api_name("A.b.c.d.e", &t, &n));
}

TEST(RunutDumpApis, SplitDetailsRowName) {
  std::string name, api, direction;
  ASSERT_TRUE(split_details_row_name("Torch.add.0.forward.output.1", &name, &api, &direction));
  EXPECT_EQ(name, "add");
  EXPECT_EQ(api, "Torch.add.0");
  EXPECT_EQ(direction, "forward");
  ASSERT_TRUE(split_details_row_name("Torch.linalg.norm.3.backward.output.0", &name, &api, &direction));
  EXPECT_EQ(name, "linalg.norm");
  EXPECT_EQ(api, "Torch.linalg.norm.3");
  EXPECT_EQ(direction, "backward");
  // Any direction is handed back; the caller judges it (1.2.1 warns and goes on).
  ASSERT_TRUE(split_details_row_name("Torch.add.0.sideways.output.0", nullptr, nullptr, &direction));
  EXPECT_EQ(direction, "sideways");
  EXPECT_FALSE(split_details_row_name("Torch.add.forward.output.0", &name, &api, &direction));
  EXPECT_FALSE(split_details_row_name("a.b.c.d.e.f.g.h", &name, &api, &direction));
}

}  // namespace
}  // namespace runut
}  // namespace msprobe
