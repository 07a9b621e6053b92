// config.json parsing and validation (reference data-dump §1, §5.6, §5.7).
#include "msprobe/config/dump_config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "msprobe/base/error.h"

namespace msprobe {
namespace {

const char* kShipped = R"({
    "task": "statistics",
    "dump_path": "./dump_path",
    "rank": [],
    "step": [],
    "level": "L1",
    "enable_dataloader": false,
    "async_dump": false,
    "tensor": {"scope": [], "list": [], "data_mode": ["all"], "file_format": "npy"},
    "statistics": {"scope": [], "list": [], "data_mode": ["all"], "summary_mode": "statistics"},
    "overflow_check": {"overflow_nums": 1, "check_mode": "all"},
    "run_ut": {"white_list": [], "black_list": [], "error_data_path": "./"},
    "grad_probe": {"grad_level": "L1", "param_list": [], "bounds": [-1, 0, 1]},
    "free_benchmark": {"scope": [], "list": [], "fuzz_device": "npu", "pert_mode": "improve_precision",
                       "handler_type": "check", "fuzz_level": "L1", "fuzz_stage": "forward",
                       "if_preheat": false, "preheat_step": 15, "max_sample": 20}
})";

DumpConfig cfg(const std::string& text, Framework fw = Framework::kPyTorch, const ConfigOverrides& ov = {}) {
  return parse_dump_config(parse_json(text, "c.json"), fw, ov, "c.json");
}

