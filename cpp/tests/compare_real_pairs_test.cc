// First divergence on the pairs users bring (divergence.h): rows of different float dtypes judged
// by the lower precision, ops whose mathematics amplifies an error (op_condition.h), sources (a
// tensor no recorded call produced), collectives, the suspects' verdict in the table and the
// advisor, and the check of a scoped re-dump.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "msprobe/compare/advisor.h"
#include "msprobe/compare/compare_const.h"
#include "msprobe/compare/divergence.h"
#include "msprobe/compare/op_condition.h"

using namespace msprobe;
using namespace msprobe::compare;

namespace {

const std::vector<std::string>& kHeader = mode_header(CompareMode::kStatistics);

struct Side {
  std::string dtype = "torch.float32", shape = "[64, 64]";
  double max = 3, min = -3, mean = 0.1, norm = 40;
};

// A statistics row: bench `b`, NPU `b` scaled by (1 + rel) (its dtype `npu_dtype` when given).
std::vector<Cell> row(const std::string& name, const Side& b, double rel, const std::string& npu_dtype = "") {
  std::vector<Cell> r(kHeader.size());
  r[0] = r[1] = Cell::str(name);
  r[2] = Cell::str(npu_dtype.empty() ? b.dtype : npu_dtype);
  r[3] = Cell::str(b.dtype);
  r[4] = r[5] = Cell::str(b.shape);
  const double n[4] = {b.max * (1 + rel), b.min * (1 + rel), b.mean * (1 + rel), b.norm * (1 + rel)};
  for (int i = 0; i < 4; ++i) {
    r[14 + i] = Cell::num(n[i]);
    r[18 + i] = Cell::num((&b.max)[i]);
  }
  r[22] = Cell::str("");
  r[23] = Cell::str("");
  return r;
}

// A chain of `n` calls: each reads the previous output (the same statistics: it was produced by
// a recorded call) and adds noise; the first reads the model's input `input_rel` off. Returns the
// table; `extra` runs on each call index to add rows (a parameter input, a fault).
struct Chain {
  CompareTable t;
  std::mt19937 gen{11};
  double err = 0;
  Side s;
  Chain() {
    t.mode = CompareMode::kStatistics;
    t.header = kHeader;
  }
  // One call: its input is the previous output; its output adds `add` (relative) to the error.
  void call(const std::string& entry, double add, const std::string& npu_dtype = "",
            const std::vector<std::vector<Cell>>& more_inputs = {}) {
    t.rows.push_back(row(entry + ".input.0", s, err, npu_dtype));
    for (const auto& r : more_inputs) t.rows.push_back(r);
    std::uniform_real_distribution<double> u(0.5, 1.5);
    err += add * u(gen);
    s.max *= 1.01;  // a new tensor: other statistics than its input
    s.norm *= 0.99;
    t.rows.push_back(row(entry + ".output.0", s, err, npu_dtype));
  }
  CompareTable done() {
    t.fills.assign(t.rows.size(), Fill::kNone);
    return t;
  }
};

}  // namespace

TEST(CompareOpCondition, MathematicsThatAmplifies) {
  RowStats x;
  x.tensor = true;
  x.numel = 100;
  x.max = 12;
  x.min = -2;
  x.mean = 1;
  x.norm = 40;
  RowStats three;
  three.max = three.min = three.mean = 3;
  EXPECT_DOUBLE_EQ(op_condition("Torch.pow.1.forward", {x, three}, {x}).factor, 3);
  EXPECT_DOUBLE_EQ(op_condition("Tensor.__pow__.0.forward", {x, three}, {x}).factor, 3);
  EXPECT_DOUBLE_EQ(op_condition("Torch.exp.0.forward", {x}, {x}).factor, 12);
  EXPECT_DOUBLE_EQ(op_condition("Functional.softmax.0.forward", {x}, {x}).factor, 24);
  EXPECT_DOUBLE_EQ(op_condition("Torch.tanh.0.forward", {x}, {x}).factor, 1);  // no amplification
  EXPECT_DOUBLE_EQ(op_condition("Torch.pow.1.backward", {x, three}, {x}).factor, 1);
  // A mean-dominated input to a norm: the spread is small against the size.
  RowStats shifted = x;
  shifted.mean = 3.99;  // rms 4
  EXPECT_GT(op_condition("Functional.layer_norm.0.forward", {shifted}, {x}).factor, 20);
  EXPECT_GT(op_condition("Module.ln.LayerNorm.forward.0", {shifted}, {x}).factor, 20);
  // a - b where the result is 1/50 of the terms
  RowStats small = x;
  small.norm = 40.0 * 2 / 50;
  EXPECT_NEAR(op_condition("Tensor.__sub__.0.forward", {x, x}, {small}).factor, 50, 1e-9);
  // log near 1 (outputs cross zero): capped, large
  RowStats logs = x;
  logs.max = 0.5;
  logs.min = -0.5;
  EXPECT_GE(op_condition("Torch.log.0.forward", {x}, {logs}).factor, 1000);
}

