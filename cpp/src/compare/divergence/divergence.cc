#include "msprobe/compare/divergence.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <unordered_set>

#include "msprobe/base/strings.h"
#include "msprobe/compare/op_condition.h"
#include "msprobe/compare/row_name.h"

namespace msprobe {
namespace compare {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTiny = 1e-30;

// Column positions of the table, -1 when the mode has no such column.
struct Columns {
  int npu_name = -1, bench_name = -1, npu_dtype = -1, bench_dtype = -1, npu_shape = -1;
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
      else if (h == "Bench Dtype")
        bench_dtype = i;
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
    // The extremes relative to themselves (their rounding is relative to their size; over the
    // rms it would grow with how far they stand out), the mean relative to the rms (it may be
    // near zero).
    const double own = std::max(std::fabs(b[i]), std::fabs(n[i]));
    double scale = !have_norm ? own : i < 2 ? std::max(own, rms) : rms;
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
  bool in_nonfinite = false, out_nonfinite = false, out_floating = false, int_input_differs = false;
  double roundoff = 0, in_roundoff = 0;  // of the outputs, of the floating inputs
  double amplification = 0;              // output error over input error (or its floor)
  OpCondition condition;                 // what the op's mathematics explains of it
};

// The least error an op is expected to add, in roundoffs of its output: a run whose ops mostly
// agree exactly still gets this floor.
constexpr double kMinIncrement = 1.0;

// log10 of the amplification that makes a suspect of an entry whose inputs agree within rounding.
const double kRoundingOutlier = std::log10(8.0);

// An op rounding at the run's lowest precision adding this many of its roundoffs beyond what it
// received, while amplifying its input error at least this much, is a suspect.
constexpr double kExcessRoundoffs = 6.0, kExcessAmplification = 4.0;

// A source differing by more than this many roundoffs of its dtype is a high-confidence one.
constexpr double kSourceRoundoffs = 64.0;

// Fewer entries with floating outputs than this: the noise model is not fitted on the table.
constexpr size_t kMinEntriesForNoiseFit = 8;

// A row holding a tensor (not a scalar argument, a torch.Size, a slice...).
bool is_tensor_dtype(const std::string& d) {
  if (starts_with(d, "torch.")) return d != "torch.Size" && d != "torch.dtype" && d != "torch.device";
  static const char* const kMindSpore[] = {"Float16", "BFloat16", "Float32", "Float64",   "Int8",
                                           "Int16",   "Int32",    "Int64",   "UInt8",     "UInt16",
                                           "UInt32",  "UInt64",   "Bool",    "Complex64", "Complex128"};
  for (const char* m : kMindSpore)
    if (d == m) return true;
  return false;
}

// What tells whether two rows hold the same tensor: a hash of the NPU side's dtype, shape and
// statistics (exact bits).
uint64_t row_fingerprint(const std::vector<Cell>& row, const Columns& col) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (int c : {col.npu_dtype, col.npu_shape, col.npu_max, col.npu_min, col.npu_mean, col.npu_norm}) {
    const Cell* cell = cell_at(row, c);
    if (!cell) {
      mix(0x9e3779b97f4a7c15ull);
    } else if (cell->kind == Cell::Kind::kString) {
      mix(std::hash<std::string>()(cell->s));
    } else {
      uint64_t bits;
      std::memcpy(&bits, &cell->d, sizeof bits);
      mix(bits + (uint64_t)cell->kind);
    }
  }
  return h;
}

RowStats stats_of(const std::vector<Cell>& row, const Columns& col) {
  RowStats st;
  const std::string dtype = text_of(row, col.npu_dtype);
  st.tensor = is_tensor_dtype(dtype);
  const std::string shape = text_of(row, col.npu_shape);
  st.numel = numel_of_shape(shape);
  const size_t last = shape.find_last_of("0123456789");
  if (last != std::string::npos) {
    size_t first = last;
    while (first > 0 && std::isdigit((unsigned char)shape[first - 1])) --first;
    st.last_dim = std::min<int64_t>(std::stoll(shape.substr(first, std::min<size_t>(last - first + 1, 12))),
                                    int64_t(1) << 40);
  }
  st.max = number_of(row, col.npu_max);
  st.min = number_of(row, col.npu_min);
  st.mean = number_of(row, col.npu_mean);
  st.norm = st.tensor ? number_of(row, col.npu_norm) : std::fabs(st.max);
  return st;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  return v[mid];
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

namespace {

// The unit roundoff a row is judged with: that of the lower precision of its two dtypes (a bf16
// row paired with an fp32 one carries bf16's rounding).
double row_roundoff(const std::vector<Cell>& row, const Columns& col) {
  return std::max(unit_roundoff(text_of(row, col.npu_dtype)), unit_roundoff(text_of(row, col.bench_dtype)));
}

bool is_collective(const std::string& entry) { return starts_with(entry, "Distributed."); }

// "Torch.tanh.1.forward" of "Torch.tanh.1.backward", "Module.fc.Linear.forward.0" of
// "Module.fc.Linear.backward.0".
std::string forward_entry_of(const std::string& backward) {
  const size_t at = backward.rfind(".backward");
  if (at == std::string::npos) return "";
  return backward.substr(0, at) + ".forward" + backward.substr(at + 9);
}

// The parameter a module entry's "parameters" row holds, by the module's path:
// "transformer.h.1.mlp.c_fc.weight" of "Module.transformer.h.1.mlp.c_fc.Conv1D.forward.0" and
// its row "....parameters.weight"; "" for other rows.
std::string module_parameter(const std::string& entry, const std::string& row) {
  const std::string marker = entry + ".parameters.";
  if (!starts_with(row, marker)) return "";
  std::vector<std::string_view> parts = split(entry, '.');
  if (parts.size() < 5 || (parts[0] != "Module" && parts[0] != "Cell")) return "";
  // Module.<path...>.<Class>.forward.<n>
  return "parameter:" + join(parts, ".", 1, parts.size() - 3) + "." + row.substr(marker.size());
}

// What a source is, in words: "parameter `fc.weight`", "the model's input `0`".
std::string source_words(const std::string& tensor_name, const std::string& entry, const std::string& row) {
  const size_t colon = tensor_name.find(':');
  const std::string kind = colon == std::string::npos ? "" : tensor_name.substr(0, colon);
  const std::string name = colon == std::string::npos ? tensor_name : tensor_name.substr(colon + 1);
  if (kind == "parameter") return "parameter `" + name + "` differs before any call";
  if (kind == "buffer") return "buffer `" + name + "` differs before any call";
  if (kind == "input") return "the model's input `" + name + "` differs";
  return "an input of `" + entry + "` that no recorded call produced differs (" +
         row.substr(entry.size() + 1) + "): a parameter or data";
}

}  // namespace

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
      double u = row_roundoff(table.rows[r], col);
      if (u > 0) e.out_floating = true;
      e.roundoff = std::max(e.roundoff, u);
    } else {
      e.any_in = true;
      e.e_in = std::max(e.e_in, err);
      const double u = row_roundoff(table.rows[r], col);
      e.in_roundoff = std::max(e.in_roundoff, u);
      if (u == 0 && err > 0 && is_tensor_dtype(text_of(table.rows[r], col.npu_dtype)))
        e.int_input_differs = true;
      if (nf_npu || nf_bench) e.in_nonfinite = true;
    }
  }

  // A module or cell may compute inside in the lowest precision the run shows (bf16 autocast
  // inside an fp32 residual stream): its outputs are judged by that precision.
  double run_roundoff = 0;
  for (const EntryAcc& e : entries) run_roundoff = std::max({run_roundoff, e.roundoff, e.in_roundoff});
  for (EntryAcc& e : entries)
    if (e.out_floating && (starts_with(e.name, "Module.") || starts_with(e.name, "Cell.")))
      e.roundoff = std::max(e.roundoff, run_roundoff);

  // A backward also reads the inputs its forward saved: it is judged against their error as
  // well as against that of the gradients it receives. (An op that saves its output instead
  // differs in its backward when its forward was wrong: the forward ranks first anyway.)
  for (EntryAcc& e : entries) {
    if (e.forward || e.params_grad) continue;
    auto it = index.find(forward_entry_of(e.name));
    if (it == index.end()) continue;
    const EntryAcc& f = entries[it->second];
    if (f.any_in) e.e_in = std::max(e.e_in, f.e_in);
    e.any_in = e.any_in || f.any_in;
    e.in_nonfinite = e.in_nonfinite || f.in_nonfinite;
    e.int_input_differs = e.int_input_differs || f.int_input_differs;
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
  const NoiseModel prior = ctx.prior_noise && ctx.prior_noise->fitted ? *ctx.prior_noise : NoiseModel();
  NoiseModel noise = prior;
  double typical_increment =
      too_few ? prior.typical_increment : std::min(std::max(median(increments), kMinIncrement), 256.0);
  auto rows_stats = [&](const std::vector<size_t>& rows) {
    std::vector<RowStats> v;
    for (size_t r : rows) v.push_back(stats_of(table.rows[r], col));
    return v;
  };
  std::vector<double> log_amp;
  for (EntryAcc& e : entries) {
    if (!e.any_out || e.params_grad || e.e_out <= 0) continue;
    // Exact inputs still give outputs some roundoffs apart (summation order differs).
    double floor = std::max(typical_increment * e.roundoff, 1e-12);
    e.amplification = md5 ? HUGE_VAL : e.e_out / std::max(e.e_in, floor);
    if (md5 || !std::isfinite(e.amplification)) continue;
    // The op's own mathematics amplifies a received error this much without any fault.
    if (e.e_in > floor && e.amplification > 1)
      e.condition = op_condition(e.name, rows_stats(e.in_rows), rows_stats(e.out_rows));
    log_amp.push_back(std::log10(e.amplification / e.condition.factor));
  }
  double base = too_few ? prior.base : std::min(median(log_amp), 0.5);
  std::vector<double> dev;
  for (double l : log_amp) dev.push_back(std::fabs(l - base));
  double spread = too_few ? prior.spread : std::min(std::max(1.4826 * median(dev), 0.1), 0.3);
  if (!too_few) noise = {typical_increment, base, spread, true};
  // An outlier stands well above the run's typical amplification, and is at least 10x
  // (100x for high confidence).
  double threshold = std::max(1.0, base + 6 * spread);
  double strong = std::max(2.0, base + 10 * spread);

  auto describe = [&](Suspect& s, const EntryAcc& e) {
    s.name = e.name;
    s.noise = noise;
    s.rank = ctx.rank;
    s.step = ctx.step;
    s.forward = e.forward;
    s.order = e.order;
    if (ctx.stacks) {
      auto it = ctx.stacks->find(e.name);
      if (it != ctx.stacks->end()) s.stack = it->second;
    }
    s.module_path = module_path_of(e.name, ctx);
  };

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
      s.reason = "outputs hold inf/nan while its inputs are finite (max input relative error " +
                 short_number(e.e_in) + ")";
    } else {
      const double judged = e.amplification / e.condition.factor;
      double l = std::log10(judged);
      if (!std::isfinite(judged)) l = HUGE_VAL;
      // Inputs that agree within what an op of this run adds: an output 8x that is beyond
      // rounding whatever the run's spread (a kernel a few percent off under bf16).
      const double rounding = typical_increment * e.roundoff;
      const bool inputs_within_rounding = e.e_in <= rounding;
      // An op that rounds to the lowest precision it sees (bf16 in, bf16 out): its error beyond
      // what it received, counted in its roundoffs, is comparable across the run.
      const bool excess = e.forward && e.roundoff >= e.in_roundoff && judged >= kExcessAmplification &&
                          e.e_out - e.condition.factor * e.e_in >= kExcessRoundoffs * rounding;
      if (!excess && l < (inputs_within_rounding ? std::min(threshold, kRoundingOutlier) : threshold))
        continue;
      // Integer/bool outputs flip under any input noise (argmax, comparisons), and any output
      // may change when an integer input (an index, a token id) does: only exact inputs make
      // such an entry a suspect.
      if ((!e.out_floating || e.int_input_differs) && e.e_in > 0) continue;
      // Outputs must differ by more than a few roundoffs of their dtype.
      if (e.out_floating && e.e_out < 8 * e.roundoff) continue;
      s.tier = l >= strong ? 0 : 1;
      s.reason =
          "inputs agree (max relative error " + short_number(e.e_in) +
          ") but outputs differ (relative error " + short_number(e.e_out) + ", " +
          short_number(e.amplification) +
          (inputs_within_rounding ? "x the rounding an op of this run adds (" + short_number(rounding) + ")"
                                  : "x the input error");
      if (!e.condition.explanation.empty())
        s.reason +=
            "; " + e.condition.explanation + " explains " + short_number(e.condition.factor) + "x of it";
      s.reason += "; typical in this run: " + short_number(std::pow(10.0, base)) + "x)";
    }
    if (is_collective(e.name)) {
      // Its output holds the other ranks' contributions: when only its output differs, the
      // difference may start on another rank.
      s.tier = 2;
      s.reason +=
          ": a collective, whose output also holds the other ranks' inputs; where they differ, "
          "compare every rank";
    }
    describe(s, e);
    s.input_error = e.e_in;
    s.output_error = e.e_out;
    s.amplification = e.amplification;
    fill_rows(table, col, e.in_rows, errors, &s.inputs);
    fill_rows(table, col, e.out_rows, errors, &s.outputs);
    out.push_back(std::move(s));
  }

  // Sources: an input row that differs and that no earlier recorded call produced (no earlier
  // output row holds the same statistics). A named one (a parameter, a buffer, the model's
  // input) counts at any difference beyond rounding; an unnamed one only where nothing before
  // it explains it (an op the probe does not record may have made it from an earlier
  // difference): beyond 10x every earlier output's error.
  std::unordered_set<uint64_t> produced;
  std::unordered_set<std::string> reported;
  double earlier_error = 0;
  for (const EntryAcc& e : entries) {
    if (md5) break;  // md5 rows hold no statistics to tell tensors apart
    if (e.forward && !e.params_grad) {
      for (size_t r : e.in_rows) {
        const std::vector<Cell>& row = table.rows[r];
        const double err = errors[r];
        if (std::isnan(err) || err <= 0 || !is_tensor_dtype(text_of(row, col.npu_dtype))) continue;
        const uint64_t key = row_fingerprint(row, col);
        if (produced.count(key)) continue;
        const std::string row_name = text_of(row, col.npu_name);
        std::string tensor_name;
        if (ctx.tensor_names) {
          auto it = ctx.tensor_names->find(row_name);
          if (it != ctx.tensor_names->end()) tensor_name = it->second;
        }
        if (tensor_name.empty()) tensor_name = module_parameter(e.name, row_name);
        const double u = row_roundoff(row, col);
        const double noise = u > 0 ? std::max(8.0, typical_increment) * u : 0.0;
        if (err <= noise) continue;
        // (A scoped re-dump records no producers: there an unnamed input is no source.)
        if (tensor_name.empty() && (too_few || err <= 10 * earlier_error)) continue;
        if (!reported.insert(tensor_name.empty() ? std::to_string(key) : tensor_name).second) continue;
        Suspect s;
        describe(s, e);
        // A difference of a few dozen roundoffs is what a conversion or two devices' noise leave.
        s.tier = err > kSourceRoundoffs * u ? 0 : 2;
        s.source = true;
        s.source_row = row_name;
        s.source_name = tensor_name;
        s.input_error = err;
        s.output_error = e.e_out;
        s.amplification = kNaN;
        s.reason = source_words(tensor_name, e.name, row_name) + " (relative error " + short_number(err) +
                   (s.tier == 2 ? ", a few roundoffs of " + text_of(row, col.npu_dtype) + ")" : ")");
        fill_rows(table, col, {r}, errors, &s.inputs);
        fill_rows(table, col, e.out_rows, errors, &s.outputs);
        out.push_back(std::move(s));
      }
    }
    for (size_t r : e.out_rows) produced.insert(row_fingerprint(table.rows[r], col));
    if (e.forward && e.any_out && e.out_floating && !e.params_grad)
      earlier_error = std::max(earlier_error, e.e_out);
  }
  // A module holding a source differs because of it (its parameter, its input), forward and
  // backward: no suspect.
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const Suspect& container) {
                             if (container.source) return false;
                             const std::string forward =
                                 container.forward ? container.name : forward_entry_of(container.name);
                             for (const Suspect& src : out)
                               if (src.source && src.tier == 0 &&
                                   std::find(src.module_path.begin(), src.module_path.end(), forward) !=
                                       src.module_path.end())
                                 return true;
                             return false;
                           }),
            out.end());
  rank_suspects(&out);
  return out;
}

