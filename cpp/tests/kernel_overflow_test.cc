// overflow_check in static graph O2: kernel_graph_overflow_check.json as 1.2.1 writes it, and the
// CPU filter that keeps only the kernels of a MindSpore tensor dump holding inf/NaN.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "msprobe/config/dump_config.h"
#include "msprobe/format/json_value.h"
#include "msprobe/format/npy_writer.h"
#include "msprobe/kernel/kernel_dump_config.h"
#include "msprobe/kernel/kernel_overflow_filter.h"
#include "test_files.h"

namespace msprobe {
namespace {

using test::temp_dir;

void write_npy(const std::string& path, const std::vector<float>& v) {
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kFloat32;
  t.shape = {(int64_t)v.size()};
  std::ofstream f(path, std::ios::binary);
  f << encode_npy(t);
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

DumpConfig ms_config(const std::string& text) {
  return parse_dump_config(parse_json(text, "t"), Framework::kMindSpore, {}, "config.json");
}

TEST(KernelOverflow, ConfigAsOriginal) {
  DumpConfig c = ms_config(R"({"task": "overflow_check", "dump_path": "/d", "level": "L2", "rank": [1],
                               "step": [2], "overflow_check": {"check_mode": "aicore"}})");
  const std::string text = kernel_dump_json(c, KernelDumpKind::kGraphOverflow);
  EXPECT_EQ(
      text,
      "{\n    \"common_dump_settings\": {\n        \"dump_mode\": 0,\n        \"path\": \"/d\",\n"
      "        \"net_name\": \"Net\",\n        \"iteration\": \"all\",\n        \"saved_data\": \"full\",\n"
      "        \"input_output\": 0,\n        \"kernels\": [],\n        \"support_device\": [\n"
      "            1\n        ],\n        \"op_debug_mode\": 1,\n        \"file_format\": \"npy\"\n    }\n}");
  JsonValue atomic = parse_json(kernel_dump_json(ms_config(R"({"task": "overflow_check", "level": "L2",
      "overflow_check": {"check_mode": "atomic"}})"),
                                                 KernelDumpKind::kGraphOverflow, "tensor"),
                                "t");
  const JsonValue* s = atomic.find("common_dump_settings");
  EXPECT_EQ(s->find("op_debug_mode")->as_int(), 2);
  EXPECT_EQ(s->find("saved_data")->as_string(), "tensor");
  EXPECT_EQ(s->find("support_device")->as_array().size(), 8u);
  JsonValue all = parse_json(kernel_dump_json(ms_config(R"({"task": "overflow_check", "level": "L2"})"),
                                              KernelDumpKind::kGraphOverflow),
                             "t");
  EXPECT_EQ(all.find("common_dump_settings")->find("op_debug_mode")->as_int(), 3);
}

TEST(KernelOverflow, KeepsOnlyKernelsWithInfOrNaN) {
  const std::string root = temp_dir("msprobe_kovf");
  const std::string it0 = root + "/rank_0/Net/0/0", it1 = root + "/rank_0/Net/0/1";
  ASSERT_EQ(std::system(("mkdir -p " + it0 + " " + it1 + " " + root + "/rank_0/execution_order").c_str()), 0);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // Log makes NaN from finite inputs, Mul passes it on, Sub and the parameter stay finite.
  const std::string log_in = it0 + "/Log.Default_Log-op0.0.0.100.input.0.DefaultFormat.Float32.npy";
  const std::string log_out = it0 + "/Log.Default_Log-op0.0.0.101.output.0.DefaultFormat.Float32.npy";
  const std::string mul_in = it0 + "/Mul.Default_Mul-op0.0.0.102.input.0.DefaultFormat.Float32.npy";
  const std::string sub_in = it0 + "/Sub.Default_Sub-op0.0.0.98.input.0.DefaultFormat.Float32.npy";
  const std::string sub_out = it0 + "/Sub.Default_Sub-op0.0.0.99.output.0.DefaultFormat.Float32.npy";
  const std::string param = it0 + "/Parameter.x.0.0.97.output.0.DefaultFormat.Float32.npy";
  write_npy(log_in, {-1.f, -2.f});
  write_npy(log_out, {nan, nan});
  write_npy(mul_in, {nan, 1.f});
  write_npy(sub_in, {1.f, 2.f});
  write_npy(sub_out, {-1.f, -2.f});
  write_npy(param, {1.f, 2.f});
  // Iteration 1: an inf output, and a file still being written (truncated).
  const std::string add_out = it1 + "/Add.Default_Add-op0.0.0.200.output.0.DefaultFormat.Float32.npy";
  const std::string cut = it1 + "/Neg.Default_Neg-op0.0.0.201.output.0.DefaultFormat.Float32.npy";
  write_npy(add_out, {inf, 0.f});
  write_npy(cut, {1.f, 2.f, 3.f, 4.f});
  ASSERT_EQ(::truncate(cut.c_str(), 100), 0);

  KernelOverflowResult r = filter_kernel_overflow_dump(root, false);
  EXPECT_EQ(r.removed, 3u);  // Sub's two files and the parameter
  EXPECT_TRUE(r.problems.empty());
  EXPECT_TRUE(exists(log_in) && exists(log_out) && exists(mul_in));
  EXPECT_FALSE(exists(sub_in) || exists(sub_out) || exists(param));
  // The folder with a file in progress is left for a later pass.
  EXPECT_TRUE(exists(add_out) && exists(cut));

  r = filter_kernel_overflow_dump(root, true);  // final pass: the truncated file is a problem, kept
  EXPECT_EQ(r.removed, 0u);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find(cut), std::string::npos);
  EXPECT_TRUE(exists(add_out) && exists(cut) && exists(log_out));
  std::system(("rm -rf " + root).c_str());
}

}  // namespace
}  // namespace msprobe