// bf16 rounding does not pile up call after call: each output carries about half a roundoff of
// its own (and what its input carried, through a well-conditioned op).
TEST(CompareRealPairs, Bf16AgainstFp32RoundingAloneIsNoSuspect) {
  Chain c;
  for (int i = 0; i < 30; ++i) {
    c.call("Torch.op" + std::to_string(i) + ".0.forward", 0x1p-9, "torch.bfloat16");
    c.err = std::min(c.err, 0x1p-8);
  }
  const CompareTable t = c.done();
  const std::vector<Suspect> s = find_suspects(t, DivergenceContext());
  for (const Suspect& x : s) EXPECT_EQ(x.tier, 2) << x.name << ": " << x.reason;
}

TEST(CompareRealPairs, Bf16KernelAFewPercentOffStandsOut) {
  Chain c;
  for (int i = 0; i < 30; ++i) {
    c.call("Torch.op" + std::to_string(i) + ".0.forward", i == 17 ? 0.04 : 0x1p-9, "torch.bfloat16");
    if (i < 17) c.err = std::min(c.err, 0x1p-8);
  }
  const std::vector<Suspect> s = find_suspects(c.done(), DivergenceContext());
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s.front().name, "Torch.op17.0.forward");
  EXPECT_LT(s.front().tier, 2);
}

TEST(CompareRealPairs, ParameterNamedFirstAndItsModuleIsNoSuspect) {
  Chain c;
  Side w;
  w.shape = "[64, 32]";
  w.max = 0.2;
  w.min = -0.2;
  w.mean = 0.001;
  w.norm = 5;
  for (int i = 0; i < 20; ++i) {
    const std::string entry = "Functional.linear." + std::to_string(i) + ".forward";
    std::vector<std::vector<Cell>> weight = {row(entry + ".input.1", w, i == 9 ? 0.01 : 0)};
    w.norm *= 1.1;  // each layer its own weight
    c.call(entry, i == 9 ? 0.01 : 1e-7, "", weight);
  }
  CompareTable t = c.done();
  std::unordered_map<std::string, std::string> names = {
      {"Functional.linear.9.forward.input.1", "parameter:layers.9.weight"}};
  std::unordered_map<std::string, std::string> parents = {
      {"Functional.linear.9.forward", "Module.layers.9.Linear.forward.0"}};
  DivergenceContext ctx;
  ctx.tensor_names = &names;
  ctx.parents = &parents;
  const std::vector<Suspect> s = find_suspects(t, ctx);
  ASSERT_FALSE(s.empty());
  EXPECT_TRUE(s.front().source);
  EXPECT_EQ(s.front().name, "Functional.linear.9.forward");
  EXPECT_EQ(s.front().source_row, "Functional.linear.9.forward.input.1");
  EXPECT_EQ(s.front().reason.substr(0, 51), "parameter `layers.9.weight` differs before any call");
  for (const Suspect& x : s) EXPECT_NE(x.name, "Module.layers.9.Linear.forward.0");

  // Without tensor_names.json (1.2.1's dumps): the same input, unnamed.
  const std::vector<Suspect> unnamed = find_suspects(t, DivergenceContext());
  ASSERT_FALSE(unnamed.empty());
  EXPECT_TRUE(unnamed.front().source);
  EXPECT_NE(
      unnamed.front().reason.find("that no recorded call produced differs (input.1): a parameter or data"),
      std::string::npos)
      << unnamed.front().reason;
}

TEST(CompareRealPairs, ProducedInputIsNoSource) {
  // Every input is an earlier output (same statistics): however much it differs, no source.
  Chain c;
  for (int i = 0; i < 20; ++i) c.call("Torch.op" + std::to_string(i) + ".0.forward", i == 3 ? 0.2 : 1e-7);
  for (const Suspect& x : find_suspects(c.done(), DivergenceContext())) EXPECT_FALSE(x.source) << x.reason;
}

TEST(CompareRealPairs, BackwardJudgedAgainstItsForwardsInputs) {
  Chain c;
  for (int i = 0; i < 12; ++i) c.call("Torch.op" + std::to_string(i) + ".0.forward", i == 5 ? 0.05 : 1e-7);
  CompareTable t = c.done();
  // op8's backward: its gradient agrees, its output differs as much as op8's forward input does.
  Side g;
  t.rows.push_back(row("Torch.op8.0.backward.input.0", g, 0));
  t.rows.push_back(row("Torch.op8.0.backward.output.0", g, 0.05));
  t.fills.assign(t.rows.size(), Fill::kNone);
  for (const Suspect& x : find_suspects(t, DivergenceContext())) EXPECT_NE(x.name, "Torch.op8.0.backward");
}

