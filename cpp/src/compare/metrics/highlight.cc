// 1.2.1's highlight rules (see highlight.h).
#include "highlight.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compare/matching/merged_op.h"
#include "msprobe/compare/compare_const.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace compare {

namespace {

constexpr double kFloatEps = 2.220446049250313e-16;
constexpr double kMaxDiffRed = 1e+10;
constexpr double kOrderMagnitudeDiffYellow = 1;
constexpr double kOneThousandErrorInRed = 0.9;
constexpr double kOneThousandErrorOutRed = 0.6;
constexpr double kOneThousandErrorDiffYellow = 0.1;
constexpr double kCosineDiffYellow = 0.1;
constexpr double kMaxRelativeOutRed = 0.5;
constexpr double kMaxRelativeOutYellow = 0.1;
constexpr double kMaxRelativeInYellow = 0.01;

using Lines = std::vector<std::pair<size_t, std::vector<std::string>>>;

void add_line(Lines& lines, size_t num, const char* msg) {
  for (auto& l : lines)
    if (l.first == num) {
      l.second.push_back(msg);
      return;
    }
  lines.push_back({num, {msg}});
}

// isinstance(x, (float, int)): numbers and bools.
bool numeric(const Cell& c) { return c.is_number() || c.is_bool(); }

struct Columns {
  int npu_max, npu_min, bench_max, max_diff, one_thousandth, cosine;
};

struct Batch {
  std::string api;
  size_t start;
  size_t params_end, output_end, params_grad_end;
};

bool has_direction(const std::string& name) {
  return name.find(".forward.") != std::string::npos || name.find(".backward.") != std::string::npos;
}

void increment(Batch& b, State st) {
  switch (st) {
    case State::kInput:
    case State::kKwargs:
      ++b.params_end;
      ++b.output_end;
      break;
    case State::kParams:
      ++b.params_end;
      ++b.output_end;
      break;
    case State::kOutput: ++b.output_end; break;
    case State::kParamsGrad: break;
  }
  ++b.params_grad_end;
}

void check_overflow(const std::vector<Cell>& line, size_t num, const Columns& c, Lines& red) {
  auto overflow = [](const Cell& x) {
    const std::string s = cell_str(x);
    return s == "nan\t" || s == "inf\t" || s == "-inf\t" || s == "nan" || s == "inf" || s == "-inf";
  };
  if (overflow(line[c.npu_max]) || overflow(line[c.npu_min])) {
    add_line(red, num, "maximum or minimum is nan, -inf, or inf");
    return;
  }
  const Cell& d = line[c.max_diff];
  if (numeric(d) && std::fabs(d.d) > kMaxDiffRed) add_line(red, num, "maximum absolute error exceeds 1e+10");
}

void check_order_magnitude(const std::vector<Cell>& in, const std::vector<Cell>& out, size_t num,
                           const Columns& c, Lines& yellow) {
  const double a = std::fabs(in[c.max_diff].d), b = std::fabs(out[c.max_diff].d);
  if (a > b) return;
  const double in_order = a < 1 ? 0 : std::log10(a);
  const double out_order = b < 1 ? 0 : std::log10(b);
  if (out_order - in_order >= kOrderMagnitudeDiffYellow)
    add_line(yellow, num,
             "maximum absolute error of both input/parameters and output exceed 1, with the output "
             "larger by an order of magnitude");
}

void check_one_thousand(const std::vector<Cell>& in, const std::vector<Cell>& out, size_t num,
                        const Columns& c, Lines& red, Lines& yellow) {
  const Cell& a = in[c.one_thousandth];
  const Cell& b = out[c.one_thousandth];
  if (!numeric(a) || !numeric(b)) return;
  if (a.d > kOneThousandErrorInRed && b.d < kOneThousandErrorOutRed) {
    add_line(red, num,
             "The input/parameters's one thousandth err ratio exceeds 0.9, while the output's is "
             "below 0.6");
  } else if (a.d - b.d > kOneThousandErrorDiffYellow) {
    add_line(yellow, num,
             "The output's one thousandth err ratio decreases by more than 0.1 compared to the "
             "input/parameters's");
  }
}

void check_cosine(const std::vector<Cell>& in, const std::vector<Cell>& out, size_t num, const Columns& c,
                  Lines& yellow) {
  const Cell& a = in[c.cosine];
  const Cell& b = out[c.cosine];
  if (!numeric(a) || !numeric(b)) return;
  if (a.d - b.d > kCosineDiffYellow)
    add_line(yellow, num,
             "The output's cosine decreases by more than 0.1 compared to the input/parameters's");
}

void check_max_relative(const std::vector<Cell>& in, const std::vector<Cell>& out, size_t num,
                        const Columns& c, Lines& red, Lines& yellow) {
  // Python max(eps, x): x when x > eps, else eps (also for NaN)
  auto denom = [](double x) { return x > kFloatEps ? x : kFloatEps; };
  const double in_rel = std::fabs(in[c.max_diff].d / denom(in[c.bench_max].d));
  const double out_rel = std::fabs(out[c.max_diff].d / denom(out[c.bench_max].d));
  if (out_rel > kMaxRelativeOutRed) {
    add_line(red, num, "maximum relative error exceeds 0.5");
  } else if (out_rel > kMaxRelativeOutYellow && in_rel < kMaxRelativeInYellow) {
    add_line(yellow, num,
             "The output's maximum relative error exceeds 0.1, while the input/parameters's is "
             "below 0.01");
  }
}

}  // namespace

