#include "msprobe/compare/divergence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_set>

#include "msprobe/base/strings.h"
#include "msprobe/compare/row_name.h"

namespace msprobe {
namespace compare {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTiny = 1e-30;

// Column positions of the table, -1 when the mode has no such column.
struct Columns {
  int npu_name = -1, bench_name = -1, npu_dtype = -1, npu_shape = -1;
  int npu_max = -1, npu_min = -1, npu_mean = -1, npu_norm = -1;
  int bench_max = -1, bench_min = -1, bench_mean = -1, bench_norm = -1;
  int cosine = -1, npu_md5 = -1, bench_md5 = -1;
  std::vector<int> metrics;  // columns copied into a suspect's rows

  explicit Columns(const std::vector<std::string>& header) {
    static const char* kMetricNames[] = {"Cosine",
                                         "MaxAbsErr",
                                         "MaxRelativeErr",
                                         "One Thousandth Err Ratio",
                                         "Five Thousandths Err Ratio",
                                         "Max diff",
                                         "Min diff",
                                         "Mean diff",
                                         "L2norm diff",
                                         "MinRelativeErr",
                                         "MeanRelativeErr",
                                         "NormRelativeErr",
                                         "NPU max",
                                         "NPU min",
                                         "NPU mean",
                                         "NPU l2norm",
                                         "Bench max",
                                         "Bench min",
                                         "Bench mean",
                                         "Bench l2norm",
                                         "NPU MD5",
                                         "BENCH MD5",
                                         "Result",
                                         "Accuracy Reached or Not",
                                         "Err_message"};
    for (int i = 0; i < (int)header.size(); ++i) {
      const std::string& h = header[i];
      if (h == "NPU Name")
        npu_name = i;
      else if (h == "Bench Name")
        bench_name = i;
      else if (h == "NPU Dtype")
        npu_dtype = i;
      else if (h == "NPU Tensor Shape")
        npu_shape = i;
      else if (h == "NPU max")
        npu_max = i;
      else if (h == "NPU min")
        npu_min = i;
      else if (h == "NPU mean")
        npu_mean = i;
      else if (h == "NPU l2norm")
        npu_norm = i;
      else if (h == "Bench max")
        bench_max = i;
      else if (h == "Bench min")
        bench_min = i;
      else if (h == "Bench mean")
        bench_mean = i;
      else if (h == "Bench l2norm")
        bench_norm = i;
      else if (h == "Cosine")
        cosine = i;
      else if (h == "NPU MD5")
        npu_md5 = i;
      else if (h == "BENCH MD5")
        bench_md5 = i;
      for (const char* m : kMetricNames)
        if (h == m) metrics.push_back(i);
    }
  }
};

const Cell* cell_at(const std::vector<Cell>& row, int col) {
  return col >= 0 && col < (int)row.size() ? &row[col] : nullptr;
}

std::string text_of(const std::vector<Cell>& row, int col) {
  const Cell* c = cell_at(row, col);
  return c && c->kind == Cell::Kind::kString ? c->s : std::string();
}

// A cell as a number: numbers, booleans, and the strings "inf", "-inf", "nan" that stand for
// them; NaN for anything else ("N/A", "unsupported", empty).
double number_of(const std::vector<Cell>& row, int col) {
  const Cell* c = cell_at(row, col);
  if (!c) return kNaN;
  switch (c->kind) {
    case Cell::Kind::kNumber: return c->d;
    case Cell::Kind::kBool: return c->d;
    case Cell::Kind::kString: {
      const std::string s = to_lower(c->s);
      if (s == "inf" || s == "infinity") return HUGE_VAL;
      if (s == "-inf" || s == "-infinity") return -HUGE_VAL;
      if (s == "true") return 1;
      if (s == "false") return 0;
      return kNaN;
    }
    default: return kNaN;
  }
}

bool is_known(const std::vector<Cell>& row, int col) {
  const Cell* c = cell_at(row, col);
  if (!c) return false;
  if (c->kind == Cell::Kind::kNumber || c->kind == Cell::Kind::kBool) return true;
  if (c->kind != Cell::Kind::kString) return false;
  const std::string s = to_lower(c->s);
  return s == "inf" || s == "-inf" || s == "nan" || s == "infinity" || s == "-infinity" || s == "true" ||
         s == "false";
}

bool is_nan_text(const std::vector<Cell>& row, int col) {
  const Cell* c = cell_at(row, col);
  if (!c) return false;
  if (c->kind == Cell::Kind::kNumber) return std::isnan(c->d);
  if (c->kind != Cell::Kind::kString) return false;
  const std::string s = to_lower(c->s);
  return s == "nan";
}

// Difference of two statistics where equal non-finite values (nan and nan, inf and inf) agree.
double stat_diff(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isinf(a) && std::isinf(b) && (a > 0) == (b > 0)) return 0;
  return std::fabs(a - b);
}

// Unit roundoff of a dump dtype name ("torch.float32", "Float16", "<class 'int'>"); 0 for
// integer, boolean and other exact types.
double unit_roundoff(const std::string& dtype) {
  const std::string d = to_lower(dtype);
  if (d.find("bfloat16") != std::string::npos) return 0x1p-8;
  if (d.find("float16") != std::string::npos || d.find("half") != std::string::npos) return 0x1p-11;
  if (d.find("float64") != std::string::npos || d.find("double") != std::string::npos) return 0x1p-53;
  if (d.find("float") != std::string::npos) return 0x1p-24;  // float32, <class 'float'>
  if (d.find("complex") != std::string::npos) return 0x1p-24;
  return 0;
}

int64_t numel_of_shape(const std::string& shape) {
  // a shape comes from a user's file: sizes and their product saturate instead of overflowing
  constexpr int64_t kCap = int64_t(1) << 62;
  auto times = [](int64_t a, int64_t b) { return (b != 0 && a > kCap / b) ? kCap : a * b; };
  int64_t n = 1;
  bool any = false;
  int64_t cur = -1;
  for (char ch : shape) {
    if (ch >= '0' && ch <= '9') {
      cur = std::min(kCap, times(cur < 0 ? 0 : cur, 10) + (ch - '0'));
    } else if (cur >= 0) {
      n = times(n, cur);
      any = true;
      cur = -1;
    }
  }
  if (cur >= 0) {
    n = times(n, cur);
    any = true;
  }
  return any ? n : 1;  // "[]" is a scalar
}

// The relative error of one matched row, or NaN when the row cannot be judged.
double row_error(const CompareTable& table, const Columns& col, const DivergenceContext& ctx, size_t r,
                 bool* nonfinite_npu, bool* nonfinite_bench) {
  const std::vector<Cell>& row = table.rows[r];
  *nonfinite_npu = *nonfinite_bench = false;
  std::string bench = text_of(row, col.bench_name);
  if (bench.empty() || bench == "N/A") return kNaN;  // unmatched

  if (table.mode == CompareMode::kMd5) {
    std::string a = text_of(row, col.npu_md5), b = text_of(row, col.bench_md5);
    if (a.empty() || b.empty() || b == "N/A") return kNaN;
    return a == b ? 0.0 : 1.0;
  }

  double n[4] = {number_of(row, col.npu_max), number_of(row, col.npu_min), number_of(row, col.npu_mean),
                 number_of(row, col.npu_norm)};
  double b[4] = {number_of(row, col.bench_max), number_of(row, col.bench_min), number_of(row, col.bench_mean),
                 number_of(row, col.bench_norm)};
  for (int i = 0; i < 2; ++i) {
    if (!std::isfinite(n[i]) && (is_known(row, i == 0 ? col.npu_max : col.npu_min) ||
                                 is_nan_text(row, i == 0 ? col.npu_max : col.npu_min)))
      *nonfinite_npu = true;
    if (!std::isfinite(b[i]) && (is_known(row, i == 0 ? col.bench_max : col.bench_min) ||
                                 is_nan_text(row, i == 0 ? col.bench_max : col.bench_min)))
      *nonfinite_bench = true;
  }

  if (table.mode == CompareMode::kTensor) {
    // Tensor mode: the table's ||npu - bench|| / ||bench||; without it (a table built elsewhere)
    // the error is rebuilt from Cosine and the two l2norms (coarse: Cosine is rounded).
    if (r < table.relative_l2_error.size() && !std::isnan(table.relative_l2_error[r]))
      return table.relative_l2_error[r];
    double cos = number_of(row, col.cosine);
    if (std::isfinite(cos) && std::isfinite(n[3]) && std::isfinite(b[3]) && b[3] > 0) {
      double ratio = n[3] / b[3];
      return std::sqrt(std::max(0.0, ratio * ratio + 1 - 2 * ratio * cos));
    }
    // Fall through to the statistics when the tensors could not be compared.
  }

  int64_t numel = numel_of_shape(text_of(row, col.npu_shape));
  bool have_norm = std::isfinite(n[3]) && std::isfinite(b[3]);
  double e = 0;
  bool any = false;
  if (have_norm) {
    double denom = std::max({std::fabs(n[3]), std::fabs(b[3]), kTiny});
    e = std::max(e, stat_diff(n[3], b[3]) / denom);
    any = true;
  }
  double rms =
      have_norm ? std::max(std::fabs(n[3]), std::fabs(b[3])) / std::sqrt((double)std::max<int64_t>(numel, 1))
                : 0;
  for (int i = 0; i < 3; ++i) {
    bool n_known = !std::isnan(n[i]) || is_nan_text(row, i == 0   ? col.npu_max
                                                         : i == 1 ? col.npu_min
                                                                  : col.npu_mean);
    bool b_known = !std::isnan(b[i]) || is_nan_text(row, i == 0   ? col.bench_max
                                                         : i == 1 ? col.bench_min
                                                                  : col.bench_mean);
    if (!n_known || !b_known) continue;
    double scale = have_norm ? rms : std::max(std::fabs(b[i]), std::fabs(n[i]));
    double d = stat_diff(n[i], b[i]);
    if (d == 0) {
      any = true;
      continue;
    }
    e = std::max(e, std::isfinite(d) ? d / std::max(scale, kTiny) : HUGE_VAL);
    any = true;
  }
  return any ? e : kNaN;
}

struct EntryAcc {
  std::string name;
  size_t order = 0;
  bool forward = true;
  bool params_grad = false;
  std::vector<size_t> in_rows, out_rows;
  double e_in = 0, e_out = -1;
  bool any_in = false, any_out = false;
  bool in_nonfinite = false, out_nonfinite = false, out_floating = false;
  double roundoff = 0;
  double amplification = 0;
};

// Fewer entries with floating outputs than this: the noise model is not fitted on the table.
constexpr size_t kMinEntriesForNoiseFit = 8;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  return v[mid];
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

void fill_rows(const CompareTable& table, const Columns& col, const std::vector<size_t>& rows,
               const std::vector<double>& errors, std::vector<SuspectRow>* out) {
  for (size_t r : rows) {
    SuspectRow sr;
    sr.name = text_of(table.rows[r], col.npu_name);
    sr.error = errors[r];
    for (int c : col.metrics) {
      const Cell* cell = cell_at(table.rows[r], c);
      if (cell) sr.metrics.emplace_back(table.header[c], *cell);
    }
    out->push_back(std::move(sr));
  }
}

std::vector<std::string> module_path_of(const std::string& entry, const DivergenceContext& ctx) {
  std::vector<std::string> path;
  if (!ctx.parents) return path;
  std::unordered_set<std::string> seen{entry};
  auto it = ctx.parents->find(entry);
  while (it != ctx.parents->end() && !it->second.empty() && seen.insert(it->second).second) {
    path.push_back(it->second);
    it = ctx.parents->find(it->second);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

bool nested_in(const Suspect& inner, const Suspect& outer) {
  if (inner.rank != outer.rank || inner.step != outer.step) return false;
  for (const std::string& m : inner.module_path)
    if (m == outer.name) return true;
  return false;
}

}  // namespace

std::vector<double> row_relative_errors(const CompareTable& table, const DivergenceContext& ctx) {
  Columns col(table.header);
  std::vector<double> errors(table.rows.size(), kNaN);
  for (size_t r = 0; r < table.rows.size(); ++r) {
    bool nf_npu = false, nf_bench = false;
    errors[r] = row_error(table, col, ctx, r, &nf_npu, &nf_bench);
  }
  return errors;
}

std::vector<Suspect> find_suspects(const CompareTable& table, const DivergenceContext& ctx) {
  Columns col(table.header);
  std::vector<Suspect> out;
  if (col.npu_name < 0) return out;

  // Group the rows by dump entry, in NPU dump order.
  std::vector<EntryAcc> entries;
  std::unordered_map<std::string, size_t> index;
  std::vector<double> errors(table.rows.size(), kNaN);
  for (size_t r = 0; r < table.rows.size(); ++r) {
    RowName rn = split_row_name(text_of(table.rows[r], col.npu_name));
    if (rn.entry.empty()) continue;
    auto [it, inserted] = index.emplace(rn.entry, entries.size());
    if (inserted) {
      EntryAcc e;
      e.name = rn.entry;
      e.order = entries.size();
      e.forward = rn.forward;
      e.params_grad = rn.role == RowRole::kParametersGrad;
      entries.push_back(std::move(e));
    }
    EntryAcc& e = entries[it->second];
    bool nf_npu = false, nf_bench = false;
    double err = row_error(table, col, ctx, r, &nf_npu, &nf_bench);
    errors[r] = err;
    bool is_output = rn.role == RowRole::kOutput || rn.role == RowRole::kParametersGrad;
    (is_output ? e.out_rows : e.in_rows).push_back(r);
    if (std::isnan(err)) continue;
    if (is_output) {
      e.any_out = true;
      e.e_out = std::max(e.e_out, err);
      if (nf_npu && !nf_bench) e.out_nonfinite = true;
      double u = unit_roundoff(text_of(table.rows[r], col.npu_dtype));
      if (u > 0) e.out_floating = true;
      e.roundoff = std::max(e.roundoff, u);
    } else {
      e.any_in = true;
      e.e_in = std::max(e.e_in, err);
      if (nf_npu || nf_bench) e.in_nonfinite = true;
    }
  }

  const bool md5 = table.mode == CompareMode::kMd5;
  // The noise model, fitted on the run itself: how much error an op typically adds (in
  // roundoffs of its output dtype) and how much it typically amplifies the error it receives.
  // Both are clamped so that a tiny or mostly broken table cannot declare its faults typical.
  std::vector<double> increments;
  for (const EntryAcc& e : entries)
    if (e.any_out && !e.params_grad && e.e_out > 0 && e.roundoff > 0)
      increments.push_back(std::max(e.e_out - e.e_in, 0.0) / e.roundoff);
  // A table of a few entries (a scoped re-dump of one call) holds too little to fit its noise:
  // the model's floors apply (4 roundoffs, 1x, 0.3 decades).
  const bool too_few = increments.size() < kMinEntriesForNoiseFit;
  double typical_increment = too_few ? 4.0 : std::min(std::max(median(increments), 4.0), 256.0);
  std::vector<double> log_amp;
  for (EntryAcc& e : entries) {
    if (!e.any_out || e.params_grad || e.e_out <= 0) continue;
    // Exact inputs still give outputs some roundoffs apart (summation order differs).
    double floor = std::max(typical_increment * e.roundoff, 1e-12);
    e.amplification = md5 ? HUGE_VAL : e.e_out / std::max(e.e_in, floor);
    if (!md5 && std::isfinite(e.amplification)) log_amp.push_back(std::log10(e.amplification));
  }
  double base = too_few ? 0.0 : std::min(median(log_amp), 0.5);
  std::vector<double> dev;
  for (double l : log_amp) dev.push_back(std::fabs(l - base));
  double spread = too_few ? 0.3 : std::min(std::max(1.4826 * median(dev), 0.1), 0.3);
  // An outlier stands well above the run's typical amplification, and is at least 10x
  // (100x for high confidence).
  double threshold = std::max(1.0, base + 6 * spread);
  double strong = std::max(2.0, base + 10 * spread);

  for (EntryAcc& e : entries) {
    if (!e.any_out || e.params_grad || e.e_out <= 0) continue;
    Suspect s;
    if (md5) {
      if (e.e_in != 0) continue;  // an input already differs
      s.tier = 0;
      s.reason = e.any_in ? "every input is bit-identical, an output differs"
                          : "an output differs (no tensor inputs)";
    } else if (e.out_nonfinite && !e.in_nonfinite) {
      s.tier = 0;
      s.reason =
          "outputs hold inf/nan while its inputs are finite (max input relative error " + fmt(e.e_in) + ")";
    } else {
      double l = std::log10(e.amplification);
      if (!std::isfinite(e.amplification)) l = HUGE_VAL;
      if (l < threshold) continue;
      // Integer/bool outputs flip under any input noise (argmax, comparisons): only exact
      // inputs make such an entry a suspect.
      if (!e.out_floating && e.e_in > 0) continue;
      // Outputs must differ by more than a few roundoffs of their dtype.
      if (e.out_floating && e.e_out < 8 * e.roundoff) continue;
      s.tier = l >= strong ? 0 : 1;
      s.reason = "inputs agree (max relative error " + fmt(e.e_in) + ") but outputs differ (relative error " +
                 fmt(e.e_out) + ", " + fmt(e.amplification) +
                 "x the input error; typical in this run: " + fmt(std::pow(10.0, base)) + "x)";
    }
    s.name = e.name;
    s.rank = ctx.rank;
    s.step = ctx.step;
    s.forward = e.forward;
    s.order = e.order;
    s.input_error = e.e_in;
    s.output_error = e.e_out;
    s.amplification = e.amplification;
    fill_rows(table, col, e.in_rows, errors, &s.inputs);
    fill_rows(table, col, e.out_rows, errors, &s.outputs);
    if (ctx.stacks) {
      auto it = ctx.stacks->find(e.name);
      if (it != ctx.stacks->end()) s.stack = it->second;
    }
    s.module_path = module_path_of(e.name, ctx);
    out.push_back(std::move(s));
  }
  rank_suspects(&out);
  return out;
}

void rank_suspects(std::vector<Suspect>* suspects) {
  std::vector<Suspect>& v = *suspects;
  std::stable_sort(v.begin(), v.end(), [](const Suspect& a, const Suspect& b) {
    if (a.tier != b.tier) return a.tier < b.tier;
    if (a.step != b.step) return a.step < b.step;
    if (a.forward != b.forward) return a.forward;
    if (a.order != b.order) return a.order < b.order;
    return a.rank < b.rank;
  });
  // An entry nested in another suspect of the same tier (an API inside a module) goes first.
  for (size_t i = 0; i < v.size(); ++i) {
    for (size_t j = i + 1; j < v.size(); ++j) {
      if (v[j].tier == v[i].tier && nested_in(v[j], v[i])) {
        Suspect moved = std::move(v[j]);
        v.erase(v.begin() + j);
        v.insert(v.begin() + i, std::move(moved));
      }
    }
  }
}

}  // namespace compare
}  // namespace msprobe