// The InvalidInput message, or "<ok>".
std::string err(const std::string& text, Framework fw = Framework::kPyTorch, const ConfigOverrides& ov = {}) {
  try {
    cfg(text, fw, ov);
  } catch (const InvalidInput& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "message must be one line: " << m;
    return m;
  }
  return "<ok>";
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "message: " << (haystack)

TEST(DumpConfig, ShippedDefaults) {
  DumpConfig c = cfg(kShipped);
  EXPECT_EQ(c.task, "statistics");
  EXPECT_EQ(c.dump_path, "./dump_path");
  EXPECT_TRUE(c.rank.empty());
  EXPECT_TRUE(c.step.empty());
  EXPECT_EQ(c.level, "L1");
  EXPECT_FALSE(c.enable_dataloader);
  EXPECT_FALSE(c.async_dump);
  EXPECT_TRUE(c.scope.empty());
  EXPECT_TRUE(c.list.empty());
  EXPECT_EQ(c.data_mode, std::vector<std::string>{"all"});
  EXPECT_EQ(c.summary_mode, "statistics");
  EXPECT_TRUE(c.summary_mode_list.empty());
  EXPECT_EQ(c.file_format, "npy");
  EXPECT_EQ(c.overflow_nums, 1);
  EXPECT_EQ(c.check_mode, "all");
  EXPECT_EQ(c.free_benchmark.max_sample, 20);
  EXPECT_EQ(c.grad_probe.bounds, (std::vector<double>{-1, 0, 1}));
  // Same for MindSpore.
  DumpConfig m = cfg(kShipped, Framework::kMindSpore);
  EXPECT_EQ(m.task, "statistics");
}

TEST(DumpConfig, EmptyObjectGivesDefaults) {
  DumpConfig c = cfg("{}");
  EXPECT_EQ(c.task, "statistics");
  EXPECT_EQ(c.level, "L1");
  EXPECT_EQ(c.dump_path, "./dump_path");
  EXPECT_EQ(c.data_mode, std::vector<std::string>{"all"});
}

TEST(DumpConfig, UnknownKeysIgnored) {
  EXPECT_EQ(err(R"({"foo": 1, "statistics": {"bar": [1], "summary_mode": "md5"}})"), "<ok>");
  EXPECT_EQ(cfg(R"({"statistics": {"summary_mode": "md5"}})").summary_mode, "md5");
}

TEST(DumpConfig, TopLevelMustBeObject) {
  EXPECT_HAS(err("[]"), "c.json: the top level must be a JSON object, got a list");
}

TEST(DumpConfig, Task) {
  EXPECT_EQ(err(R"({"task": "statistic"})"),
            "c.json: \"task\" must be one of tensor, statistics, overflow_check, free_benchmark, run_ut, "
            "grad_probe, got \"statistic\"");
  EXPECT_HAS(err(R"({"task": 1})"), "\"task\" must be one of");
  EXPECT_HAS(err(R"({"task": null})"), "got null");
  // run_ut is PyTorch only.
  EXPECT_HAS(err(R"({"task": "run_ut"})", Framework::kMindSpore),
             "\"task\" must be one of tensor, statistics, overflow_check, free_benchmark, grad_probe, got "
             "\"run_ut\"");
  for (const char* t : {"tensor", "statistics", "overflow_check", "free_benchmark", "run_ut", "grad_probe"}) {
    EXPECT_EQ(cfg(std::string("{\"task\": \"") + t + "\"}").task, t);
  }
}

TEST(DumpConfig, Level) {
  EXPECT_EQ(err(R"({"level": "L3"})"), "c.json: \"level\" must be one of L0, L1, L2, mix, got \"L3\"");
  EXPECT_HAS(err(R"({"level": "l1"})"), "got \"l1\"");
  EXPECT_EQ(cfg(R"({"level": "mix"})").level, "mix");
}

TEST(DumpConfig, DumpPath) {
  EXPECT_HAS(err(R"({"dump_path": ""})"), "\"dump_path\" must be a non-empty path");
  EXPECT_HAS(err(R"({"dump_path": "my dump"})"), "\"dump_path\" may only contain letters, digits");
  EXPECT_HAS(err("{\"dump_path\": \"d\xC3\xA9\"}"), "may only contain");
  EXPECT_HAS(err(R"({"dump_path": "~/x"})"), "may only contain");
  EXPECT_HAS(err(R"({"dump_path": 5})"), "\"dump_path\" must be a string (a path), got 5");
  std::string long_component(256, 'a');
  EXPECT_HAS(err("{\"dump_path\": \"./" + long_component + "\"}"), "path components of at most 255");
  std::string long_path;
  while (long_path.size() <= 4096) long_path += "abcdefgh/";
  EXPECT_HAS(err("{\"dump_path\": \"" + long_path + "\"}"), "at most 4096 characters");
  EXPECT_EQ(cfg(R"({"dump_path": "/tmp/a-b_c.d/e"})").dump_path, "/tmp/a-b_c.d/e");
}

TEST(DumpConfig, RankAndStep) {
  DumpConfig c = cfg(R"({"rank": [3, "0-2", 1], "step": ["5-7", 0, "6-6"]})");
  EXPECT_EQ(c.rank, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(c.step, (std::vector<int64_t>{0, 5, 6, 7}));
  EXPECT_EQ(cfg(R"({"step": [1000000]})").step, (std::vector<int64_t>{1000000}));
  EXPECT_HAS(err(R"({"rank": "0"})"),
             "c.json: \"rank\" must be a list of integers in 0..1000000 and \"a-b\"");
  EXPECT_HAS(err(R"({"rank": 0})"), "\"rank\" must be a list");
  EXPECT_HAS(
      err(R"({"step": ["3"]})"),
      "\"step[0]\" must be an integer in 0..1000000 or an \"a-b\" range string with a <= b, got \"3\"");
  EXPECT_HAS(err(R"({"step": ["3-1"]})"), "got \"3-1\"");
  EXPECT_HAS(err(R"({"step": [true]})"), "\"step[0]\" must be an integer");
  EXPECT_HAS(err(R"({"step": [1.0]})"), "got 1.0");
  EXPECT_HAS(err(R"({"step": [-1]})"), "got -1");
  EXPECT_HAS(err(R"({"step": [1000001]})"), "got 1000001");
  EXPECT_HAS(err(R"({"step": ["0-1000001"]})"), "got \"0-1000001\"");
  EXPECT_HAS(err(R"({"step": ["99999999999999999999-1"]})"), "\"step[0]\"");
  EXPECT_HAS(err(R"({"step": [" 1-2"]})"), "\"step[0]\"");
  EXPECT_HAS(err(R"({"step": ["1--2"]})"), "\"step[0]\"");
  EXPECT_HAS(err(R"({"step": ["-1-2"]})"), "\"step[0]\"");
  EXPECT_HAS(err(R"({"step": ["1-"]})"), "\"step[0]\"");
  EXPECT_HAS(err(R"({"step": [[1]]})"), "\"step[0]\"");
}

TEST(DumpConfig, ParseIntRangesPublic) {
  EXPECT_EQ(parse_int_ranges(parse_json(R"(["2-4", 3, 9])", "x"), "step"),
            (std::vector<int64_t>{2, 3, 4, 9}));
  try {
    parse_int_ranges(parse_json("\"0\"", "x"), "rank");
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_EQ(std::string(e.what()).rfind("\"rank\" must be a list", 0), 0u);
  }
}

TEST(DumpConfig, Bools) {
  EXPECT_HAS(err(R"({"async_dump": "true"})"), "\"async_dump\" must be true or false, got \"true\"");
  EXPECT_HAS(err(R"({"enable_dataloader": 1})"), "\"enable_dataloader\" must be true or false, got 1");
  EXPECT_TRUE(cfg(R"({"async_dump": true})").async_dump);
}

TEST(DumpConfig, SectionMustBeObject) {
  EXPECT_HAS(err(R"({"statistics": []})"), "\"statistics\" must be an object");
  // Sections of other tasks are not read.
  EXPECT_EQ(err(R"({"tensor": [], "overflow_check": {"overflow_nums": "x"}})"), "<ok>");
}

TEST(DumpConfig, OnlyEffectiveTaskSectionValidated) {
  const char* text = R"({"task": "statistics", "statistics": {"data_mode": ["all"]},
                        "tensor": {"data_mode": ["bogus"], "file_format": "bin"}})";
  EXPECT_EQ(err(text), "<ok>");
  ConfigOverrides ov;
  ov.task = "tensor";
  EXPECT_HAS(err(text, Framework::kPyTorch, ov),
             "\"tensor.data_mode[0]\" must be one of all, input, output, forward, backward, got \"bogus\"");
  // The same rule for MindSpore (deliberate: the override chooses the section).
  EXPECT_HAS(err(text, Framework::kMindSpore, ov), "\"tensor.data_mode[0]\"");
}