void apply_highlight(CompareTable& table) {
  table.fills.assign(table.rows.size(), Fill::kNone);
  if (table.mode == CompareMode::kMd5) return;
  const CompareMode mode = table.mode;
  const bool summary = mode == CompareMode::kStatistics;
  Columns c;
  c.npu_max = header_index(mode, k::kNpuMax);
  c.npu_min = header_index(mode, k::kNpuMin);
  c.bench_max = header_index(mode, k::kBenchMax);
  c.max_diff = header_index(mode, summary ? k::kMaxDiff : k::kMaxAbsErr);
  c.one_thousandth = header_index(mode, k::kOneThousandth);
  c.cosine = header_index(mode, k::kCosine);
  const int err_col = header_index(mode, k::kErrorMessage);

  // api_batches_update
  std::vector<Batch> batches;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const NameState ns = get_name_and_state(cell_str(table.rows[i][0]));
    if (!batches.empty()) {
      Batch& b = batches.back();
      if (b.api == ns.api || (!has_direction(ns.api) && b.api.find(ns.api) != std::string::npos)) {
        increment(b, ns.state);
        continue;
      }
    }
    batches.push_back({ns.api, i, i + 1, i + 1, i + 1});  // the first row counts as an input
  }

  Lines all_red, all_yellow;
  std::set<size_t> red_rows, yellow_rows;
  for (const Batch& b : batches) {
    Lines red, yellow;
    for (size_t i = b.start; i < b.params_grad_end; ++i) check_overflow(table.rows[i], i, c, red);
    auto numeric_row = [&](const std::vector<Cell>& r) {
      return numeric(r[c.npu_max]) && numeric(r[c.bench_max]) && numeric(r[c.max_diff]);
    };
    for (size_t o = b.params_end; o < b.output_end; ++o) {
      const auto& out = table.rows[o];
      if (!numeric_row(out)) continue;
      for (size_t in_i = b.start; in_i < b.params_end; ++in_i) {
        const auto& in = table.rows[in_i];
        if (!numeric_row(in)) continue;
        check_order_magnitude(in, out, o, c, yellow);
        if (summary) {
          check_max_relative(in, out, o, c, red, yellow);
        } else {
          check_one_thousand(in, out, o, c, red, yellow);
          check_cosine(in, out, o, c, yellow);
        }
      }
    }
    std::set<size_t> batch_red;
    for (const auto& l : red) batch_red.insert(l.first);
    red_rows.insert(batch_red.begin(), batch_red.end());
    for (const auto& l : yellow)
      if (!batch_red.count(l.first)) yellow_rows.insert(l.first);
    all_red.insert(all_red.end(), red.begin(), red.end());
    all_yellow.insert(all_yellow.end(), yellow.begin(), yellow.end());
  }

  // update_highlight_err_msg: red lines first, then yellow lines not already red.
  auto append_msgs = [&](const Lines& lines, bool skip_red) {
    for (const auto& l : lines) {
      if (skip_red && red_rows.count(l.first)) continue;
      Cell& err = table.rows[l.first][err_col];
      for (const auto& msg : l.second) {
        if (cell_str(err).empty()) {
          err = Cell::str(msg);
        } else {
          err = Cell::str(cell_str(err) + "\n" + msg);
        }
      }
    }
  };
  append_msgs(all_red, false);
  append_msgs(all_yellow, true);

  for (size_t r : red_rows) table.fills[r] = Fill::kRed;
  for (size_t y : yellow_rows) table.fills[y] = Fill::kYellow;
}

}  // namespace compare
}  // namespace msprobe
