// op_generate's engine: config_op.json checks (1.2.1's messages), entry names, Python source of
// dump records, the template filled, and the extraction from a dump.json with tensor files.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "msprobe/base/error.h"
#include "msprobe/format/json_value.h"
#include "msprobe/opgen/api_extract.h"
#include "msprobe/opgen/op_config.h"
#include "msprobe/opgen/op_script.h"
#include "test_files.h"

namespace msprobe {
namespace opgen {
namespace {

std::string config_error(const std::string& text) {
  try {
    op_config_from_json(parse_json(text, "config_op.json"));
    return "<ok>";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(OpConfig, OneAsOriginalMessages) {
  const std::string dir = test::temp_dir("opgen_cfg");
  const std::string extract = "\"extract_api_path\": \"" + dir + "/x/api.json\"";
  const std::string ok = "{" + extract + ", \"random_seed\": 1, \"iter_times\": 1";
  EXPECT_EQ(config_error(ok + "}"), "<ok>");
  EXPECT_EQ(config_error(ok + ", \"propagation\": \"up\"}"),
            "propagation is invalid, it should be one of ['forward', 'backward']");
  EXPECT_EQ(config_error(ok + ", \"data_mode\": \"x\"}"),
            "data_mode is invalid, it should be one of ['random_data', 'real_data']");
  EXPECT_EQ(config_error("{" + extract + ", \"iter_times\": 1}"),
            "random_seed is invalid, it should be an int");
  EXPECT_EQ(config_error("{" + extract + ", \"random_seed\": true, \"iter_times\": 1}"),
            "random_seed is invalid, it should be an int");
  EXPECT_EQ(config_error("{" + extract + ", \"random_seed\": 1, \"iter_times\": 1.0}"),
            "iter_times is invalid, it should be an int");
  EXPECT_EQ(config_error(ok + ", \"api_name\": \"=cmd\"}"),
            "api name contains special characters, please check!");
  EXPECT_EQ(config_error(ok + ", \"api_name\": \"a;@b\"}"),
            "api name contains special characters, please check!");
  EXPECT_EQ(config_error(ok + ", \"api_name\": \"Functional.scaled_dot_product_attention.0\"}"), "<ok>");
  EXPECT_EQ(config_error(ok + ", \"api_name\": \"" + std::string(256, 'a') + "\"}"),
            "API name " + std::string(256, 'a') + " is too long!");
  EXPECT_NE(config_error("{\"random_seed\": 1, \"iter_times\": 1}").find("extract_api_path is required"),
            std::string::npos);
}

TEST(OpScript, EntryNames) {
  const ApiCall c = split_api_entry("Functional.softmax.0.forward");
  EXPECT_EQ(c.function(), "torch.nn.functional.softmax");
  EXPECT_EQ(c.direction, "forward");
  EXPECT_EQ(split_api_entry("Torch.linalg.norm.3.backward").function(), "torch.linalg.norm");
  EXPECT_EQ(split_api_entry("Tensor.add.1.forward").function(), "torch.Tensor.add");
  EXPECT_THROW(split_api_entry("Module.fc.Linear.forward.0"), InvalidInput);
  try {
    split_api_entry("Distributed.all_reduce.0.forward");
  } catch (const InvalidInput& e) {
    EXPECT_STREQ(e.what(), "type Distributed of API is not supported!");
  }
}

TEST(OpScript, PythonSourceOfRecords) {
  auto src = [](const char* json) { return python_source(parse_json(json, "r")); };
  EXPECT_EQ(src(R"({"type": "int", "value": -1})"), "-1");
  EXPECT_EQ(src(R"({"type": "float", "value": 0.5})"), "0.5");
  EXPECT_EQ(src(R"({"type": "float", "value": NaN})"), "float(\"nan\")");
  EXPECT_EQ(src(R"({"type": "bool", "value": true})"), "True");
  EXPECT_EQ(src(R"({"type": "str", "value": "mean"})"), "'mean'");
  EXPECT_EQ(src(R"({"type": "slice", "value": [null, 4, 2]})"), "slice(None, 4, 2)");
  EXPECT_EQ(src(R"({"type": "ellipsis", "value": "..."})"), "...");
  EXPECT_EQ(src(R"({"type": "torch.dtype", "value": "torch.float16"})"), "torch.float16");
  EXPECT_EQ(src(R"({"type": "torch.Size", "value": [2, 3]})"), "torch.Size([2, 3])");
  EXPECT_EQ(src(R"([{"type": "int", "value": 0}, {"type": "int", "value": 2}])"), "[0, 2]");
  EXPECT_EQ(
      src(R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": -1.0,
                    "Mean": 0.0, "Norm": 1.4, "requires_grad": false, "data_name": "/d/x.pt"})"),
      "tensor({'dtype': 'torch.float32', 'shape': [2], 'Max': 1.0, 'Min': -1.0, 'requires_grad': False, "
      "'data_name': '/d/x.pt'})");
}

TEST(OpScript, TemplateFilled) {
  OpScriptInput in;
  in.call = split_api_entry("Functional.softmax.0.backward");
  in.forward =
      parse_json(R"({"input_args": [{"type": "int", "value": 3}], "input_kwargs": {"dim": 1}})", "f");
  in.backward = parse_json(R"({"input": [{"type": "int", "value": 4}]})", "b");
  in.iter_times = 2;
  const std::string out = render_op_script(
      "API = {{API_FUNCTION}} {{PROPAGATION}} {{ITER_TIMES}} "
      "{{STANDARD}}\n[\n{{ARGS}}]{\n{{KWARGS}}}[\n{{GRAD_OUTPUTS}}]",
      in);
  EXPECT_EQ(
      out,
      "API = torch.nn.functional.softmax backward 2 benchmark\n[\n        3,\n]{\n        'dim': 1,\n}[\n"
      "        4,\n]");
  EXPECT_THROW(render_op_script("{{NOPE}}", in), InvalidInput);
}

TEST(ApiExtract, TensorPathsIncludingKeywords) {
  const std::string dir = test::temp_dir("opgen_dump");
  ASSERT_EQ(::mkdir((dir + "/dump_tensor_data").c_str(), 0750), 0);
  test::write_file(dir + "/dump_tensor_data/a.pt", "x");
  test::write_file(dir + "/dump_tensor_data/w.pt", "x");
  test::write_file(dir + "/dump.json", R"({"task": "tensor", "level": "L1", "dump_data_dir": "/old/place",
    "data": {"Functional.linear.0.forward": {"input_args": [{"type": "torch.Tensor", "data_name": "a.pt"}],
                                             "input_kwargs": {"weight": {"type": "torch.Tensor", "data_name": "w.pt"}}},
             "Functional.linear.1.forward": {"input_args": []},
             "Functional.linear.0.backward": {"input": []}}})");
  const ExtractedApi api = extract_api(dir + "/dump.json", "Functional.linear.0");
  EXPECT_TRUE(api.tensor_data);
  ASSERT_EQ(api.entries.as_object().size(), 2u);
  const JsonValue& fwd = api.entries.as_object()[0].second;
  EXPECT_EQ(fwd.find("input_args")->as_array()[0].find("data_name")->as_string().substr(0, 1), "/");
  const std::string kw = fwd.find("input_kwargs")->find("weight")->find("data_name")->as_string();
  EXPECT_NE(kw.find("/dump_tensor_data/w.pt"), std::string::npos);
  EXPECT_EQ(kw.rfind("/old/place", 0), std::string::npos);
  try {
    extract_api(dir + "/dump.json", "Functional.gelu.0");
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_EQ(std::string(e.what()),
              "The api 'Functional.gelu.0' does not exist in the file " + dir + "/dump.json.");
  }
  EXPECT_EQ(extracted_api_text(parse_json(R"({"a": {"b": [1]}})", "x")),
            "{\n    \"a\": {\n        \"b\": [\n            1\n        ]\n    }\n}");
}

}  // namespace
}  // namespace opgen
}  // namespace msprobe