TEST(DumpConfig, SectionsAreNotInherited) {
  ConfigOverrides ov;
  ov.task = "tensor";
  DumpConfig c =
      cfg(R"({"statistics": {"list": ["relu"]}, "tensor": {"file_format": "bin"}})", Framework::kPyTorch, ov);
  EXPECT_TRUE(c.list.empty());
  EXPECT_EQ(c.file_format, "bin");
}

TEST(DumpConfig, DataMode) {
  auto dm = [](const std::string& modes) { return "{\"statistics\": {\"data_mode\": " + modes + "}}"; };
  EXPECT_EQ(cfg(dm(R"(["forward", "input"])")).data_mode, (std::vector<std::string>{"forward", "input"}));
  EXPECT_EQ(cfg(dm(R"(["input", "output", "forward", "backward"])")).data_mode.size(), 4u);
  EXPECT_HAS(
      err(dm("[]")),
      "\"statistics.data_mode\" must hold at least one of all, input, output, forward, backward, got []");
  EXPECT_HAS(err(dm("\"all\"")),
             "\"statistics.data_mode\" must be a list drawn from all, input, output, forward, backward, got "
             "\"all\"");
  EXPECT_HAS(err(dm(R"(["all", "input"])")), "\"statistics.data_mode\" may hold \"all\" only on its own");
  EXPECT_HAS(err(dm(R"(["input", "input"])")), "\"statistics.data_mode\" must not repeat an item");
  EXPECT_HAS(err(dm(R"(["input", "output", "forward", "backward", "input"])")), "cannot exceed 4");
  EXPECT_HAS(
      err(dm(R"(["Input"])")),
      "\"statistics.data_mode[0]\" must be one of all, input, output, forward, backward, got \"Input\"");
  EXPECT_HAS(err(dm(R"([1])")), "\"statistics.data_mode[0]\"");
}

TEST(DumpConfig, DataModeMindSporeL2) {
  const std::string text = R"({"level": "L2", "statistics": {"data_mode": ["forward"]}})";
  EXPECT_HAS(err(text, Framework::kMindSpore),
             "must be exactly one of all, input, output when \"level\" is L2");
  EXPECT_EQ(
      cfg(R"({"level": "L2", "statistics": {"data_mode": ["input"]}})", Framework::kMindSpore).data_mode,
      std::vector<std::string>{"input"});
}

