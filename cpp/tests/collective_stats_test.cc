// Tests of cc_distribution's aggregation (CollectiveStats): a step's calls of a collective summed
// up as 1.2.1 does it, list arguments taken as one tensor, 1.2.1's order of the rows, and the rows
// the writer pads with NaN as pandas does.
#include "msprobe/monitor/collective_stats.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "msprobe/base/path.h"
#include "msprobe/monitor/monitor_writer.h"
#include "tensor_views.h"

using namespace msprobe;
using namespace msprobe::monitor;
using msprobe::test::kNaN;
using msprobe::test::view_of;

namespace {

std::vector<double> row(const CollectiveRows& r, const std::string& tag) {
  for (size_t i = 0; i < r.tags.size(); ++i) {
    if (r.tags[i] == tag) return r.values[i];
  }
  ADD_FAILURE() << "no row " << tag;
  return {};
}

}  // namespace

TEST(CollectiveStats, AggregatesTheCallsOfAStep) {
  CollectiveStats c({"min", "max", "norm", "zeros", "nans", "mean", "id"}, 1e-8);
  std::vector<float> a{3, -4, 0, 1}, b{0, 0, 2, 6}, n{(float)kNaN, 1};
  const TensorView va = view_of(a, DType::kFloat32), vb = view_of(b, DType::kFloat32);
  const TensorView vn = view_of(n, DType::kFloat32);
  c.add({"all_reduce/rank0/post_0"}, {{&va}});
  c.add({"all_reduce/rank0/post_0"}, {{&vb}});
  CollectiveRows r = c.take();
  ASSERT_EQ(r.tags, std::vector<std::string>{"all_reduce/rank0/post_0"});
  const std::vector<double> v = r.values[0];
  EXPECT_EQ(v[0], -4);                                        // min of the mins
  EXPECT_EQ(v[1], 6);                                         // max of the maxes
  EXPECT_DOUBLE_EQ(v[2], std::sqrt(26.0) + std::sqrt(40.0));  // the norms added (not combined)
  EXPECT_DOUBLE_EQ(v[3], (0.25 + 0.5) / 2);                   // zeros averaged over the calls
  EXPECT_EQ(v[4], 0);
  EXPECT_DOUBLE_EQ(v[5], (0.0 + 2.0) / 2);  // means averaged over the calls
  EXPECT_TRUE(std::isnan(v[6]));            // id has no aggregate
  EXPECT_TRUE(c.take().tags.empty());       // taken: forgotten

  // Python's min / max over the calls: a NaN first stays, a NaN later is skipped.
  c.add({"broadcast/rank0/post_0"}, {{&vn}});
  c.add({"broadcast/rank0/post_0"}, {{&va}});
  c.add({"broadcast/rank0/pre_0"}, {{&va}});
  c.add({"broadcast/rank0/pre_0"}, {{&vn}});
  r = c.take();
  EXPECT_TRUE(std::isnan(row(r, "broadcast/rank0/post_0")[0]));
  EXPECT_EQ(row(r, "broadcast/rank0/pre_0")[0], -4);
  EXPECT_EQ(row(r, "broadcast/rank0/pre_0")[4], 1);  // nans added
}

TEST(CollectiveStats, ListArgumentIsOneTensor) {
  CollectiveStats c({"min", "max", "norm", "zeros", "mean"}, 1e-8);
  std::vector<float> a{3, 0}, b{4, 0};
  const TensorView va = view_of(a, DType::kFloat32), vb = view_of(b, DType::kFloat32);
  c.add({"all_gather/rank1/post_0", "all_gather/rank1/post_1"}, {{&va, &vb}, {&va}});
  const CollectiveRows r = c.take();
  EXPECT_EQ(r.values[0], (std::vector<double>{0, 4, 5, 0.5, 1.75}));  // torch.stack([a, b])
  EXPECT_EQ(r.values[1], (std::vector<double>{0, 3, 3, 0.5, 1.5}));
}

TEST(CollectiveStats, RowsInTheOrderCollectivesWereFirstSeen) {
  CollectiveStats c({"max"}, 1e-8);
  std::vector<float> a{1};
  const TensorView va = view_of(a, DType::kFloat32);
  c.add({"broadcast/rank0/post_0"}, {{&va}});
  c.add({"all_reduce/rank0/post_0"}, {{&va}});
  c.take();
  // Next step all_reduce comes first, but broadcast was seen first ever.
  c.add({"all_reduce/rank0/pre_0"}, {{&va}});
  c.add({"all_reduce/rank0/post_0"}, {{&va}});
  c.add({"broadcast/rank0/post_0"}, {{&va}});
  c.add({"gather/rank0/post_0"}, {{&va}});
  EXPECT_EQ(c.take().tags, (std::vector<std::string>{"broadcast/rank0/post_0", "all_reduce/rank0/pre_0",
                                                     "all_reduce/rank0/post_0", "gather/rank0/post_0"}));
  c.add({"gather/rank0/post_0"}, {{&va}});
  c.clear();
  EXPECT_TRUE(c.take().tags.empty());
}

TEST(CollectiveStats, OtherRowsPaddedLikePandas) {
  const std::string dir = ::testing::TempDir() + "msprobe_cc_" + std::to_string(::getpid());
  MonitorWriterOptions o;
  o.dir = join_path(dir, "rank0");
  o.ops = {"max", "norm"};
  MonitorWriter w(o);
  CollectiveStats c(o.ops, 1e-8);
  std::vector<float> a{3, -4}, b{2};
  const TensorView va = view_of(a, DType::kFloat32), vb = view_of(b, DType::kFloat32);
  c.add({"broadcast/rank0/pre_0", "broadcast/rank0/post_0"}, {{&va}, {&va}});
  c.add({"all_reduce/rank0/post_0"}, {{&vb}});
  c.move_into(w, "other");
  const MonitorFlush f = w.flush("other", 4);
  std::ifstream in(f.csv_path);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(),
            "param_name,step,max,norm\n"
            "broadcast,4,3.0,5.0,3.0,5.0\n"
            "all_reduce,4,2.0,2.0,nan,nan\n");
  EXPECT_EQ(f.csv_path, join_path(o.dir, "other_4-4.csv"));
}

TEST(CollectiveStats, AlertsWithoutCallIds) {
  MonitorWriterOptions o;
  o.dir = ::testing::TempDir() + "msprobe_cc_alerts_" + std::to_string(::getpid());
  o.ops = {"max"};
  o.rules = {AlertRule{"AnomalyTurbulence", 0.5}};
  o.csv = false;
  MonitorWriter w(o);
  CollectiveStats c(o.ops, 1e-8);
  std::vector<float> small{1}, big{8};
  const TensorView vs = view_of(small, DType::kFloat32), vb = view_of(big, DType::kFloat32);
  c.add({"all_reduce/rank0/post_0"}, {{&vs}});
  c.move_into(w, "other");
  EXPECT_TRUE(w.flush("other", 0).alerts.empty());
  w.end_step();
  c.add({"all_reduce/rank0/post_0"}, {{&vb}});
  c.move_into(w, "other");
  const MonitorFlush f = w.flush("other", 1);
  ASSERT_EQ(f.alerts.size(), 1u);
  EXPECT_EQ(f.alerts[0].call_id, -1);  // as 1.2.1's anomaly.json has it for the collectives
  EXPECT_EQ(f.alerts[0].tag, "all_reduce/rank0/post_0");
}
