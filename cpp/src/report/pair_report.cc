#include "msprobe/report/pair_report.h"

#include <memory>

#include "msprobe/base/error.h"
#include "msprobe/compare/divergence.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/side_files.h"
#include "msprobe/report/compare_report.h"
#include "dump_parts.h"

namespace msprobe {
namespace report {
namespace {

struct ComparedPart {
  compare::CompareTable table;
  std::vector<std::pair<std::string, std::string>> construct;
  std::unordered_map<std::string, std::string> parents;
  std::unordered_map<std::string, std::vector<std::string>> stacks;
  std::vector<compare::Suspect> suspects;
  bool has_construct = false, has_stacks = false;
};

RunInfo run_info(const std::string& label, const std::string& path, const std::string& dump_json) {
  reader::DumpJsonReader r(dump_json);
  return {label, path, r.header().framework, r.header().level, r.header().task};
}

}  // namespace

std::string render_pair_report(const std::string& npu_path, const std::string& bench_path,
                               const compare::CompareOptions& options, const std::string& title) {
  std::vector<DumpPart> npu = find_dump_parts(npu_path), bench = find_dump_parts(bench_path);
  std::vector<std::pair<DumpPart, DumpPart>> pairs;
  if (npu.size() == 1 && bench.size() == 1) {
    pairs.emplace_back(npu[0], bench[0]);
  } else {
    for (const DumpPart& n : npu)
      for (const DumpPart& b : bench)
        if (n.rank == b.rank && n.step == b.step) pairs.emplace_back(n, b);
  }
  if (pairs.empty())
    throw InvalidInput("report: no step/rank folder of " + npu_path + " has a counterpart in " + bench_path);

  std::vector<std::unique_ptr<ComparedPart>> parts;
  ReportInput in;
  in.title = title.empty() ? "msprobe compare report" : title;
  in.runs = {run_info("NPU", npu_path, pairs[0].first.dump_json),
             run_info("Bench", bench_path, pairs[0].second.dump_json)};
  for (const auto& [n, b] : pairs) {
    auto c = std::make_unique<ComparedPart>();
    c->table = compare::compare_dumps(n.dump_json, b.dump_json, options);
    const std::string dir = folder_of(n.dump_json);
    if (is_regular_file(dir + "/construct.json")) {
      c->construct = reader::read_construct_json(dir + "/construct.json", nullptr);
      c->parents.insert(c->construct.begin(), c->construct.end());
      c->has_construct = true;
    }
    if (is_regular_file(dir + "/stack.json")) {
      c->stacks = reader::read_stack_json(dir + "/stack.json", nullptr);
      c->has_stacks = true;
    }
    compare::DivergenceContext ctx;
    ctx.rank = n.rank;
    ctx.step = n.step;
    ctx.stacks = c->has_stacks ? &c->stacks : nullptr;
    ctx.parents = c->has_construct ? &c->parents : nullptr;
    c->suspects = compare::find_suspects(c->table, ctx);
    RankInput r;
    r.rank = n.rank;
    r.step = n.step;
    r.table = &c->table;
    r.suspects = &c->suspects;
    r.construct = c->has_construct ? &c->construct : nullptr;
    r.stacks = c->has_stacks ? &c->stacks : nullptr;
    in.ranks.push_back(r);
    parts.push_back(std::move(c));
  }
  return render_compare_report(in);
}

}  // namespace report
}  // namespace msprobe
