// Tests of the training monitor's core: the one-pass statistics, the csv numbers as pandas writes
// them, the config checks, the alert rule and the anomaly files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/base/path.h"
#include "msprobe/format/json_value.h"
#include "msprobe/monitor/anomaly_file.h"
#include "msprobe/monitor/monitor_config.h"
#include "msprobe/monitor/monitor_stats.h"
#include "msprobe/monitor/monitor_writer.h"
#include "tensor_views.h"

using namespace msprobe;
using namespace msprobe::monitor;
using msprobe::test::kNaN;
using msprobe::test::view_of;

namespace {

std::string temp_dir(const std::string& name) {
  std::string d = ::testing::TempDir() + "msprobe_monitor_" + name + "_" + std::to_string(::getpid());
  std::remove(d.c_str());
  return d;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(MonitorStats, AsTorchComputesThem) {
  std::vector<float> x{1.0f, 0.0f, -3.0f, 2.0f, 1e-9f, 0.5f};
  MonitorStats s = monitor_stats(view_of(x, DType::kFloat32), 1e-8);
  EXPECT_EQ(s.max, 2.0);
  EXPECT_EQ(s.min, -3.0);
  EXPECT_DOUBLE_EQ(s.norm, std::sqrt(1 + 9 + 4 + 0.25 + (double)1e-9f * (double)1e-9f));
  EXPECT_DOUBLE_EQ(s.mean, (1 + 0 - 3 + 2 + (double)1e-9f + 0.5) / 6);
  EXPECT_EQ(s.zeros, (double)(2.0f / 6.0f));  // |x| < eps, as a float32 share
  EXPECT_EQ(s.nans, 0);
  // A NaN makes min and max NaN (torch.min/max), and is counted.
  std::vector<double> n{1.0, kNaN, 3.0};
  s = monitor_stats(view_of(n, DType::kFloat64), 1e-8);
  EXPECT_TRUE(std::isnan(s.max) && std::isnan(s.min) && std::isnan(s.mean));
  EXPECT_EQ(s.nans, 1);
  // Without the counts (ops without zeros and nans) a NaN still makes min and max NaN; an inf
  // alone does not.
  s = monitor_stats(view_of(n, DType::kFloat64), 1e-8, /*counts=*/false);
  EXPECT_TRUE(std::isnan(s.max) && std::isnan(s.min));
  std::vector<float> inf{1.0f, INFINITY, -INFINITY};
  s = monitor_stats(view_of(inf, DType::kFloat32), 1e-8, /*counts=*/false);
  EXPECT_EQ(s.max, INFINITY);
  EXPECT_EQ(s.min, -INFINITY);
  EXPECT_TRUE(std::isnan(s.mean));
  // Strided view: every other element.
  std::vector<float> w{1, 100, 2, 100, 3, 100};
  s = monitor_stats(view_of(w, DType::kFloat32, {3}, {2}), 1e-8);
  EXPECT_EQ(s.max, 3.0);
  EXPECT_DOUBLE_EQ(s.mean, 2.0);
  // Empty: NaN but the count.
  std::vector<float> e;
  s = monitor_stats(view_of(e, DType::kFloat32, {0}), 1e-8);
  EXPECT_TRUE(std::isnan(s.norm) && std::isnan(s.zeros));
  EXPECT_EQ(s.nans, 0);
}

// Float tensors sum in float over short runs; the sums stay within a few float ulps of exact
// double sums, and squares that would overflow or underflow in float are summed in double.
TEST(MonitorStats, FloatRunsKeepDoubleAccuracy) {
  std::vector<float> x(10007);
  double q = 0, sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = (float)std::sin(0.37 * (double)i) * 1e-3f;
    q += (double)x[i] * (double)x[i];
    sum += (double)x[i];
  }
  MonitorStats s = monitor_stats(view_of(x, DType::kFloat32), 1e-8, /*counts=*/false);
  EXPECT_NEAR(s.norm, std::sqrt(q), 4e-7 * std::sqrt(q));
  EXPECT_NEAR(s.mean, sum / (double)x.size(), 1e-6 * 1e-3);
  for (float big : {3e19f, 1e38f}) {  // squares beyond float's range
    std::vector<float> b(4096, big);
    s = monitor_stats(view_of(b, DType::kFloat32), 1e-8);
    EXPECT_DOUBLE_EQ(s.norm, (double)big * 64.0) << big;
    EXPECT_DOUBLE_EQ(s.mean, (double)big) << big;
  }
  std::vector<float> tiny(4096, 1e-23f);  // squares below float's normal range (vanishing grads)
  s = monitor_stats(view_of(tiny, DType::kFloat32), 1e-30);
  EXPECT_DOUBLE_EQ(s.norm, (double)1e-23f * 64.0);
  std::vector<float> zero(4096, 0.0f);
  s = monitor_stats(view_of(zero, DType::kFloat32), 1e-8);
  EXPECT_EQ(s.norm, 0.0);
  EXPECT_EQ(s.zeros, 1.0);
}

// A call with enough elements is read in pieces by several threads: each tensor's statistics are
// still its own (as read alone, and against a double reference), and the same on every run.
TEST(MonitorStats, ManyTensorsInPiecesAsEachAlone) {
  std::vector<float> big((size_t)3 << 19);  // 1.5 M: pieces across threads
  double q = 0, sum = 0;
  for (size_t i = 0; i < big.size(); ++i) {
    big[i] = (float)std::sin(0.001 * (double)i) + (i == 777777 ? 5.0f : 0.0f);
    q += (double)big[i] * (double)big[i];
    sum += (double)big[i];
  }
  std::vector<double> wide{1.0, -2.0, 0.0, 4.0};
  std::vector<float> strided{1.0f, 9.0f, -3.0f, 9.0f, 2.0f, 9.0f};
  std::vector<float> none;
  const TensorView vb = view_of(big, DType::kFloat32), vw = view_of(wide, DType::kFloat64),
                   vs = view_of(strided, DType::kFloat32, {3}, {2}), ve = view_of(none, DType::kFloat32, {0});
  const std::vector<const TensorView*> views{&vw, &vb, nullptr, &vs, &ve};
  const std::vector<MonitorStats> many = monitor_stats_many(views, 1e-8);
  ASSERT_EQ(many.size(), 5u);
  EXPECT_EQ(many[1].max, 5.0f + (float)std::sin(0.001 * 777777));
  EXPECT_NEAR(many[1].norm, std::sqrt(q), 4e-7 * std::sqrt(q));
  EXPECT_NEAR(many[1].mean, sum / (double)big.size(), 1e-6);
  EXPECT_EQ(many[0].max, 4.0);
  EXPECT_EQ(many[0].zeros, 0.25);
  EXPECT_EQ(many[3].max, 2.0);   // the 9s are outside the view
  EXPECT_EQ(many[2].norm, 0.0);  // nullptr: left 0
  EXPECT_TRUE(std::isnan(many[4].norm));
  for (size_t i : {0, 1, 3}) {
    const MonitorStats alone = monitor_stats(*views[i], 1e-8);
    EXPECT_EQ(alone.norm, many[i].norm) << i;
    EXPECT_EQ(alone.mean, many[i].mean) << i;
    EXPECT_EQ(alone.min, many[i].min) << i;
  }
  for (int run = 0; run < 20; ++run) {
    const MonitorStats again = monitor_stats(vb, 1e-8);
    ASSERT_EQ(again.norm, many[1].norm) << "run " << run;
    ASSERT_EQ(again.mean, many[1].mean) << "run " << run;
  }
}

TEST(MonitorCsv, NumbersAsPandasWritesThem) {
  EXPECT_EQ(monitor_csv_number(1.0 / 30, 6), "0.033333");
  EXPECT_EQ(monitor_csv_number(-0.8203125, 6), "-0.820312");  // half to even after scaling
  EXPECT_EQ(monitor_csv_number(0.0, 6), "0.0");
  EXPECT_EQ(monitor_csv_number(kNaN, 6), "nan");
  EXPECT_EQ(monitor_csv_number(INFINITY, 3), "inf");
  EXPECT_EQ(monitor_csv_number(1.710408791884978e+29, 3), "1.710408791884978e+29");
}

TEST(MonitorConfig, DefaultsAndErrors) {
  MonitorConfig c = parse_monitor_config(parse_json("{}", "t"), "c.json");
  EXPECT_EQ(c.ops, (std::vector<std::string>{"norm"}));
  EXPECT_EQ(c.format, "tensorboard");
  EXPECT_EQ(c.ndigits, 6);
  EXPECT_EQ(c.collect_times, 100000000);
  ASSERT_EQ(c.targets.size(), 1u);  // no targets: every parameter ("")
  EXPECT_FALSE(c.all_xy);
  c = parse_monitor_config(parse_json(R"({"xy_distribution": true, "ops": ["max", "p99"]})", "t"), "c.json");
  EXPECT_TRUE(c.all_xy);
  EXPECT_EQ(c.ops, (std::vector<std::string>{"max"}));
  EXPECT_EQ(c.warnings.size(), 1u);
  auto error_of = [](const char* text) {
    try {
      parse_monitor_config(parse_json(text, "t"), "c.json");
    } catch (const InvalidInput& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of(R"({"colour": 1})"), "monitor config c.json: \"colour\" is not a monitor config field");
  EXPECT_EQ(error_of(R"({"ndigits": -1})"), "monitor config c.json: \"ndigits\" must be at least 0, got -1");
  EXPECT_NE(error_of(R"({"targets": {"fc": {"input": 1}}})").find("targets.fc.input"), std::string::npos);
  EXPECT_NE(error_of(R"({"cc_distribution": {"on": true}})").find("cc_distribution.on"), std::string::npos);
  EXPECT_EQ(error_of(R"({"cc_distribution": {"cc_codeline": ["a", 1]}})"),
            "monitor config c.json: \"cc_distribution.cc_codeline[]\" must be a string, got an integer");
  c = parse_monitor_config(
      parse_json(
          R"({"cc_distribution": {"enable": true, "cc_codeline": ["train\\.py"], "cc_pre_hook": true}})",
          "t"),
      "c.json");
  EXPECT_TRUE(c.cc_enable && c.cc_pre_hook && !c.cc_log_only);
  EXPECT_EQ(c.cc_codeline, (std::vector<std::string>{"train\\.py"}));
}

TEST(MonitorWriter, RowsAlertsAndAnomalyFiles) {
  const std::string dir = temp_dir("writer");
  MonitorWriterOptions o;
  o.dir = join_path(dir, "rank0");
  o.ops = {"max", "mean"};
  o.rules = {AlertRule{"AnomalyTurbulence", 0.5}};
  MonitorWriter w(o);
  std::vector<float> a{1, 2}, b{4, 4};
  const TensorView va = view_of(a, DType::kFloat32), vb = view_of(b, DType::kFloat32);
  w.add("actv", {"0:fc_0/rank0/input", "0:fc_0/rank0/output"}, {&va, nullptr});
  w.add("actv", {"0:fc_0/rank0/output"}, {&vb});  // the same tag again: its values replaced
  MonitorFlush f = w.flush("actv", 0);
  EXPECT_TRUE(f.alerts.empty());
  EXPECT_EQ(read_all(f.csv_path),
            "vpp_stage,module_name,step,input.max,input.mean,output.max,output.mean\n"
            "0,fc_0,0,2.0,1.5,4.0,4.0\n");
  w.end_step();
  std::vector<float> big{10, 10};
  const TensorView vbig = view_of(big, DType::kFloat32);
  w.add("actv", {"0:fc_0/rank0/input", "0:fc_0/rank0/output"}, {&va, &vbig});
  f = w.flush("actv", 1);
  ASSERT_EQ(f.alerts.size(), 2u);  // output max and mean: 10 > 4 * 1.5
  EXPECT_EQ(f.alerts[0].op, "max");
  EXPECT_EQ(f.alerts[0].call_id, 1);
  EXPECT_EQ(f.alerts[0].message,
            "Rule AnomalyTurbulence reports anomaly signal in ('0:fc_0/rank0/output', 'max') at step 1.");
  EXPECT_EQ(
      f.alerts[0].line,
      "monitor alert: rank 0, step 1, 0:fc_0, output max 10.0: outside the running mean 4.0 by more than "
      "0.5 of it (AnomalyTurbulence)");
  AnomalyFile file(join_path(dir, "anomaly_detected"), 0, 0, {0});
  file.write(f.alerts);
  const JsonValue doc = parse_json_file(file.path());
  ASSERT_EQ(doc.as_object().size(), 1u);  // one entry per tag, step and call
  EXPECT_EQ(doc.as_object()[0].first, "0:fc_0/rank0/output_step_1_call_1");
  std::vector<AnomalyEntry> top =
      earliest_anomalies(read_anomalies(join_path(dir, "anomaly_detected")), 5, {});
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].vpp_stage, 0);
  EXPECT_TRUE(earliest_anomalies(top, 5, {7}).empty());
  EXPECT_THROW(earliest_anomalies(top, 0, {}), InvalidInput);
}

