// compare_dumps: 1.2.1's compare_core end to end (see compare_run.h).
#include "msprobe/compare/compare_run.h"

#include "compare_const.h"
#include "dump_mode.h"
#include "dump_parse.h"
#include "highlight.h"
#include "msprobe/base/error.h"
#include "ordered_match.h"
#include "result_rows.h"
#include "tensor_phase.h"

namespace msprobe {
namespace compare {

namespace {

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash == 0 ? 1 : slash);
}

}  // namespace

CompareTable compare_dumps(const std::string& npu_dump_json, const std::string& bench_dump_json,
                           const CompareOptions& options, ProgressFn progress) {
  const bool mindspore = options.framework == "mindspore";
  if (!mindspore && options.framework != "pytorch")
    throw InvalidInput("compare: framework must be \"pytorch\" or \"mindspore\", got \"" +
                       options.framework + "\"");
  StackMap stack;
  if (options.stack_mode) {
    const std::string path =
        options.stack_path.empty() ? folder_of(npu_dump_json) + "/stack.json" : options.stack_path;
    stack = load_stack_map(path);
  }
  const StackMap* stack_ptr = options.stack_mode ? &stack : nullptr;
  const ParsedDump npu = parse_dump(npu_dump_json, stack_ptr);
  const ParsedDump bench = parse_dump(bench_dump_json, stack_ptr);

  CompareTable table;
  table.mode = detect_mode(npu, bench);
  table.stack_mode = options.stack_mode;
  table.header = table_header(table.mode, options.stack_mode);

  NameMapper* mapper = options.name_mapper.get();
  const bool custom = mapper && mapper->data_mapping();
  std::vector<Row> rows;
  if (custom || mindspore) {
    throw InvalidInput("compare: MindSpore and data-mapping compare are not implemented yet");
  } else {
    OrderedMatchOptions opt;
    opt.mode = table.mode;
    opt.fuzzy = options.fuzzy_match;
    if (progress) opt.progress = [&](size_t d, size_t t) { progress("read", d, t); };
    ordered_match(npu, bench, opt, rows);
    finish_rows(rows, table.mode, options.stack_mode);
  }
  if (rows.empty()) return table;  // 1.2.1: "Can`t match any op." (no file written)

  if (table.mode == CompareMode::kTensor) {
    TensorPhaseInput in;
    in.npu_tensor_dir = npu.folder + "/dump_tensor_data";
    in.bench_tensor_dir = bench.folder + "/dump_tensor_data";
    in.bench_dump_json = bench_dump_json;
    in.npu_suffix = mindspore ? ".npy" : ".pt";
    in.pt_files_only = !mindspore;
    in.fuzzy = options.fuzzy_match;
    in.threads = options.threads;
    if (progress) in.progress = [&](size_t d, size_t t) { progress("compare", d, t); };
    run_tensor_phase(rows, table.header, in);
  }
  table.rows = std::move(rows);
  apply_highlight(table);
  return table;
}

}  // namespace compare
}  // namespace msprobe