TEST(DumpConfig, SummaryMode) {
  EXPECT_HAS(err(R"({"statistics": {"summary_mode": "max"}})"),
             "\"statistics.summary_mode\" must be one of statistics, md5, got \"max\"");
  EXPECT_HAS(err(R"({"statistics": {"summary_mode": ["max"]}})"),
             "must be one of statistics, md5, got [\"max\"]");
  DumpConfig m = cfg(R"({"statistics": {"summary_mode": ["max", "md5"]}})", Framework::kMindSpore);
  EXPECT_EQ(m.summary_mode_list, (std::vector<std::string>{"max", "md5"}));
  EXPECT_EQ(cfg(R"({"statistics": {"summary_mode": []}})", Framework::kMindSpore).summary_mode_list,
            (std::vector<std::string>{"max", "min", "mean", "l2norm"}));
  EXPECT_HAS(err(R"({"statistics": {"summary_mode": ["norm"]}})", Framework::kMindSpore),
             "\"statistics.summary_mode[0]\" must be one of md5, max, min, mean, l2norm, got \"norm\"");
  EXPECT_HAS(err(R"({"statistics": {"summary_mode": ["max", "max"]}})", Framework::kMindSpore),
             "must not repeat");
  EXPECT_HAS(err(R"({"statistics": {"summary_mode": "xor"}})", Framework::kMindSpore),
             "must be one of statistics, md5, or a list drawn from md5, max, min, mean, l2norm");
}

TEST(DumpConfig, FileFormat) {
  EXPECT_HAS(err(R"({"task": "tensor", "tensor": {"file_format": "pt"}})"),
             "\"tensor.file_format\" must be one of npy, bin, got \"pt\"");
  EXPECT_EQ(cfg(R"({"task": "tensor", "tensor": {"file_format": "bin"}})").file_format, "bin");
}

// 1.2.1's online run_ut (PyTorch tensor task) is refused, not turned into a full tensor dump.
TEST(DumpConfig, OnlineRunUtRefused) {
  const std::string m = err(R"({"task": "tensor", "tensor": {"online_run_ut": true, "host": "10.0.0.1"}})");
  EXPECT_EQ(m.rfind("c.json: \"tensor.online_run_ut\" is true, but online run_ut", 0), 0u) << m;
  EXPECT_HAS(m, "is not supported by this version");
  EXPECT_HAS(m, "msprobe -f pytorch run_ut -api_info");
  EXPECT_HAS(err(R"({"task": "tensor", "tensor": {"online_run_ut": "true"}})"),
             "\"tensor.online_run_ut\" must be true or false, got \"true\"");
  EXPECT_EQ(err(R"({"task": "tensor", "tensor": {"online_run_ut": false}})"), "<ok>");
  // Only the tensor section has the key; MindSpore 1.2.1 does not know it (ignored there).
  EXPECT_EQ(err(R"({"task": "statistics", "statistics": {"online_run_ut": true}})"), "<ok>");
  EXPECT_EQ(err(R"({"task": "tensor", "tensor": {"online_run_ut": true}})", Framework::kMindSpore), "<ok>");
}

