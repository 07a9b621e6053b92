// First-divergence analysis on synthetic compare tables: a chain of ops under run-to-run noise
// with one op computed differently must be named first, in each compare mode.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "msprobe/compare/compare_const.h"
#include "msprobe/compare/divergence.h"
#include "msprobe/compare/row_name.h"
#include "msprobe/format/json_value.h"

using namespace msprobe;
using namespace msprobe::compare;

namespace {

// The columns of compare's statistics and md5 tables.
const std::vector<std::string>& kStatsHeader = mode_header(CompareMode::kStatistics);
const std::vector<std::string>& kMd5Header = mode_header(CompareMode::kMd5);

struct Stats {
  double max, min, mean, norm;
};

// A row of a statistics table: bench statistics b, NPU statistics b scaled by (1 + rel).
std::vector<Cell> stats_row(const std::string& name, Stats b, double rel, bool nonfinite = false) {
  Stats n{b.max * (1 + rel), b.min * (1 + rel), b.mean * (1 + rel), b.norm * (1 + rel)};
  if (nonfinite) n.max = HUGE_VAL;
  std::vector<Cell> row(kStatsHeader.size());
  row[0] = Cell::str(name);
  row[1] = Cell::str(name);
  row[2] = row[3] = Cell::str("torch.float32");
  row[4] = row[5] = Cell::str("[64, 64]");
  row[14] = Cell::num(n.max);
  row[15] = Cell::num(n.min);
  row[16] = Cell::num(n.mean);
  row[17] = Cell::num(n.norm);
  row[18] = Cell::num(b.max);
  row[19] = Cell::num(b.min);
  row[20] = Cell::num(b.mean);
  row[21] = Cell::num(b.norm);
  return row;
}

// A chain of `n` ops (each forward entry has one input and one output) where the relative error
// grows by noise at every op and op `fault` multiplies its output error by `fault_rel`.
CompareTable chain_table(int n, double noise, int fault, double fault_rel, bool nonfinite = false) {
  CompareTable t;
  t.mode = CompareMode::kStatistics;
  t.header = kStatsHeader;
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  double err = 0;
  Stats s{3, -3, 0.1, 40};
  for (int i = 0; i < n; ++i) {
    std::string entry = "Torch.op" + std::to_string(i % 5) + "." + std::to_string(i) + ".forward";
    t.rows.push_back(stats_row(entry + ".input.0", s, err));
    double out_err = err + noise * u(gen);
    if (i == fault) out_err += fault_rel;
    t.rows.push_back(stats_row(entry + ".output.0", s, out_err, nonfinite && i == fault));
    err = out_err;
  }
  t.fills.assign(t.rows.size(), Fill::kNone);
  return t;
}

}  // namespace

TEST(CompareRowName, SplitsApiModuleAndGradRows) {
  RowName a = split_row_name("Torch.matmul.3.forward.input.0");
  EXPECT_EQ(a.entry, "Torch.matmul.3.forward");
  EXPECT_EQ(a.role, RowRole::kInput);
  EXPECT_TRUE(a.forward);
  RowName m = split_row_name("Module.fc.Linear.backward.1.output.0");
  EXPECT_EQ(m.entry, "Module.fc.Linear.backward.1");
  EXPECT_EQ(m.role, RowRole::kOutput);
  EXPECT_FALSE(m.forward);
  RowName p = split_row_name("Module.fc.Linear.forward.0.parameters.weight");
  EXPECT_EQ(p.entry, "Module.fc.Linear.forward.0");
  EXPECT_EQ(p.role, RowRole::kParameters);
  RowName g = split_row_name("Module.fc.Linear.parameters_grad.weight");
  EXPECT_EQ(g.entry, "Module.fc.Linear.parameters_grad");
  EXPECT_EQ(g.role, RowRole::kParametersGrad);
  // "forward" inside an API name is not the direction segment.
  RowName f = split_row_name("Functional.multi_head_attention_forward.0.forward.output.1");
  EXPECT_EQ(f.entry, "Functional.multi_head_attention_forward.0.forward");
  EXPECT_EQ(split_row_name("garbage").entry, "");
}

TEST(CompareDivergence, FaultAloneIsTheOnlySuspect) {
  CompareTable t = chain_table(30, 0.0, 12, 1e-3);
  std::vector<Suspect> s = find_suspects(t, DivergenceContext{});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].name, "Torch.op2.12.forward");
  EXPECT_EQ(s[0].tier, 0);
}

TEST(CompareDivergence, FaultUnderNoiseComesFirst) {
  for (double noise : {1e-7, 1e-6}) {
    CompareTable t = chain_table(200, noise, 120, 2e-3);
    std::vector<Suspect> s = find_suspects(t, DivergenceContext{});
    ASSERT_FALSE(s.empty()) << noise;
    EXPECT_EQ(s[0].name, "Torch.op0.120.forward") << noise;
    EXPECT_LE(s.size(), 3u) << noise;
  }
}

