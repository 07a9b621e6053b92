// MindSpore level L2: the generated dump configuration, the .npy reader, MD5 and the CPU
// statistics conversion of a MindSpore tensor dump.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/config/dump_config.h"
#include "msprobe/format/json_value.h"
#include "msprobe/format/npy_reader.h"
#include "msprobe/format/npy_writer.h"
#include "msprobe/kernel/kernel_dump_config.h"
#include "msprobe/kernel/kernel_stat_csv.h"
#include "msprobe/stats/md5.h"
#include "test_files.h"

namespace msprobe {
namespace {

using test::read_file;
using test::temp_dir;
using test::write_file;

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

DumpConfig ms_config(const std::string& text) {
  return parse_dump_config(parse_json(text, "t"), Framework::kMindSpore, {}, "config.json");
}

std::string npy_of(const std::vector<float>& v, std::vector<int64_t> shape) {
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kFloat32;
  t.shape = std::move(shape);
  return encode_npy(t);
}

TEST(KernelDumpJson, DefaultsMatchTheOriginal) {
  DumpConfig c = ms_config(R"({"level": "L2", "dump_path": "/abs/dump"})");
  EXPECT_EQ(
      kernel_dump_json(c, KernelDumpKind::kKbyk),
      "{\n    \"common_dump_settings\": {\n        \"dump_mode\": 0,\n        \"path\": \"/abs/dump\",\n"
      "        \"net_name\": \"Net\",\n        \"iteration\": \"all\",\n        \"saved_data\": "
      "\"statistic\",\n"
      "        \"input_output\": 0,\n        \"kernels\": [],\n        \"support_device\": [\n"
      "            0,\n            1,\n            2,\n            3,\n            4,\n            5,\n"
      "            6,\n            7\n        ]\n    },\n    \"e2e_dump_settings\": {\n"
      "        \"enable\": true,\n        \"trans_flag\": true\n    }\n}");
}

TEST(KernelDumpJson, ListStepRankDataModeAndTask) {
  DumpConfig c = ms_config(R"J({"task": "tensor", "level": "L2", "dump_path": "/d", "step": [5, 0, "2-3"],
      "rank": [3], "tensor": {"list": ["Default/Conv-op12", "name-regex(Default/.+)"], "data_mode": ["output"],
      "file_format": "bin"}})J");
  JsonValue j = parse_json(kernel_dump_json(c, KernelDumpKind::kKbyk), "kbyk");
  const JsonValue& s = *j.find("common_dump_settings");
  EXPECT_EQ(s.find("dump_mode")->as_int(), 1);
  EXPECT_EQ(s.find("iteration")->as_string(), "0|2|3|5");
  EXPECT_EQ(s.find("saved_data")->as_string(), "tensor");
  EXPECT_EQ(s.find("input_output")->as_int(), 2);
  EXPECT_EQ(s.find("kernels")->as_array().size(), 2u);
  EXPECT_EQ(s.find("kernels")->as_array()[1].as_string(), "name-regex(Default/.+)");
  EXPECT_EQ(s.find("support_device")->as_array().size(), 1u);
  EXPECT_EQ(s.find("file_format"), nullptr);
  // O2: op_debug_mode and file_format, no e2e settings.
  JsonValue g = parse_json(kernel_dump_json(c, KernelDumpKind::kGraph), "graph");
  EXPECT_EQ(g.find("e2e_dump_settings"), nullptr);
  EXPECT_EQ(g.find("common_dump_settings")->find("op_debug_mode")->as_int(), 0);
  EXPECT_EQ(g.find("common_dump_settings")->find("file_format")->as_string(), "bin");
  // The staged CPU statistics variant only changes saved_data.
  JsonValue t = parse_json(kernel_dump_json(c, KernelDumpKind::kKbyk, "tensor"), "t");
  EXPECT_EQ(t.find("common_dump_settings")->find("saved_data")->as_string(), "tensor");
}

TEST(KernelDumpJson, WriteIsAtomicAndReadable) {
  std::string dir = temp_dir("msprobe_kernel");
  write_file_atomically(dir + "/a.json", "{}");
  EXPECT_EQ(read_file(dir + "/a.json"), "{}");
  struct stat st;
  ASSERT_EQ(::stat((dir + "/a.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(Md5, KnownVectors) {
  auto md5 = [](const std::string& s) {
    Md5 m;
    m.update(s.data(), s.size());
    return m.hex_digest();
  };
  EXPECT_EQ(md5(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(md5("The quick brown fox jumps over the lazy dog"), "9e107d9d372bb6826bd81d3542a419d6");
  EXPECT_EQ(md5(std::string(1000, 'a')), "cabe45dcc9ae5b66ba86600cca6b8ba8");
  // Fed in pieces that straddle block boundaries.
  Md5 m;
  std::string s(1000, 'a');
  for (size_t i = 0; i < s.size(); i += 37) m.update(s.data() + i, std::min<size_t>(37, s.size() - i));
  EXPECT_EQ(m.hex_digest(), "cabe45dcc9ae5b66ba86600cca6b8ba8");
}

TEST(NpyReader, RoundTripAndErrors) {
  std::string dir = temp_dir("msprobe_kernel");
  std::string data = npy_of({1, 2, 3, 4, 5, 6}, {2, 3});
  write_file(dir + "/ok.npy", data);
  NpyFile ok(dir + "/ok.npy");
  ASSERT_EQ(ok.status(), NpyFile::Status::kOk) << ok.error();
  EXPECT_EQ(ok.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(static_cast<const float*>(ok.view().data)[5], 6.0f);

  write_file(dir + "/short.npy", data.substr(0, data.size() - 3));
  NpyFile shrt(dir + "/short.npy");
  EXPECT_EQ(shrt.status(), NpyFile::Status::kTruncated);
  EXPECT_NE(shrt.error().find("truncated"), std::string::npos);

  write_file(dir + "/half_header.npy", data.substr(0, 30));
  EXPECT_EQ(NpyFile(dir + "/half_header.npy").status(), NpyFile::Status::kTruncated);

  write_file(dir + "/junk.npy", "this is not numpy at all");
  EXPECT_EQ(NpyFile(dir + "/junk.npy").status(), NpyFile::Status::kMalformed);

  std::string obj = data;
  obj.replace(obj.find("<f4"), 3, "|O8");
  write_file(dir + "/obj.npy", obj);
  EXPECT_EQ(NpyFile(dir + "/obj.npy").status(), NpyFile::Status::kUnsupportedDtype);

  EXPECT_EQ(NpyFile(dir + "/missing.npy").status(), NpyFile::Status::kMalformed);

  // Format 2.0 header (u32 length), Fortran order and a 0-d array.
  std::string dict = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }";
  std::string header = dict + std::string(64 - (12 + dict.size() + 1) % 64, ' ') + "\n";
  std::string v2 = std::string("\x93NUMPY\x02\x00", 8);
  uint32_t len = (uint32_t)header.size();
  v2 += std::string(reinterpret_cast<const char*>(&len), 4) + header;
  float fdata[4] = {1, 3, 2, 4};  // column-major [[1, 2], [3, 4]]
  v2 += std::string(reinterpret_cast<const char*>(fdata), sizeof fdata);
  write_file(dir + "/v2.npy", v2);
  NpyFile f2(dir + "/v2.npy");
  ASSERT_EQ(f2.status(), NpyFile::Status::kOk) << f2.error();
  float out[4];
  f2.view().copy_contiguous(out);
  EXPECT_EQ(out[1], 2.0f);
  EXPECT_EQ(out[2], 3.0f);

  write_file(dir + "/scalar.npy", npy_of({7}, {}));
  NpyFile sc(dir + "/scalar.npy");
  ASSERT_EQ(sc.status(), NpyFile::Status::kOk) << sc.error();
  EXPECT_TRUE(sc.shape().empty());
  EXPECT_EQ(sc.numel(), 1);
}

TEST(KernelStatCsv, CategoriesAndHeader) {
  EXPECT_EQ(kernel_statistic_categories(ms_config(R"({"level": "L2"})")),
            (std::vector<std::string>{"max", "min", "avg", "l2norm"}));
  EXPECT_EQ(
      kernel_statistic_categories(ms_config(R"({"level": "L2", "statistics": {"summary_mode": "md5"}})")),
      (std::vector<std::string>{"max", "min", "avg", "l2norm", "md5"}));
  EXPECT_EQ(kernel_statistic_categories(
                ms_config(R"({"level": "L2", "statistics": {"summary_mode": ["l2norm", "mean"]}})")),
            (std::vector<std::string>{"l2norm", "avg"}));
  EXPECT_EQ(kernel_statistic_header({"max", "md5"}),
            "Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,MD5");
  EXPECT_THROW(kernel_statistic_header({"count"}), InvalidInput);
}

TEST(KernelStatCsv, ConvertsAnIterationFolder) {
  const std::string root = temp_dir("msprobe_kernel");
  const std::string dir = root + "/rank_0/Net/0/0";
  ASSERT_EQ(std::system(("mkdir -p " + dir + " " + root + "/rank_0/execution_order").c_str()), 0);
  write_file(dir + "/ReLU.Default_ReLU-op0.0.0.200.output.0.DefaultFormat.Float32.npy",
             npy_of({-1, 0, 3}, {3}));
  write_file(dir + "/MatMul.Default_d-Dense_MatMul-op0.0.0.100.input.0.DefaultFormat.Float32.npy",
             npy_of({1, 2, 3, 4}, {2, 2}));
  // A long name MindSpore replaced, listed in mapping.csv.
  const std::string long_name =
      "Sin.Default_" + std::string(300, 'a') + "_Sin-op0.0.0.150.input.0.DefaultFormat.Float32.npy";
  write_file(dir + "/1680113591.npy", npy_of({0.5f}, {1}));
  write_file(dir + "/mapping.csv", "1680113591.npy," + long_name + "\n");
  // Still being written: left alone until the final pass.
  std::string partial = npy_of({1, 2, 3, 4}, {4});
  write_file(dir + "/Add.Default_Add-op0.0.0.300.output.0.DefaultFormat.Float32.npy",
             partial.substr(0, partial.size() - 4));
  write_file(dir + "/notes.npy", npy_of({1}, {1}));

  KernelStatOptions opts;
  opts.categories = {"max", "min", "avg", "l2norm", "md5"};
  KernelStatResult r = convert_kernel_tensor_dump(root, opts);
  EXPECT_EQ(r.converted, 3u);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("notes.npy: not named like a MindSpore dump file"), std::string::npos);
  const std::string csv = read_file(dir + "/statistic.csv");
  std::istringstream lines(csv);
  std::string header, row1, row2, row3;
  std::getline(lines, header);
  std::getline(lines, row1);
  std::getline(lines, row2);
  std::getline(lines, row3);
  EXPECT_EQ(header, kernel_statistic_header(opts.categories));
  EXPECT_EQ(row1.rfind("MatMul,Default_d-Dense_MatMul-op0,0,0,100,input,0,16,float32,\"(2,2)\",4,1,2.5,", 0),
            0u)
      << row1;
  EXPECT_EQ(row2.rfind("Sin,Default_" + std::string(300, 'a') +
                           "_Sin-op0,0,0,150,input,0,4,float32,\"(1)\",0.5,0.5,0.5,0.5,",
                       0),
            0u);
  EXPECT_EQ(row3.rfind("ReLU,Default_ReLU-op0,0,0,200,output,0,12,float32,\"(3)\",3,-1,", 0), 0u) << row3;
  EXPECT_EQ(row1.back(), ',');
  EXPECT_FALSE(exists(dir + "/1680113591.npy"));
  EXPECT_FALSE(exists(dir + "/ReLU.Default_ReLU-op0.0.0.200.output.0.DefaultFormat.Float32.npy"));
  EXPECT_TRUE(exists(dir + "/Add.Default_Add-op0.0.0.300.output.0.DefaultFormat.Float32.npy"));
  EXPECT_TRUE(exists(dir + "/notes.npy"));

  // The final pass reports the truncated file and keeps it; earlier rows stay.
  opts.final_pass = true;
  KernelStatResult f = convert_kernel_tensor_dump(root, opts);
  EXPECT_EQ(f.converted, 0u);
  bool reported = false;
  for (const auto& p : f.problems)
    reported |= p.find("Add-op0") != std::string::npos && p.find("truncated") != std::string::npos;
  EXPECT_TRUE(reported);
  EXPECT_EQ(read_file(dir + "/statistic.csv"), csv);
  EXPECT_TRUE(exists(dir + "/Add.Default_Add-op0.0.0.300.output.0.DefaultFormat.Float32.npy"));

  // Once complete, the next pass appends its row under the same header.
  write_file(dir + "/Add.Default_Add-op0.0.0.300.output.0.DefaultFormat.Float32.npy", partial);
  EXPECT_EQ(convert_kernel_tensor_dump(root, opts).converted, 1u);
  const std::string after = read_file(dir + "/statistic.csv");
  EXPECT_EQ(after.rfind(csv, 0), 0u);
  EXPECT_NE(after.find("\nAdd,Default_Add-op0,0,0,300,output,0,16,float32,\"(4)\",4,1,2.5,"),
            std::string::npos);
}

TEST(KernelStatCsv, MissingDumpPathIsEmpty) {
  KernelStatResult r = convert_kernel_tensor_dump("/nonexistent/msprobe/dir", {});
  EXPECT_EQ(r.converted, 0u);
  EXPECT_TRUE(r.problems.empty());
}

}  // namespace
}  // namespace msprobe
