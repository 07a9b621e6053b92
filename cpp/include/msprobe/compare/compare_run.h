// Entry point of `compare`: two dump.json files in, 1.2.1's result table out.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "msprobe/compare/compare_table.h"
#include "msprobe/compare/name_mapper.h"

namespace msprobe {
namespace compare {

struct CompareOptions {
  // -f: "pytorch" (1.2.1's PTComparator: ordered matching, .pt files) or "mindspore"
  // (MSComparator: rows joined on name and shape, .npy files).
  std::string framework = "pytorch";
  bool stack_mode = false;   // -s: add NPU_Stack_Info from stack_path
  bool fuzzy_match = false;  // -f
  bool auto_analyze = true;
  std::string stack_path;  // NPU stack.json (stack_mode); "" = stack.json beside the NPU dump
  int threads = 0;         // 0 = all cores
  // Name mapping hook (MindSpore -am/-cm/-dm/-lm); null = identity.
  std::shared_ptr<NameMapper> name_mapper;
};

// Progress, always called on the calling thread: (stage, done, total); stage is "read" while the
// dumps are matched (entries) and "compare" while tensors are compared (rows).
using ProgressFn = std::function<void(const char* stage, size_t done, size_t total)>;

// Reads both dumps (their dump_tensor_data folders next to dump.json in tensor mode), matches
// ops as 1.2.1 does and computes every row, the Accuracy/Result verdicts, the highlight fills and
// the highlight messages in Err_message. An empty table (no rows) is 1.2.1's "Can`t match any
// op." case (it writes no file). Throws FileError / InvalidInput (one line) on unusable input.
CompareTable compare_dumps(const std::string& npu_dump_json, const std::string& bench_dump_json,
                           const CompareOptions& options, ProgressFn progress = {});

}  // namespace compare
}  // namespace msprobe