TEST(DumpConfig, OverflowCheck) {
  EXPECT_EQ(cfg(R"({"task": "overflow_check", "overflow_check": {"overflow_nums": -1}})").overflow_nums, -1);
  // PyTorch: 0 is read as the default 1 (as 1.2.1's DebuggerConfig does); below -1 is refused.
  EXPECT_EQ(cfg(R"({"task": "overflow_check", "overflow_check": {"overflow_nums": 0}})").overflow_nums, 1);
  EXPECT_EQ(cfg(R"({"task": "overflow_check", "overflow_check": {"overflow_nums": 3}})").overflow_nums, 3);
  EXPECT_HAS(err(R"({"task": "overflow_check", "overflow_check": {"overflow_nums": -2}})"),
             "\"overflow_check.overflow_nums\" must be -1 (no limit) or an integer >= 0 (0 means 1), got -2");
  EXPECT_HAS(
      err(R"({"task": "overflow_check", "overflow_check": {"overflow_nums": true}})"),
      "\"overflow_check.overflow_nums\" must be -1 (no limit) or an integer >= 0 (0 means 1), got true");
  EXPECT_HAS(
      err(R"({"task": "overflow_check", "overflow_check": {"overflow_nums": 1.5}})", Framework::kMindSpore),
      "\"overflow_check.overflow_nums\" must be -1 (no limit) or an integer > 0, got 1.5");
  // MindSpore's overflow_check ignores data_mode (1.2.1 forces ["all"]); PyTorch honours it.
  EXPECT_EQ(cfg(R"({"task": "overflow_check", "overflow_check": {"data_mode": ["nonsense"]}})",
                Framework::kMindSpore)
                .data_mode,
            std::vector<std::string>{"all"});
  EXPECT_EQ(cfg(R"({"task": "overflow_check", "overflow_check": {"data_mode": ["forward"]}})").data_mode,
            std::vector<std::string>{"forward"});
  EXPECT_HAS(
      err(R"({"task": "overflow_check", "overflow_check": {"overflow_nums": "1"}})"),
      "\"overflow_check.overflow_nums\" must be -1 (no limit) or an integer >= 0 (0 means 1), got \"1\"");
  EXPECT_HAS(
      err(R"({"task": "overflow_check", "overflow_check": {"overflow_nums": 0}})", Framework::kMindSpore),
      "\"overflow_check.overflow_nums\" must be -1 (no limit) or an integer > 0, got 0");
  EXPECT_HAS(err(R"({"task": "overflow_check", "overflow_check": {"check_mode": "vector"}})"),
             "\"overflow_check.check_mode\" must be one of all, aicore, atomic, got \"vector\"");
}

TEST(DumpConfig, ScopeByLevel) {
  const std::string api2 = R"(["Functional.linear.1.forward", "Tensor.__getitem__.0.forward"])";
  const std::string mod2 = R"(["Module.conv1.Conv2d.forward.0", "Module.fc.Linear.forward.0"])";
  auto sc = [](const std::string& level, const std::string& scope) {
    return "{\"level\": \"" + level + "\", \"statistics\": {\"scope\": " + scope + "}}";
  };
  EXPECT_EQ(cfg(sc("L1", api2)).scope.size(), 2u);
  EXPECT_EQ(cfg(sc("L0", mod2)).scope.size(), 2u);
  EXPECT_EQ(err(sc("mix", R"(["Module.conv1.Conv2d.forward.0", "Torch.add.0.forward"])")), "<ok>");
  EXPECT_HAS(err(sc("L1", mod2)), "\"statistics.scope[0]\" must be an API name when \"level\" is L1");
  EXPECT_HAS(err(sc("L0", api2)), "\"statistics.scope[0]\" must be a module name when \"level\" is L0");
  EXPECT_HAS(err(sc("mix", R"(["relu", "Torch.add.0.forward"])")),
             "\"statistics.scope[0]\" must be an API name");
  EXPECT_HAS(err(sc("L1", R"(["Functional.linear.1.forward"])")),
             "\"statistics.scope\" must be empty or hold exactly 2 names");
  EXPECT_HAS(err(sc("L1", R"("Functional.linear.1.forward")")),
             "\"statistics.scope\" must be a list of strings");
  EXPECT_HAS(err(sc("L1", R"([1, 2])")), "\"statistics.scope[0]\" must be a string, got 1");
  EXPECT_HAS(err(sc("L1", R"(["Functional.linear.1.forward", "Tensor.add.x.forward"])")),
             "\"statistics.scope[1]\"");
  EXPECT_HAS(err(sc("L1", R"(["Foo.linear.1.forward", "Tensor.add.0.forward"])")), "\"statistics.scope[0]\"");
  // The override level decides the pattern.
  ConfigOverrides ov;
  ov.level = "L0";
  EXPECT_HAS(err(sc("L1", api2), Framework::kPyTorch, ov), "when \"level\" is L0");
}

