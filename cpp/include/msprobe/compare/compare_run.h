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
  bool stack_mode = false;   // -s: add NPU_Stack_Info from stack_path
  bool fuzzy_match = false;  // -f
  bool auto_analyze = true;
  std::string stack_path;    // NPU stack.json (stack_mode)
  int threads = 0;           // 0 = all cores
  // Name mapping hook (MindSpore -am/-cm/-dm/-lm); null = identity.
  std::shared_ptr<const NameMapper> name_mapper;
};

// Progress: (rows done, rows total) during the metric phase.
using ProgressFn = std::function<void(size_t done, size_t total)>;

// Reads both dumps (their dump_tensor_data folders next to dump.json in tensor mode), matches
// ops as 1.2.1 does and computes every row. Throws FileError / InvalidInput (one line) on
// unreadable input.
CompareTable compare_dumps(const std::string& npu_dump_json, const std::string& bench_dump_json,
                           const CompareOptions& options, ProgressFn progress = {});

}  // namespace compare
}  // namespace msprobe
