// Writes the compare report of a synthetic statistics-mode table of N rows (default 200000):
// a decoder-like run of layers x APIs, forward then backward, each entry with two inputs and one
// output, a module tree in construct.json form, deduplicated stacks, one injected fault. Used by
// bench/report_bench.py, which opens the page in headless chromium.
//   report_bench OUT.html [ROWS] [RANKS]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "msprobe/compare/divergence.h"
#include "msprobe/report/compare_report.h"

using namespace msprobe;
using compare::Cell;

static std::string pct(double v) { char b[64]; std::snprintf(b, sizeof b, "%.17g%%", v); return b; }

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: report_bench OUT.html [ROWS] [RANKS]\n"); return 2; }
  const size_t rows_wanted = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 200000;
  const int ranks = argc > 3 ? std::atoi(argv[3]) : 1;
  const char* apis[] = {"Functional.linear", "Functional.layer_norm", "Torch.matmul", "Functional.gelu",
                        "Tensor.__add__", "Functional.softmax", "Tensor.view", "Torch.cat"};
  auto t0 = std::chrono::steady_clock::now();
  std::vector<compare::CompareTable> tables(ranks);
  std::vector<std::vector<std::pair<std::string, std::string>>> constructs(ranks);
  std::vector<std::unordered_map<std::string, std::vector<std::string>>> stacks(ranks);
  std::vector<std::vector<compare::Suspect>> suspects(ranks);
  for (int rk = 0; rk < ranks; ++rk) {
    std::mt19937_64 rng(42 + rk);
    std::normal_distribution<double> noise(0, 1);
    compare::CompareTable& t = tables[rk];
    t.header = {"NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape",
                "Bench Tensor Shape", "Max diff", "Min diff", "Mean diff", "L2norm diff",
                "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr",
                "NPU max", "NPU min", "NPU mean", "NPU l2norm", "Bench max", "Bench min",
                "Bench mean", "Bench l2norm", "Result", "Err_message"};
    std::unordered_map<std::string, int> counters;
    size_t entry = 0;
    double drift = 1e-6;
    const size_t fault_at = rows_wanted / 3;
    for (int pass = 0; pass < 2 && t.rows.size() < rows_wanted; ++pass) {
      const char* dir = pass == 0 ? "forward" : "backward";
      for (int layer = 0; t.rows.size() < rows_wanted * (pass + 1) / 2; ++layer) {
        std::string block = "Module.layers." + std::to_string(layer) + ".Block." + dir + ".0";
        constructs[rk].emplace_back(block, "");
        for (int k = 0; k < 24 && t.rows.size() < rows_wanted * (pass + 1) / 2; ++k, ++entry) {
          std::string api = apis[(layer * 7 + k) % 8];
          std::string name = api + "." + std::to_string(counters[api + dir]++) + "." + dir;
          constructs[rk].emplace_back(name, block);
          stacks[rk][name] = {"File model.py, line " + std::to_string(100 + k) + ", in forward, \n x = " + api + "(x)",
                              "File train.py, line 42, in step, \n loss = model(batch)"};
          if (t.rows.size() >= fault_at && drift < 1e-3) drift = 1e-2;  // the fault
          for (int io = 0; io < 3; ++io) {
            std::string row = name + (io < 2 ? ".input." + std::to_string(io) : ".output.0");
            double n[4], b[4];
            for (int s = 0; s < 4; ++s) {
              b[s] = std::fabs(noise(rng)) * 10 + 0.1;
              n[s] = b[s] * (1 + (io == 2 ? drift : drift / 2) * noise(rng));
            }
            std::vector<Cell> cells = {Cell::str(row), Cell::str(row), Cell::str("torch.bfloat16"),
                                       Cell::str("torch.float32"), Cell::str("[8, 2048, 4096]"),
                                       Cell::str("[8, 2048, 4096]")};
            for (int s = 0; s < 4; ++s) cells.push_back(Cell::num(n[s] - b[s]));
            for (int s = 0; s < 4; ++s) cells.push_back(Cell::str(pct(std::fabs((n[s] - b[s]) / b[s]) * 100)));
            for (int s = 0; s < 4; ++s) cells.push_back(Cell::num(n[s]));
            for (int s = 0; s < 4; ++s) cells.push_back(Cell::num(b[s]));
            bool warn = std::fabs(n[3] - b[3]) / b[3] > 0.005;
            cells.push_back(Cell::str(warn ? "Warning" : ""));
            cells.push_back(Cell::str(warn ? "Need double check api accuracy." : ""));
            t.rows.push_back(std::move(cells));
            t.fills.push_back(warn ? compare::Fill::kYellow : compare::Fill::kNone);
          }
        }
      }
    }
    std::unordered_map<std::string, std::string> parents(constructs[rk].begin(), constructs[rk].end());
    compare::DivergenceContext ctx;
    ctx.rank = ranks > 1 ? rk : -1;
    ctx.stacks = &stacks[rk];
    ctx.parents = &parents;
    suspects[rk] = compare::find_suspects(t, ctx);
  }
  auto t1 = std::chrono::steady_clock::now();
  std::clock_t c1 = std::clock();
  report::ReportInput in;
  in.title = "report benchmark: " + std::to_string(rows_wanted) + " rows";
  in.runs = {{"NPU", "npu", "pytorch", "L1", "statistics"}, {"Bench", "bench", "pytorch", "L1", "statistics"}};
  for (int rk = 0; rk < ranks; ++rk) {
    report::RankInput r;
    r.rank = ranks > 1 ? rk : -1;
    r.table = &tables[rk];
    r.construct = &constructs[rk];
    r.stacks = &stacks[rk];
    r.suspects = &suspects[rk];
    in.ranks.push_back(r);
  }
  std::string html = report::render_compare_report(in);
  report::write_report_file(argv[1], html);
  auto t2 = std::chrono::steady_clock::now();
  double render_cpu = (double)(std::clock() - c1) / CLOCKS_PER_SEC;
  size_t entries = 0;
  for (auto& c : constructs) entries += c.size();
  std::printf("{\"rows\": %zu, \"entries\": %zu, \"ranks\": %d, \"bytes\": %zu, \"table_s\": %.3f, \"render_s\": %.3f, \"render_cpu_s\": %.3f}\n",
              tables[0].rows.size() * ranks, entries, ranks, html.size(),
              std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(), render_cpu);
  return 0;
}