TEST(DumpConfig, ScopeNamePatterns) {
  auto l1 = [](const std::string& a) {
    return err("{\"level\": \"L1\", \"statistics\": {\"scope\": [\"" + a + "\", \"Torch.add.0.forward\"]}}");
  };
  auto l0 = [](const std::string& a) {
    return err("{\"level\": \"L0\", \"statistics\": {\"scope\": [\"" + a + "\", \"Cell.x.X.forward.0\"]}}");
  };
  for (const char* ok : {"Functional.linear.1.forward", "MintFunctional.relu.0.backward",
                         "Mint.add.3.forward", "Aten.add.Tensor.0.forward", "Tensor.__getitem__.12.backward",
                         "Torch..0.forward", "Jit.AlexNet.1.forward", "Distributed.all_reduce.0.forward"}) {
    EXPECT_EQ(l1(ok), "<ok>") << ok;
  }
  for (const char* bad : {"Torch.0.forward", "Torch.add.forward", "Torch.add.0.forwards",
                          "Torch.add.x0.forward", "torch.add.0.forward", "Mintx.add.0.forward",
                          "Torch.add.0.", "Torch", "Torch.add.0.forward\\n", "Module.a.A.forward.0"}) {
    EXPECT_HAS(l1(bad), "\"statistics.scope[0]\"");
  }
  for (const char* ok : {"Module.conv1.Conv2d.forward.0", "Cell.a.b.C.backward.12", "Module..forward.3",
                         "Module.0.Linear.forward.0"}) {
    EXPECT_EQ(l0(ok), "<ok>") << ok;
  }
  for (const char* bad : {"Module.forward.0", "Module.a.A.forward", "Module.a.A.forward.x",
                          "Cells.a.A.forward.0", "Functional.linear.1.forward"}) {
    EXPECT_HAS(l0(bad), "\"statistics.scope[0]\"");
  }
}

TEST(DumpConfig, PyTorchL2) {
  EXPECT_EQ(cfg(R"({"level": "L2", "statistics": {"list": ["Functional.conv2d.0.backward"]}})").list.size(),
            1u);
  EXPECT_HAS(err(R"({"level": "L2"})"),
             "\"statistics.list\" must hold exactly one full API name when \"level\" is L2");
  EXPECT_HAS(err(R"({"level": "L2", "statistics": {"list": ["a", "b"]}})"), "exactly one full API name");
  EXPECT_HAS(err(R"({"level": "L2", "statistics": {"list": ["relu"]}})"),
             "\"statistics.list[0]\" must be a full API name");
  EXPECT_HAS(
      err(R"({"level": "L2", "statistics": {"scope": ["Functional.a.0.forward", "Functional.b.0.forward"],
                     "list": ["Functional.conv2d.0.forward"]}})"),
      "\"statistics.scope\" must be empty when \"level\" is L2");
  // MindSpore L2: list holds kernel names; no such rule.
  EXPECT_EQ(
      err(R"j({"level": "L2", "statistics": {"list": ["name-regex(Default/.+)"]}})j", Framework::kMindSpore),
      "<ok>");
}

TEST(DumpConfig, ListMustBeStrings) {
  EXPECT_HAS(err(R"({"statistics": {"list": "relu"}})"),
             "\"statistics.list\" must be a list of strings, got \"relu\"");
  EXPECT_HAS(err(R"({"statistics": {"list": ["relu", 3]}})"),
             "\"statistics.list[1]\" must be a string, got 3");
  EXPECT_EQ(cfg(R"({"statistics": {"list": ["relu", "Tensor.add"]}})").list.size(), 2u);
}