TEST(CompareRealPairs, CollectiveIsLowAndDroppedWhenAnotherRankExplainsIt) {
  Chain c;
  for (int i = 0; i < 12; ++i) {
    const std::string entry =
        i == 6 ? "Distributed.all_reduce.0.forward" : "Torch.op" + std::to_string(i) + ".0.forward";
    c.call(entry, i == 6 ? 0.05 : 1e-7);
  }
  DivergenceContext rank0;
  rank0.rank = 0;
  rank0.step = 0;
  std::vector<Suspect> s = find_suspects(c.done(), rank0);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.front().name, "Distributed.all_reduce.0.forward");
  EXPECT_EQ(s.front().tier, 2);
  EXPECT_STREQ(confidence_name(s.front().tier), "low");
  EXPECT_EQ(first_suspect_line(s), "");  // a low one alone: in the json, not on the terminal
  // Rank 1 computed op3 wrongly: across ranks its op comes first and the collective goes.
  Chain d;
  for (int i = 0; i < 12; ++i) d.call("Torch.op" + std::to_string(i) + ".0.forward", i == 3 ? 0.05 : 1e-7);
  DivergenceContext rank1;
  rank1.rank = 1;
  rank1.step = 0;
  std::vector<Suspect> r1 = find_suspects(d.done(), rank1);
  ASSERT_FALSE(r1.empty());
  s.insert(s.end(), r1.begin(), r1.end());
  rank_suspects(&s);
  EXPECT_EQ(s.front().name, "Torch.op3.0.forward");
  EXPECT_EQ(s.front().rank, 1);
  for (const Suspect& x : s) EXPECT_NE(x.name, "Distributed.all_reduce.0.forward");
}

TEST(CompareRealPairs, SuspectRowsMarkedAndTheAdvisorNamesThem) {
  Chain c;
  for (int i = 0; i < 12; ++i) c.call("Torch.op" + std::to_string(i) + ".0.forward", i == 7 ? 0.05 : 1e-7);
  CompareTable t = c.done();
  t.fills[2] = Fill::kRed;  // a row 1.2.1's highlight flags, before the suspect
  const std::vector<Suspect> s = find_suspects(t, DivergenceContext());
  ASSERT_FALSE(s.empty());
  mark_suspect_rows(t, s);
  const int out_row = 15;  // Torch.op7.0.forward.output.0
  ASSERT_EQ(t.rows[out_row][0].s, "Torch.op7.0.forward.output.0");
  EXPECT_EQ(t.fills[out_row], Fill::kRed);
  EXPECT_EQ(t.divergence[out_row], kSuspect);
  EXPECT_EQ(t.rows[out_row][22].s, "Warning");
  EXPECT_EQ(t.rows[out_row][23].s.rfind("First divergence (", 0), 0u) << t.rows[out_row][23].s;
  EXPECT_EQ(t.divergence[2], kNotSuspect);
  const AdvisorResult a = analyze_compare_table(t, s.front().name);
  EXPECT_TRUE(a.found);
  EXPECT_EQ(a.suspect_node, "Torch.op7.0.forward.output.0");
  // Without the suspect, 1.2.1's rule finds the marked row; with no Result set, a red row.
  CompareTable plain = c.done();
  plain.fills[2] = Fill::kRed;
  EXPECT_EQ(analyze_compare_table(plain).line, "2");
}

TEST(CompareRealPairs, RedumpCheckConfirmsOrClears) {
  // A scoped re-dump: one call, too few to fit a noise model: the prior model is used.
  CompareTable t;
  t.mode = CompareMode::kStatistics;
  t.header = kHeader;
  Side in, out;
  out.max = 2.5;
  t.rows.push_back(row("Torch.tanh.1.forward.input.0", in, 0x1p-9, "torch.bfloat16"));
  t.rows.push_back(row("Torch.tanh.1.forward.output.0", out, 0.04, "torch.bfloat16"));
  t.fills.assign(t.rows.size(), Fill::kNone);
  NoiseModel prior{1.0, -0.2, 0.3, true};
  DivergenceContext ctx;
  ctx.prior_noise = &prior;
  std::vector<Suspect> s = find_suspects(t, ctx);
  ASSERT_EQ(s.size(), 1u);
  RedumpCheck c = check_redumped_suspect(t, ctx, s, "Torch.tanh.1.forward", "");
  EXPECT_EQ(c.verdict, "confirmed") << c.sentence;
  // Its input already 5% off, its output as much: cleared, naming the first compare's source.
  t.rows[0] = row("Torch.tanh.1.forward.input.0", in, 0.05, "torch.bfloat16");
  s = find_suspects(t, ctx);
  c = check_redumped_suspect(t, ctx, s, "Torch.tanh.1.forward", "Torch.mm.0.forward: parameter `w` differs");
  EXPECT_EQ(c.verdict, "cleared");
  EXPECT_NE(c.sentence.find("the source is: Torch.mm.0.forward"), std::string::npos) << c.sentence;
  EXPECT_EQ(check_redumped_suspect(t, ctx, s, "Torch.exp.0.forward", "").verdict, "missing");
}