TEST(MonitorWriter, RowsOfAGroupStayTogether) {
  MonitorWriterOptions o;
  o.dir = join_path(temp_dir("group"), "rank0");
  o.ops = {"max"};
  MonitorWriter w(o);
  std::vector<float> a{1}, b{2};
  const TensorView va = view_of(a, DType::kFloat32), vb = view_of(b, DType::kFloat32);
  // Two micro-batches through fc1 then fc2: 1.2.1 writes fc1's rows, then fc2's.
  w.add("actv", {"0:fc1_0/rank0/output"}, {&va}, "0:fc1");
  w.add("actv", {"0:fc2_0/rank0/output"}, {&vb}, "0:fc2");
  w.add("actv", {"0:fc1_1/rank0/output"}, {&vb}, "0:fc1");
  w.add("actv", {"0:fc2_1/rank0/output"}, {&va}, "0:fc2");
  EXPECT_EQ(w.pending("actv").tags,
            (std::vector<std::string>{"0:fc1_0/rank0/output", "0:fc1_1/rank0/output", "0:fc2_0/rank0/output",
                                      "0:fc2_1/rank0/output"}));
  const MonitorFlush f = w.flush("actv", 0);
  EXPECT_EQ(f.values, (std::vector<std::vector<double>>{{1}, {2}, {2}, {1}}));
  w.add("actv_grad", {"0:fc2_0/rank0/output_grad"}, {&va});  // no group: call order
  w.add("actv_grad", {"0:fc1_0/rank0/output_grad"}, {&va});
  EXPECT_EQ(w.flush("actv_grad", 0).tags,
            (std::vector<std::string>{"0:fc2_0/rank0/output_grad", "0:fc1_0/rank0/output_grad"}));
}

