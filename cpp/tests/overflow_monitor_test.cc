// overflow_check bookkeeping: the overflow test, culprit classification, API grouping, the limit,
// overflow_summary.json and the first-overflow message.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "msprobe/dump/overflow_monitor.h"
#include "msprobe/format/json_value.h"

namespace msprobe {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

TensorStats stats(StatValue max, StatValue min) {
  TensorStats s;
  s.max = max;
  s.min = min;
  return s;
}

OverflowEvent event(const std::string& entry, OverflowKind kind, double time = 1.0) {
  OverflowEvent e;
  e.entry = entry;
  e.kind = kind;
  e.time = time;
  return e;
}

TEST(OverflowMonitor, TensorOverflowsWhenMaxOrMinIsInfOrNaN) {
  EXPECT_FALSE(stats_overflow(stats(StatValue::floating(65504.0), StatValue::floating(-65504.0))));
  EXPECT_TRUE(stats_overflow(stats(StatValue::floating(kInf), StatValue::floating(0.0))));
  EXPECT_TRUE(stats_overflow(stats(StatValue::floating(1.0), StatValue::floating(-kInf))));
  EXPECT_TRUE(stats_overflow(stats(StatValue::floating(kNaN), StatValue::floating(kNaN))));
  // Bool, integer and null statistics never overflow.
  EXPECT_FALSE(stats_overflow(stats(StatValue::boolean(true), StatValue::boolean(false))));
  EXPECT_FALSE(stats_overflow(stats(StatValue::integer(3), StatValue::integer(-3))));
  EXPECT_FALSE(stats_overflow(TensorStats{}));
}

TEST(OverflowMonitor, CulpritProducedFromFiniteInputs) {
  EXPECT_EQ(classify_overflow(false, true), OverflowKind::kCulprit);
  EXPECT_EQ(classify_overflow(true, true), OverflowKind::kPassedOn);
  EXPECT_EQ(classify_overflow(true, false), OverflowKind::kPassedOn);
  EXPECT_STREQ(overflow_kind_name(OverflowKind::kCulprit), "culprit");
  EXPECT_STREQ(overflow_kind_name(OverflowKind::kPassedOn), "passed_on");
}

TEST(OverflowMonitor, ApiOfEntry) {
  auto check = [](const std::string& entry, const std::string& api, const std::string& dir) {
    ApiOfEntry a = api_of_entry(entry);
    EXPECT_EQ(a.api, api) << entry;
    EXPECT_EQ(a.direction, dir) << entry;
  };
  check("Torch.matmul.0.forward", "Torch.matmul", "forward");
  check("Tensor.__truediv__.12.backward", "Tensor.__truediv__", "backward");
  check("Torch.linalg.norm.3.forward", "Torch.linalg.norm", "forward");
  check("Aten.add.Tensor.0.forward", "Aten.add.Tensor", "forward");
  check("Module.layer1.0.conv1.Conv2d.forward.0", "Module.layer1.0.conv1.Conv2d", "forward");
  check("Cell.fc.Dense.backward.2", "Cell.fc.Dense", "backward");
  check("Module.fc.Linear.parameters_grad", "Module.fc.Linear", "parameters_grad");
  check("Jit.forward.1.forward", "Jit.forward", "forward");
  check("odd", "odd", "");
}

TEST(OverflowMonitor, LimitCountsTheWholeRun) {
  OverflowMonitor m(2);
  EXPECT_FALSE(m.limit_reached());
  EXPECT_TRUE(m.record(event("Torch.log.0.forward", OverflowKind::kCulprit)));
  m.begin_step();  // a new step keeps the run's count, as 1.2.1's real_overflow_nums
  EXPECT_FALSE(m.limit_reached());
  EXPECT_FALSE(m.record(event("Torch.log.0.forward", OverflowKind::kCulprit)));
  EXPECT_TRUE(m.limit_reached());
  EXPECT_EQ(m.total(), 2);
  EXPECT_EQ(m.step_count(), 1);

  OverflowMonitor unlimited(-1);
  for (int i = 0; i < 100; ++i) unlimited.record(event("Tensor.sum.0.forward", OverflowKind::kPassedOn));
  EXPECT_FALSE(unlimited.limit_reached());
}

TEST(OverflowMonitor, SummaryRanksCulpritsFirst) {
  OverflowMonitor m(-1);
  // Order found: passed-on, culprit, passed-on again, another culprit, a backward culprit.
  m.record(event("Tensor.sum.0.forward", OverflowKind::kPassedOn, 10.0));
  OverflowEvent mm = event("Torch.matmul.0.forward", OverflowKind::kCulprit, 11.0);
  mm.file = "/home/user/model.py";
  mm.line = 15;
  mm.function = "forward";
  mm.text = "y = torch.matmul(a, b)";
  m.record(mm);
  m.record(event("Tensor.sum.1.forward", OverflowKind::kPassedOn, 12.0));
  m.record(event("Torch.log.0.forward", OverflowKind::kCulprit, 13.0));
  m.record(event("Tensor.__truediv__.0.backward", OverflowKind::kCulprit, 14.0));
  EXPECT_EQ(m.step_culprits(), 3);

  JsonValue doc = parse_json(m.step_summary_json("pytorch", "L1", 3, -1), "summary");
  EXPECT_EQ(doc.find("task")->as_string(), "overflow_check");
  EXPECT_EQ(doc.find("step")->as_int(), 3);
  EXPECT_TRUE(doc.find("rank")->is_null());
  EXPECT_EQ(doc.find("overflow_nums")->as_int(), -1);
  EXPECT_EQ(doc.find("overflows_in_step")->as_int(), 5);
  EXPECT_EQ(doc.find("culprits_in_step")->as_int(), 3);
  EXPECT_FALSE(doc.find("limit_reached")->as_bool());
  EXPECT_EQ(doc.find("first")->find("entry")->as_string(), "Tensor.sum.0.forward");
  EXPECT_EQ(doc.find("first")->find("kind")->as_string(), "passed_on");
  const JsonValue* fc = doc.find("first_culprit");
  EXPECT_EQ(fc->find("entry")->as_string(), "Torch.matmul.0.forward");
  EXPECT_EQ(fc->find("order")->as_int(), 1);
  EXPECT_EQ(fc->find("time")->as_double(), 11.0);
  EXPECT_EQ(fc->find("source")->find("file")->as_string(), "/home/user/model.py");
  EXPECT_EQ(fc->find("source")->find("line")->as_int(), 15);
  EXPECT_EQ(fc->find("source")->find("text")->as_string(), "y = torch.matmul(a, b)");

  const auto& apis = doc.find("apis")->as_array();
  ASSERT_EQ(apis.size(), 4u);
  const char* order[][3] = {{"Torch.matmul", "forward", "culprit"},
                            {"Torch.log", "forward", "culprit"},
                            {"Tensor.__truediv__", "backward", "culprit"},
                            {"Tensor.sum", "forward", "passed_on"}};
  for (size_t i = 0; i < apis.size(); ++i) {
    EXPECT_EQ(apis[i].find("api")->as_string(), order[i][0]);
    EXPECT_EQ(apis[i].find("direction")->as_string(), order[i][1]);
    EXPECT_EQ(apis[i].find("kind")->as_string(), order[i][2]);
  }
  EXPECT_EQ(apis[3].find("count")->as_int(), 2);
  EXPECT_EQ(apis[3].find("passed_on_count")->as_int(), 2);
  EXPECT_EQ(apis[3].find("first_entry")->as_string(), "Tensor.sum.0.forward");
  EXPECT_TRUE(apis[3].find("source")->is_null());
  EXPECT_EQ(doc.find("entries")->as_array().size(), 5u);
  EXPECT_EQ(doc.find("entries")->as_array()[4].find("entry")->as_string(), "Tensor.__truediv__.0.backward");

  m.begin_step();
  JsonValue empty = parse_json(m.step_summary_json("mindspore", "L0", 4, 1), "summary");
  EXPECT_EQ(empty.find("rank")->as_int(), 1);
  EXPECT_EQ(empty.find("overflows_in_step")->as_int(), 0);
  EXPECT_EQ(empty.find("overflows_in_run")->as_int(), 5);
  EXPECT_TRUE(empty.find("first")->is_null());
  EXPECT_TRUE(empty.find("apis")->as_array().empty());
}

TEST(OverflowMonitor, FirstOverflowMessageNamesApiStepRankAndSource) {
  OverflowEvent e = event("Torch.matmul.0.forward", OverflowKind::kCulprit);
  e.file = "/home/user/model.py";
  e.line = 15;
  e.function = "forward";
  e.text = "y = torch.matmul(a, b)";
  EXPECT_EQ(first_overflow_message(e, 3, 1),
            "overflow_check: first inf/NaN at Torch.matmul.0.forward (step 3, rank 1): it produced inf/NaN "
            "from finite inputs; called at /home/user/model.py:15 in forward: y = torch.matmul(a, b)");
  OverflowEvent p = event("Tensor.sum.0.forward", OverflowKind::kPassedOn);
  EXPECT_EQ(first_overflow_message(p, 0, -1),
            "overflow_check: first inf/NaN at Tensor.sum.0.forward (step 0, not distributed): it received "
            "inf/NaN (an input already held one: its producer was not recorded)");
}

}  // namespace
}  // namespace msprobe
