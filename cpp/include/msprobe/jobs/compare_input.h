// What `msprobe compare -i compare.json` is asked to compare, checked before any work starts.
//
// compare.json (msprobe 1.2.1): {"npu_path": ..., "bench_path": ..., "stack_path": ...,
// "is_print_compare_log": true}, and ours: "suspect" (see CompareJson). npu_path/bench_path are both
// dump.json files (one rank) or both step folders (every rank). Unlike 1.2.1, which ignores what it does not
// know, an unknown key or a value of the wrong type is refused with one line naming the key.
//
// Step folders: every entry must be named rank, rank0, rank1, ... (1.2.1's
// check_and_return_dir_contents); both sides are sorted by name (as 1.2.1: "rank10" before
// "rank2") and paired by position; different rank counts are an error.
#pragma once
#include <string>
#include <vector>

#include "msprobe/compare/divergence.h"

namespace msprobe {
namespace compare {

struct CompareJson {
  std::string npu_path, bench_path;
  bool has_stack_path = false;  // absent: stack.json is looked for next to the NPU dump.json
  std::string stack_path;
  bool is_print_compare_log = true;
  bool has_rank_id = false;  // MindSpore graph-mode (L2) compare: rank_id / step_id lists
  // Ours, written by compare's next steps: {"name": entry, "first_source": line | null}, the
  // suspect a scoped re-dump was made for (CompareJob::redump_suspect).
  std::string suspect, suspect_first_source;
  NoiseModel suspect_noise;  // "noise": {"typical_increment", "base", "spread"} (fitted when given)
};

// Reads and validates compare.json. Throws FileError (missing, a link, not JSON) or InvalidInput
// ("<path>: unknown key "x": allowed keys are ..." / wrong type / missing npu_path).
CompareJson load_compare_json(const std::string& path);

enum class PathKind { kMissing, kFile, kFolder, kOther };
PathKind path_kind(const std::string& path);

// One rank pair of a step-folder compare.
struct RankPair {
  std::string npu_rank, bench_rank;  // folder names, e.g. "rank0"
  std::string npu_dump_json, bench_dump_json;
  std::string suffix;  // "_rank0-rank0" (compare_output_names.h)
  std::string error;   // one line when a dump.json is missing; "" when fine
};

// Pairs the rank folders of two step folders. Throws InvalidInput / FileError for a bad folder,
// a foreign entry in it, or different rank counts. A rank folder without dump.json does not stop
// the others: its pair carries the error line.
std::vector<RankPair> pair_rank_dirs(const std::string& npu_step_dir, const std::string& bench_step_dir);

}  // namespace compare
}  // namespace msprobe