TEST(DumpConfig, FreeBenchmark) {
  auto fb = [](const std::string& body) {
    return "{\"task\": \"free_benchmark\", \"free_benchmark\": {" + body + "}}";
  };
  DumpConfig c = cfg(fb(R"("list": ["relu"], "pert_mode": "add_noise", "fuzz_stage": "backward")"));
  EXPECT_EQ(c.free_benchmark.pert_mode, "add_noise");
  EXPECT_EQ(c.list, std::vector<std::string>{"relu"});
  EXPECT_EQ(c.free_benchmark.list, std::vector<std::string>{"relu"});
  EXPECT_EQ(cfg(fb(R"("fuzz_device": "cpu", "pert_mode": "to_cpu")")).free_benchmark.fuzz_device, "cpu");
  EXPECT_HAS(err(fb(R"("scope": ["Torch.add.0.forward"], "list": ["relu"])")), "cannot both be set");
  EXPECT_HAS(err(fb(R"("fuzz_device": "gpu")")),
             "\"free_benchmark.fuzz_device\" must be one of npu, cpu, got \"gpu\"");
  EXPECT_HAS(err(fb(R"("fuzz_device": "cpu")")),
             "\"free_benchmark.fuzz_device\" cpu requires \"free_benchmark.pert_mode\" to_cpu");
  EXPECT_HAS(err(fb(R"("pert_mode": "to_cpu")")), "must be cpu when \"free_benchmark.pert_mode\" is to_cpu");
  EXPECT_HAS(err(fb(R"("pert_mode": "to_cpu", "fuzz_device": "cpu")"), Framework::kMindSpore),
             "\"free_benchmark.fuzz_device\" must be one of npu, got \"cpu\"");
  EXPECT_HAS(err(fb(R"("pert_mode": "to_cpu")"), Framework::kMindSpore),
             "\"free_benchmark.pert_mode\" must be one of improve_precision, add_noise, bit_noise, "
             "no_change, change_value, got");
  EXPECT_HAS(err(fb(R"("handler_type": "fix", "pert_mode": "add_noise")")),
             "must be improve_precision or to_cpu when");
  EXPECT_HAS(err(fb(R"("handler_type": "fix", "fuzz_stage": "backward")")),
             "\"free_benchmark.fuzz_stage\" must be forward when");
  EXPECT_HAS(err(fb(R"("handler_type": "fix", "if_preheat": true)")),
             "\"free_benchmark.if_preheat\" must be false when");
  EXPECT_HAS(err(fb(R"("handler_type": "repair")")),
             "\"free_benchmark.handler_type\" must be one of check, fix");
  EXPECT_HAS(err(fb(R"("fuzz_level": "L2")")), "\"free_benchmark.fuzz_level\" must be one of L1, got \"L2\"");
  EXPECT_HAS(err(fb(R"("fuzz_stage": "both")")),
             "\"free_benchmark.fuzz_stage\" must be one of forward, backward");
  EXPECT_HAS(err(fb(R"("if_preheat": "yes")")), "\"free_benchmark.if_preheat\" must be true or false");
  EXPECT_HAS(err(fb(R"("preheat_step": 0)")),
             "\"free_benchmark.preheat_step\" must be an integer > 0, got 0");
  EXPECT_HAS(err(fb(R"("max_sample": 1.5)")),
             "\"free_benchmark.max_sample\" must be an integer > 0, got 1.5");
}

TEST(DumpConfig, RunUt) {
  DumpConfig c = cfg(
      R"({"task": "run_ut", "run_ut": {"white_list": ["conv2d"], "black_list": [], "error_data_path": "/tmp"}})");
  EXPECT_EQ(c.run_ut.white_list, std::vector<std::string>{"conv2d"});
  EXPECT_EQ(c.run_ut.error_data_path, "/tmp");
  EXPECT_HAS(err(R"({"task": "run_ut", "run_ut": {"white_list": "conv2d"}})"),
             "\"run_ut.white_list\" must be a list of strings");
  EXPECT_HAS(err(R"({"task": "run_ut", "run_ut": {"black_list": [1]}})"),
             "\"run_ut.black_list[0]\" must be a string");
  EXPECT_HAS(err(R"({"task": "run_ut", "run_ut": {"error_data_path": "/no/such/dir/x"}})"),
             "\"run_ut.error_data_path\" must be a path to an existing directory, got \"/no/such/dir/x\"");
}

TEST(DumpConfig, GradProbe) {
  DumpConfig c = cfg(
      R"({"task": "grad_probe", "grad_probe": {"grad_level": "L2", "param_list": ["w"], "bounds": [-0.5, 0, 2]}})");
  EXPECT_EQ(c.grad_probe.grad_level, "L2");
  EXPECT_EQ(c.grad_probe.bounds, (std::vector<double>{-0.5, 0, 2}));
  EXPECT_HAS(
      err(R"({"task": "grad_probe", "grad_probe": {"grad_level": "mix"}})"),
      "grad_level must be one of dict_keys(['L0', 'L1', 'L2']) (\"grad_probe.grad_level\" is \"mix\")");
  EXPECT_HAS(err(R"({"task": "grad_probe", "grad_probe": {"bounds": [1, 0]}})"),
             "bounds list is not ascending (\"grad_probe.bounds\" is [1, 0])");
  EXPECT_HAS(err(R"({"task": "grad_probe", "grad_probe": {"bounds": []}})"),
             "bounds must not be empty (\"grad_probe.bounds\" is [])");
  EXPECT_HAS(err(R"({"task": "grad_probe", "grad_probe": {"bounds": [0, "1"]}})"),
             "bounds element is not int or float (\"grad_probe.bounds[1]\" is \"1\")");
  EXPECT_HAS(err(R"({"task": "grad_probe", "grad_probe": {"bounds": [0, 1e300]}})"),
             "bounds element is out of int64 range");
  EXPECT_HAS(err(R"({"task": "grad_probe", "grad_probe": {"bounds": [NaN]}})"),
             "bounds element is out of int64 range");
  EXPECT_HAS(err(R"({"task": "grad_probe", "grad_probe": {"param_list": [true]}})"),
             "\"grad_probe.param_list[0]\"");
}

