// Every first-divergence suspect comes with its next step (not in 1.2.1). For each suspect of a
// compare, in out_dir/next_steps{suffix}_{ts}/{N}_{entry}/:
//   config_npu.json, config_bench.json  re-dump just that call in tensor mode, one per run, into
//                                        dump_npu/ and dump_bench/ beside them
//                                        (config/redump_config.h; they differ in dump_path only)
//   compare.json                         compares the two re-dumps and names the suspect, so that
//                                        that compare says "confirmed" or "cleared"
//   config_op.json                       op_generate of that API on the NPU dump (PyTorch
//                                        Functional / Tensor / Torch calls only: 1.2.1's
//                                        op_generate replays nothing else)
//   op_verdict.js                        empty until op_generate's script, run in this folder,
//                                        writes its verdict there for the report to show
// A source (a parameter, the model's input) has no next step: it is the answer. The suspect a
// re-dump compare checks gets no re-dump again, only op_generate: the loop ends there.
// The paths go into each suspect (Suspect::next_steps), hence divergence_*.json and the report.
#pragma once
#include <string>
#include <vector>

#include "msprobe/compare/divergence.h"

namespace msprobe {
namespace compare {

struct NextStepsInput {
  std::string framework = "pytorch";  // or "mindspore" (no op_generate)
  std::string npu_json;               // the NPU run's dump.json: op_generate's dump_json_path
  std::string folder;                 // out_dir/next_steps{suffix}_{ts}
  bool tensor_data = false;           // the NPU dump holds tensors: config_op uses real_data
  std::string checked_suspect;        // the suspect this compare's re-dump was made for ("" none)
};

// Writes the files (0640, folders 0750) and fills suspects[i].next_steps. Throws FileError.
void write_suspect_next_steps(std::vector<Suspect>* suspects, const NextStepsInput& in);

// "next_steps{suffix}_{ts}".
std::string next_steps_folder_name(const std::string& suffix, const std::string& timestamp);

// One terminal line pointing at a suspect's files, "" when it has none.
std::string next_steps_line(const Suspect& s, const std::string& framework = "pytorch");

}  // namespace compare
}  // namespace msprobe