TEST(CompareDivergence, NoiseAloneGivesNoHighConfidenceSuspect) {
  CompareTable t = chain_table(200, 1e-6, -1, 0);
  for (const Suspect& s : find_suspects(t, DivergenceContext{})) EXPECT_NE(s.tier, 0) << s.name;
}

TEST(CompareDivergence, InfProducedFromFiniteInputsIsFirst) {
  CompareTable t = chain_table(50, 1e-6, 20, 0, /*nonfinite=*/true);
  std::vector<Suspect> s = find_suspects(t, DivergenceContext{});
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0].name, "Torch.op0.20.forward");
  EXPECT_NE(s[0].reason.find("inf/nan"), std::string::npos);
}

TEST(CompareDivergence, Md5NamesFirstDifferentOutputWithEqualInputs) {
  CompareTable t;
  t.mode = CompareMode::kMd5;
  t.header = kMd5Header;
  auto row = [](const std::string& name, const std::string& a, const std::string& b) {
    return std::vector<Cell>{Cell::str(name),
                             Cell::str(name),
                             Cell::str("torch.float32"),
                             Cell::str("torch.float32"),
                             Cell::str("[2]"),
                             Cell::str("[2]"),
                             Cell::str(a),
                             Cell::str(b),
                             Cell::str(a == b ? "pass" : "Different")};
  };
  t.rows = {row("Torch.a.0.forward.input.0", "aa", "aa"), row("Torch.a.0.forward.output.0", "bb", "bb"),
            row("Torch.b.0.forward.input.0", "bb", "bb"), row("Torch.b.0.forward.output.0", "cc", "cd"),
            row("Torch.c.0.forward.input.0", "cc", "cd"), row("Torch.c.0.forward.output.0", "dd", "de")};
  std::vector<Suspect> s = find_suspects(t, DivergenceContext{});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].name, "Torch.b.0.forward");
}

TEST(CompareDivergence, ApiInsideModuleBeforeModuleAndForwardBeforeBackward) {
  CompareTable t;
  t.mode = CompareMode::kStatistics;
  t.header = kStatsHeader;
  Stats s{1, -1, 0, 10};
  // Backward of an earlier op differs first in file order but forward wins.
  t.rows.push_back(stats_row("Torch.x.0.backward.input.0", s, 0));
  t.rows.push_back(stats_row("Torch.x.0.backward.output.0", s, 1e-2));
  t.rows.push_back(stats_row("Module.blk.Block.forward.0.input.0", s, 0));
  t.rows.push_back(stats_row("Module.blk.Block.forward.0.output.0", s, 1e-2));
  t.rows.push_back(stats_row("Torch.gelu.0.forward.input.0", s, 0));
  t.rows.push_back(stats_row("Torch.gelu.0.forward.output.0", s, 1e-2));
  t.fills.assign(t.rows.size(), Fill::kNone);
  std::unordered_map<std::string, std::string> parents = {
      {"Torch.gelu.0.forward", "Module.blk.Block.forward.0"}, {"Module.blk.Block.forward.0", ""}};
  std::unordered_map<std::string, std::vector<std::string>> stacks = {
      {"Torch.gelu.0.forward", {"File model.py, line 12, in forward, y = gelu(x)"}}};
  DivergenceContext ctx;
  ctx.parents = &parents;
  ctx.stacks = &stacks;
  ctx.rank = 0;
  ctx.step = 3;
  std::vector<Suspect> v = find_suspects(t, ctx);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].name, "Torch.gelu.0.forward");
  EXPECT_EQ(v[1].name, "Module.blk.Block.forward.0");
  EXPECT_EQ(v[2].name, "Torch.x.0.backward");
  ASSERT_EQ(v[0].module_path.size(), 1u);
  EXPECT_EQ(v[0].module_path[0], "Module.blk.Block.forward.0");

  JsonValue doc = parse_json(divergence_json(v, t.mode), "divergence");
  const JsonValue& first = doc.find("suspects")->as_array()[0];
  EXPECT_EQ(first.find("name")->as_string(), "Torch.gelu.0.forward");
  EXPECT_EQ(first.find("rank")->as_int(), 0);
  EXPECT_EQ(first.find("step")->as_int(), 3);
  EXPECT_EQ(first.find("stack")->as_array().size(), 1u);
  EXPECT_NE(first.find("outputs")->find("Torch.gelu.0.forward.output.0"), nullptr);
  EXPECT_NE(first_suspect_line(v).find("Torch.gelu.0.forward"), std::string::npos);
}

TEST(CompareDivergence, EarliestAcrossRanksFirst) {
  Suspect a, b;
  a.name = "Torch.a.5.forward";
  a.rank = 0;
  a.order = 50;
  a.tier = 0;
  b.name = "Torch.b.2.forward";
  b.rank = 1;
  b.order = 20;
  b.tier = 0;
  std::vector<Suspect> v{a, b};
  rank_suspects(&v);
  EXPECT_EQ(v[0].rank, 1);
}