TEST(DumpConfig, OverridesWinAndAreValidated) {
  ConfigOverrides ov;
  ov.task = "tensor";
  ov.dump_path = "/tmp/out";
  ov.level = "mix";
  ov.step = parse_json(R"(["0-2", 5])", "x");
  DumpConfig c = cfg(kShipped, Framework::kPyTorch, ov);
  EXPECT_EQ(c.task, "tensor");
  EXPECT_EQ(c.dump_path, "/tmp/out");
  EXPECT_EQ(c.level, "mix");
  EXPECT_EQ(c.step, (std::vector<int64_t>{0, 1, 2, 5}));

  ConfigOverrides bad_level;
  bad_level.level = "L9";
  EXPECT_EQ(err(kShipped, Framework::kPyTorch, bad_level),
            "argument: \"level\" must be one of L0, L1, L2, mix, got \"L9\"");
  ConfigOverrides bad_task;
  bad_task.task = "dump";
  EXPECT_HAS(err(kShipped, Framework::kPyTorch, bad_task), "argument: \"task\" must be one of");
  ConfigOverrides bad_path;
  bad_path.dump_path = "a b";
  EXPECT_HAS(err(kShipped, Framework::kPyTorch, bad_path), "argument: \"dump_path\" may only contain");
  ConfigOverrides bad_step;
  bad_step.step = parse_json("[\"3\"]", "x");
  EXPECT_HAS(err(kShipped, Framework::kPyTorch, bad_step), "argument: \"step[0]\" must be an integer");
  // The file is still validated when an argument overrides the field.
  ConfigOverrides good_level;
  good_level.level = "L1";
  EXPECT_HAS(err(R"({"level": "L7"})", Framework::kPyTorch, good_level), "c.json: \"level\"");
}

class LoadConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msprobe_cfg_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string write(const std::string& name, const std::string& text) {
    std::string p = dir_ + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  std::string file_error(const std::string& path) {
    try {
      load_dump_config(path, Framework::kPyTorch, {});
    } catch (const FileError& e) {
      return e.what();
    }
    return "<no FileError>";
  }
  std::string dir_;
};

TEST_F(LoadConfigTest, LoadsAndPrefixesErrorsWithThePath) {
  std::string p = write("config.json", kShipped);
  EXPECT_EQ(load_dump_config(p, Framework::kPyTorch, {}).task, "statistics");
  std::string bad = write("bad.json", R"({"level": "L3"})");
  try {
    load_dump_config(bad, Framework::kPyTorch, {});
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_EQ(std::string(e.what()), bad + ": \"level\" must be one of L0, L1, L2, mix, got \"L3\"");
  }
}

TEST_F(LoadConfigTest, FileProblems) {
  EXPECT_HAS(file_error(dir_ + "/missing.json"), dir_ + "/missing.json: no such file");
  std::string sub = dir_ + "/sub.json";
  mkdir(sub.c_str(), 0755);
  EXPECT_HAS(file_error(sub), sub + ": is a directory");
  std::string target = write("real.json", "{}");
  std::string link = dir_ + "/link.json";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_HAS(file_error(link), link + ": is a symbolic link");
  std::string txt = write("config.txt", "{}");
  EXPECT_HAS(file_error(txt), txt + ": the config file must have a .json suffix");
  std::string malformed = write("m.json", "{\n  \"task\": \"tensor\",\n}\n");
  EXPECT_HAS(file_error(malformed), malformed + ": line 3 column 1: ");
}

}  // namespace
}  // namespace msprobe