// begin_flush_step takes the step's rows and writes them on another thread; flush_step waits and
// returns them with the rows added since, in prefix order, the files complete on return.
TEST(MonitorWriter, BackgroundFlushOfAStep) {
  MonitorWriterOptions o;
  o.dir = join_path(temp_dir("background"), "rank0");
  o.ops = {"max"};
  o.rules = {AlertRule{"AnomalyTurbulence", 0.5}};
  MonitorWriter w(o);
  std::vector<float> a{1}, b{8};
  const TensorView va = view_of(a, DType::kFloat32), vb = view_of(b, DType::kFloat32);
  for (int64_t step = 0; step < 3; ++step) {
    const TensorView& grad = step == 2 ? vb : va;  // step 2 leaves the running mean
    w.add("grad_reduced", {"0:fc.weight/rank0/post_grad"}, {&grad});
    w.add("param", {"0:fc.weight"}, {&va});
    w.begin_flush_step({"grad_reduced", "param", "other"}, step);
    w.add("other", {"0:fc.weight/rank0/mg_direction"}, {&vb});  // after begin: flushed at the end
    const std::vector<MonitorFlush> fs = w.flush_step({"grad_reduced", "param", "other"}, step);
    ASSERT_EQ(fs.size(), 3u);
    EXPECT_EQ(fs[0].prefix, "grad_reduced");
    EXPECT_EQ(fs[1].prefix, "param");
    EXPECT_EQ(fs[2].prefix, "other");
    EXPECT_EQ(fs[0].alerts.size(), step == 2 ? 1u : 0u) << step;
    EXPECT_EQ(read_all(fs[0].csv_path).substr(0, 26), "vpp_stage,param_name,step,");
    EXPECT_NE(read_all(fs[0].csv_path)
                  .find("fc.weight," + std::to_string(step) + "," + (step == 2 ? "8.0" : "1.0")),
              std::string::npos);
  }
  // Nothing begun: flush_step alone flushes.
  w.add("param", {"0:fc.weight"}, {&vb});
  EXPECT_EQ(w.flush_step({"param"}, 3).size(), 1u);
  EXPECT_TRUE(w.flush_step({"param"}, 4).empty());
}

TEST(MonitorWriter, BackgroundFlushErrorComesBack) {
  const std::string dir = temp_dir("background_error");
  MonitorWriterOptions o;
  o.dir = join_path(dir, "rank0");
  {
    std::ofstream blocker(dir);  // a file where the folder should be made
  }
  MonitorWriter w(o);
  std::vector<float> a{1};
  const TensorView va = view_of(a, DType::kFloat32);
  w.add("param", {"0:fc.weight"}, {&va});
  w.begin_flush_step({"param"}, 0);
  EXPECT_THROW(w.flush_step({"param"}, 0), Error);
  std::remove(dir.c_str());
}

}  // namespace
