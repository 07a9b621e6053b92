// One rank of `compare`, end to end, as msprobe 1.2.1's compare() / ms_compare() does it for one
// pair of dump.json files (pytorch/compare/pt_compare.py, core/compare/acc_compare.py
// compare_core): check the inputs, compare, write compare_result{suffix}_{ts}.xlsx and, unless
// auto_analyze is off, advisor{suffix}_{ts}.txt; then, beyond 1.2.1, the first divergence
// (divergence{suffix}_{ts}.json, named in the advisor) and the HTML report. The caller (Python)
// only prints the report.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "msprobe/compare/advisor.h"
#include "msprobe/compare/compare_run.h"
#include "msprobe/compare/divergence.h"
#include "msprobe/format/json_value.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace compare {

// A suspect API to replay in float64 on each run's own dumped inputs (jobs/suspect_replay.h).
// A backward suspect ("Functional.gelu.2.backward") is replayed from its forward entries (the
// arguments) and its backward entries (the gradients that reached the API's autograd node); the
// replay's outputs are then the gradients that node passes on, in the order the dump records them.
struct ReplayRequest {
  std::string entry;                             // "Functional.gelu.2.forward" or ".backward"
  std::string api_type, api_name;                // run_ut's split: "Functional", "gelu"
  JsonValue npu_record, bench_record;            // the forward entries of both dumps
  JsonValue npu_grad_record, bench_grad_record;  // the backward entries (null for a forward suspect)
  std::string npu_tensor_dir, bench_tensor_dir;  // their dump_tensor_data folders
  bool backward() const { return !npu_grad_record.is_null(); }
};
// Receives the float64 outputs of the replay on the NPU inputs and on the bench inputs (tensor
// outputs in order, or the gradients of a backward suspect; the views are valid during the call).
using ReplayJudge =
    std::function<void(const std::vector<TensorView>& npu, const std::vector<TensorView>& bench)>;
// Runs the framework (the caller's: Python, run_ut's replay machinery) and calls the judge;
// throws Error (one line) when the call cannot be replayed.
using ReplayFn = std::function<void(const ReplayRequest& request, const ReplayJudge& judge)>;

struct CompareJob {
  std::string framework = "pytorch";  // or "mindspore" (CompareOptions::framework)
  std::string npu_json, bench_json;   // both must be files named ...dump.json
  // stack.json: when `stack_json_given` (compare.json stack_path / input_param stack_json_path),
  // stack_mode decides whether NPU_Stack_Info is written; otherwise stack.json is looked for next
  // to the NPU dump.json and the column appears when it exists (1.2.1's set_stack_json_path).
  bool stack_json_given = false;
  std::string stack_json;
  bool stack_mode = false;
  bool auto_analyze = true;
  bool fuzzy_match = false;
  std::string output_dir;
  std::string suffix;     // "" or "_rank0-rank0"
  std::string timestamp;  // "" = now (base/output_dir.h, timestamp_now())
  int threads = 0;
  std::shared_ptr<NameMapper> name_mapper;
  // -lm: also leave the mapper's row pairs in data_mapping{suffix}_{ts}.yaml (1.2.1 does).
  bool save_data_mapping = false;
  // Not in 1.2.1: divergence{suffix}_{ts}.json (first divergence, divergence.h) is always
  // written; compare_report{suffix}_{ts}.html (the HTML report) unless this is off.
  bool html_report = true;
  // Not in 1.2.1: when set and both dumps hold tensors, the first suspects (forward API calls) are
  // replayed through it and judged "the API" or "its inputs" (Suspect::replay).
  ReplayFn replay;
  // Not in 1.2.1: this compare is of a scoped re-dump made for the suspect `redump_suspect`
  // (compare.json "suspect", written in its next_steps folder): say whether it is confirmed or
  // cleared (RedumpCheck), naming `redump_first_source` when there was one.
  std::string redump_suspect, redump_first_source;
  NoiseModel redump_noise;  // the noise model the suspect was judged by (fitted: known)
};

struct CompareJobReport {
  std::string suffix;             // the job's suffix ("_rank0-rank0" for a rank pair)
  std::string error;              // set by a caller that ran several ranks: this rank's failure
  std::string xlsx_path;          // "" when nothing matched (1.2.1 writes no file then)
  std::string advisor_path;       // "" when auto_analyze is off or nothing matched
  std::string data_mapping_path;  // save_data_mapping
  std::string divergence_path;    // "" when nothing matched
  std::string report_path;        // "" when nothing matched or html_report is off
  std::string first_divergence;   // first_suspect_line(), "" when no suspect
  std::string next_steps;         // next_steps_line() of the first suspect, "" when no suspect
  std::string replay;             // replay_line() of the first suspect, "" when not replayed
  std::string redump_check;       // the re-dump's verdict on its suspect, one line ("" when none)
  size_t suspects = 0;
  size_t rows = 0;
  size_t red_rows = 0, yellow_rows = 0;
  bool stack_mode = false;            // as finally decided
  std::vector<std::string> warnings;  // one line each, in order
  AdvisorResult advisor;              // valid when advisor_path is set
};

// Throws FileError / InvalidInput (one line) on bad input; nothing is written then.
CompareJobReport run_compare_job(const CompareJob& job, ProgressFn progress = {});

// Several ranks: the suspects of every rank's divergence{suffix}_{ts}.json ranked together
// (rank_suspects: the earliest across ranks first) into `out_path`. Returns the first suspect's
// line ("" when none). A rank file that cannot be read throws FileError / InvalidInput.
std::string merge_rank_divergence(const std::vector<std::string>& rank_files, const std::string& out_path);

}  // namespace compare
}  // namespace msprobe
