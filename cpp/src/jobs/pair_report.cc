#include "msprobe/jobs/pair_report.h"

#include <memory>

#include "msprobe/base/error.h"
#include "msprobe/report/compare_report.h"
#include "msprobe/report/compared_rank.h"
#include "msprobe/report/dump_parts.h"

namespace msprobe {
namespace report {

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

  std::vector<std::unique_ptr<ComparedRank>> parts;
  ReportInput in;
  in.title = title.empty() ? "msprobe compare report" : title;
  in.runs = {run_info("NPU", npu_path, pairs[0].first.dump_json),
             run_info("Bench", bench_path, pairs[0].second.dump_json)};
  for (const auto& [n, b] : pairs) {
    auto c = std::make_unique<ComparedRank>();
    c->rank = n.rank;
    c->step = n.step;
    c->table = compare::compare_dumps(n.dump_json, b.dump_json, options);
    find_rank_divergence(c.get(), n.dump_json, nullptr);
    in.ranks.push_back(rank_input(*c));
    parts.push_back(std::move(c));
  }
  return render_compare_report(in);
}

}  // namespace report
}  // namespace msprobe
