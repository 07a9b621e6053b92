// First divergence: which call of a compared pair of runs is the first to go wrong.
//
// A suspect is a dump entry (API, module/cell call, forward or backward) whose inputs agree and
// whose outputs do not, or a source: a tensor that differs between the runs although no earlier
// recorded call produced it (a parameter, a buffer, the model's input, a random draw). "Agree" is judged
// against the noise that two runs on different hardware always show: each entry's output error is set against
// its input error (the amplification), and an entry is a suspect only when its amplification stands out from
// what the other entries of the same run show, beyond what the op's own conditioning explains
// (op_condition.h). The noise floor of a row is the unit roundoff of the lower precision of its two dtypes
// (bf16 against fp32: 2^-8). A collective (Distributed.*) whose output differs while this rank's inputs agree
// is a low-confidence suspect: another rank's input may be the cause. An op computed wrongly under ulp-level
// noise therefore still stands out, while the entries downstream of it (inputs already differ) do not.
//
// Ranking, best first: sources and entries that turn finite inputs into inf/nan and clear
// outliers before marginal ones, collectives last; then forward before backward; then earlier (NPU dump
// order) before later; an entry nested in another suspect (API inside a module) before its container. md5
// mode can only say "first output that differs while every input is equal".
#pragma once
#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "msprobe/compare/compare_table.h"
#include "msprobe/compare/replay_verdict.h"

namespace msprobe {
namespace compare {

// The noise model fitted on a run (find_suspects): how many roundoffs of its output an op
// typically adds, and the typical amplification (log10) and its spread. A scoped re-dump holds
// too few calls to fit one: its compare borrows the model of the compare that proposed it.
struct NoiseModel {
  double typical_increment = 4.0, base = 0.0, spread = 0.3;
  bool fitted = false;  // false: the floors above (too few calls to fit)
};

struct DivergenceContext {
  int rank = -1;  // -1: single dump.json pair (no rank folder)
  int step = -1;
  // Entry name -> stack lines (stack.json of the NPU side), may be null.
  const std::unordered_map<std::string, std::vector<std::string>>* stacks = nullptr;
  // Child -> parent names (construct.json of the NPU side; "" for the root), may be null.
  const std::unordered_map<std::string, std::string>* parents = nullptr;
  // Input row -> tensor name (tensor_names.json of the NPU side: "parameter:fc.weight",
  // "buffer:bn.running_mean", "input:0"), may be null.
  const std::unordered_map<std::string, std::string>* tensor_names = nullptr;
  // The model to use when the table is too small to fit one (a scoped re-dump), may be null.
  const NoiseModel* prior_noise = nullptr;
};

// One tensor (or scalar) row of a suspect, with the table's metrics of that row.
struct SuspectRow {
  std::string name;                                   // "Torch.matmul.3.forward.input.0"
  double error = 0;                                   // the relative error used for judging
  std::vector<std::pair<std::string, Cell>> metrics;  // table columns of that row
};

// What to do next about a suspect (written by compare's job, jobs/suspect_next_steps.h): a
// config.json per run that re-dumps just this call in tensor mode, the compare.json of the
// re-dumps, and op_generate's config_op.json. Paths; "" when not written (config_op: a call
// op_generate cannot replay).
struct SuspectNextSteps {
  std::string redump_config_npu, redump_config_bench, config_op;
  std::string compare_json;  // compares the two re-dumps and names the suspect ("" when none)
  bool empty() const { return redump_config_npu.empty() && redump_config_bench.empty() && config_op.empty(); }
};

struct Suspect {
  std::string name;  // dump entry: "Torch.matmul.3.forward", "Module.fc.Linear.forward.0"
  int rank = -1, step = -1;
  int tier = 1;  // 0: a source, produced inf/nan or a clear outlier; 1: marginal; 2: a collective
  // A source: the input row of `name` where a tensor no recorded call produced differs, and the
  // tensor's name from tensor_names.json ("parameter:h.1.mlp.c_fc.weight"; "" unnamed).
  bool source = false;
  std::string source_row, source_name;
  bool forward = true;
  size_t order = 0;  // position of the entry in the NPU dump
  double input_error = 0, output_error = 0, amplification = 0;
  std::string reason;  // one sentence
  std::vector<SuspectRow> inputs, outputs;
  std::vector<std::string> stack;        // user's stack lines (NPU side)
  std::vector<std::string> module_path;  // outermost module first, from construct.json
  NoiseModel noise;                      // the model the suspect was judged by
  SuspectNextSteps next_steps;
  SuspectReplay replay;  // "the API or its inputs?" (tensor dumps of both runs, PyTorch APIs)
};

// The suspects of one compared rank, ranked best first.
std::vector<Suspect> find_suspects(const CompareTable& table, const DivergenceContext& ctx);

// The relative error of each table row as find_suspects judges it (NaN: unmatched or not
// comparable); the report plots it so that the plot shows what the suspects were chosen on.
std::vector<double> row_relative_errors(const CompareTable& table, const DivergenceContext& ctx);

// Ranks suspects gathered from several ranks (best first; the earliest across ranks first
// within a tier).
void rank_suspects(std::vector<Suspect>* suspects);

// The answer of a scoped tensor re-dump (next_steps/.../compare.json names the suspect it was
// made for): "confirmed" (it is still a suspect with exact tensors), "cleared" (its inputs
// already differ, or its outputs agree) or "missing" (the re-dump does not hold it).
struct RedumpCheck {
  std::string suspect;   // the entry the re-dump was made for; "" when no check was asked
  std::string verdict;   // "confirmed" | "cleared" | "missing"
  std::string sentence;  // one line, starting with the verdict
  bool empty() const { return suspect.empty(); }
};

// Checks `entry` in the re-dump's table and suspects. `first_source`: the first source the
// compare that proposed the re-dump found ("" when none), named when the suspect is cleared.
RedumpCheck check_redumped_suspect(const CompareTable& table, const DivergenceContext& ctx,
                                   const std::vector<Suspect>& suspects, const std::string& entry,
                                   const std::string& first_source);

// divergence_{timestamp}.json: {"suspects": [...]} (Python json.dump(indent=1) layout), and the
// re-dump check when there is one.
std::string divergence_json(const std::vector<Suspect>& suspects, CompareMode mode,
                            const RedumpCheck& check = {});

// Reads back what divergence_json wrote (suspects in file order; `mode`, may be null, receives
// its "compare_mode"). Throws InvalidInput / FileError naming `origin`.
std::vector<Suspect> parse_divergence_json(const std::string& text, const std::string& origin,
                                           CompareMode* mode = nullptr);

// Writes the suspects' verdict into the table: a high or medium suspect's output rows (a
// source's input row) turn red with the failing Result of the mode ("Warning", "No",
// "Different") and their reason in Err_message; a low one's turn yellow. Fills
// table.divergence. The xlsx, the advisor and the report then show the same verdict.
void mark_suspect_rows(CompareTable& table, const std::vector<Suspect>& suspects);

// "high", "medium", "low" of a tier, and back.
const char* confidence_name(int tier);
int tier_of_confidence(const std::string& confidence);

// One line naming the first suspect (for the advisor and the terminal), "" when none or when
// the first is only a low-confidence one (it stays in the json and the report).
std::string first_suspect_line(const std::vector<Suspect>& suspects);

}  // namespace compare
}  // namespace msprobe
