// compare_dumps: 1.2.1's compare_core end to end (see compare_run.h).
#include "msprobe/compare/compare_run.h"

#include <future>

#include "compare/mapping/mapped_match.h"
#include "compare/matching/dump_mode.h"
#include "compare/matching/dump_parse.h"
#include "compare/matching/joined_match.h"
#include "compare/matching/ordered_match.h"
#include "compare/matching/result_rows.h"
#include "compare/matching/unmatched_rows.h"
#include "compare/metrics/highlight.h"
#include "compare/metrics/tensor_phase.h"
#include "msprobe/base/error.h"
#include "msprobe/base/path.h"
#include "msprobe/compare/compare_const.h"

namespace msprobe {
namespace compare {

namespace {

// Both dumps parsed and matched; the parsed entries live only in here, so the tensor phase runs
// with the table alone in memory.
struct Matched {
  CompareMode mode = CompareMode::kStatistics;
  std::vector<Row> rows;
  std::vector<std::string> notes;
  std::string npu_folder, bench_folder;
};

Matched read_and_match(const std::string& npu_dump_json, const std::string& bench_dump_json,
                       const CompareOptions& options, bool mindspore, const ProgressFn& progress) {
  Matched m;
  StackMap stack;
  std::string stack_note;
  if (options.stack_mode) {
    const std::string path =
        options.stack_path.empty() ? folder_of(npu_dump_json) + "/stack.json" : options.stack_path;
    stack = load_stack_map(path, &stack_note);
  }
  const StackMap* stack_ptr = options.stack_mode ? &stack : nullptr;
  // The two dumps are parsed at the same time when more than one thread is allowed (parsing is
  // a seventh of a large statistics compare). An error of the NPU dump is still the one raised.
  std::future<ParsedDump> bench_parsed;
  if (options.threads != 1)
    bench_parsed = std::async(std::launch::async, [&] { return parse_dump(bench_dump_json, stack_ptr); });
  ParsedDump npu = parse_dump(npu_dump_json, stack_ptr);
  ParsedDump bench = bench_parsed.valid() ? bench_parsed.get() : parse_dump(bench_dump_json, stack_ptr);
  m.mode = detect_mode(npu, bench);
  m.npu_folder = npu.folder;
  m.bench_folder = bench.folder;
  for (const std::string& note : {npu.repair_note, bench.repair_note, stack_note})
    if (!note.empty()) m.notes.push_back(note);

  NameMapper* mapper = options.name_mapper.get();
  if (mapper && mapper->data_mapping()) {
    mapped_match(npu, bench, *mapper->data_mapping(), m.mode, m.rows);
    finish_rows(m.rows, m.mode, options.stack_mode);
  } else if (mindspore) {
    JoinedMatchOptions opt;
    opt.mode = m.mode;
    opt.stack_mode = options.stack_mode;
    opt.cross_framework = mapper && mapper->maps_names();
    opt.mapper = mapper;
    joined_match(npu, bench, opt, m.rows);
  } else {
    OrderedMatchOptions opt;
    opt.mode = m.mode;
    opt.fuzzy = options.fuzzy_match;
    if (progress)  // every 256 entries: a Python callback per entry would cost more than the read
      opt.progress = [&](size_t d, size_t t) {
        if (d % 256 == 0 || d == t) progress("read", d, t);
      };
    ordered_match(npu, bench, opt, m.rows);
    finish_rows(m.rows, m.mode, options.stack_mode);
  }
  const std::string unmatched = unmatched_rows_line(m.rows, npu, bench);
  if (!unmatched.empty()) m.notes.push_back(unmatched);
  return m;
}

}  // namespace

CompareTable compare_dumps(const std::string& npu_dump_json, const std::string& bench_dump_json,
                           const CompareOptions& options, ProgressFn progress) {
  const bool mindspore = options.framework == "mindspore";
  if (!mindspore && options.framework != "pytorch")
    throw InvalidInput("compare: framework must be \"pytorch\" or \"mindspore\", got \"" + options.framework +
                       "\"");
  Matched m = read_and_match(npu_dump_json, bench_dump_json, options, mindspore, progress);
  CompareTable table;
  table.mode = m.mode;
  table.stack_mode = options.stack_mode;
  table.header = table_header(table.mode, options.stack_mode);
  table.notes = std::move(m.notes);
  if (m.rows.empty()) return table;  // 1.2.1: "Can`t match any op." (no file written)

  if (table.mode == CompareMode::kTensor) {
    TensorPhaseInput in;
    in.npu_tensor_dir = m.npu_folder + "/dump_tensor_data";
    in.bench_tensor_dir = m.bench_folder + "/dump_tensor_data";
    in.bench_dump_json = bench_dump_json;
    in.npu_suffix = mindspore ? ".npy" : ".pt";
    in.pt_files_only = !mindspore;
    in.fuzzy = options.fuzzy_match;
    in.threads = options.threads;
    if (progress) in.progress = [&](size_t d, size_t t) { progress("compare", d, t); };
    run_tensor_phase(m.rows, table.header, in, &table.relative_l2_error);
  }
  table.rows = std::move(m.rows);
  apply_highlight(table);
  return table;
}

}  // namespace compare
}  // namespace msprobe