RedumpCheck check_redumped_suspect(const CompareTable& table, const DivergenceContext& ctx,
                                   const std::vector<Suspect>& suspects, const std::string& entry,
                                   const std::string& first_source) {
  RedumpCheck check;
  check.suspect = entry;
  for (const Suspect& s : suspects) {
    if (s.name != entry || s.source) continue;
    check.verdict = "confirmed";
    check.sentence = "confirmed: with the tensors of both runs, " + s.reason;
    if (!s.replay.verdict.empty()) check.sentence += "; replayed in float64: " + s.replay.verdict;
    return check;
  }
  // Its own errors in the re-dump (a backward also by the inputs its forward saved).
  const Columns col(table.header);
  const std::vector<double> errors = row_relative_errors(table, ctx);
  const std::string forward = ends_with(entry, ".forward") || entry.find(".forward.") != std::string::npos
                                  ? entry
                                  : forward_entry_of(entry);
  double e_in = 0, e_out = 0;
  bool found = false;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const RowName rn = split_row_name(text_of(table.rows[r], col.npu_name));
    const bool own = rn.entry == entry, saved = rn.entry == forward && rn.role != RowRole::kOutput;
    if (!own && !saved) continue;
    found = found || own;
    if (std::isnan(errors[r])) continue;
    const bool output = own && (rn.role == RowRole::kOutput || rn.role == RowRole::kParametersGrad);
    (output ? e_out : e_in) = std::max(output ? e_out : e_in, errors[r]);
  }
  if (!found) {
    check.verdict = "missing";
    check.sentence = "missing: the re-dump holds no " + entry +
                     " (were both runs trained with the re-dump configs, to the suspect's step?)";
    return check;
  }
  check.verdict = "cleared";
  if (e_in > 0) {
    check.sentence =
        "cleared: with the tensors of both runs its inputs already differ (relative error " +
        short_number(e_in) + ") and its outputs (" + short_number(e_out) + ") no more than that explains; " +
        (first_source.empty() ? "the difference starts before it" : "the source is: " + first_source);
  } else {
    check.sentence =
        "cleared: with the tensors of both runs its outputs agree within rounding (relative error " +
        short_number(e_out) + "): the statistics misled";
  }
  return check;
}

const char* confidence_name(int tier) { return tier <= 0 ? "high" : tier == 1 ? "medium" : "low"; }

int tier_of_confidence(const std::string& confidence) {
  return confidence == "high" ? 0 : confidence == "medium" ? 1 : 2;
}

void rank_suspects(std::vector<Suspect>* suspects) {
  std::vector<Suspect>& v = *suspects;
  // A collective whose difference another rank's earlier suspect explains is no suspect.
  v.erase(std::remove_if(v.begin(), v.end(),
                         [&](const Suspect& c) {
                           if (!is_collective(c.name) || c.tier < 2) return false;
                           for (const Suspect& o : v)
                             if (o.rank != c.rank && o.step == c.step && o.tier < 2 &&
                                 o.forward == c.forward && o.order <= c.order)
                               return true;
                           return false;
                         }),
          v.end());
  std::stable_sort(v.begin(), v.end(), [](const Suspect& a, const Suspect& b) {
    if (a.tier != b.tier) return a.tier < b.tier;
    if (a.step != b.step) return a.step < b.step;
    if (a.forward != b.forward) return a.forward;
    if (a.order != b.order) return a.order < b.order;
    if (a.source != b.source) return a.source;  // a call's differing input before the call
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
