// 1.2.1's MindSpore compare: rows joined on (key, shape) and MSComparator's verdicts
// (see joined_match.h).
#include "joined_match.h"

#include <cmath>
#include <limits>
#include <unordered_map>

#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "msprobe/compare/compare_const.h"
#include "msprobe/format/pandas_numeric.h"
#include "msprobe/format/py_value.h"
#include "ordered_match.h"

namespace msprobe {
namespace compare {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One row of gen_data_df.
struct LeafRow {
  std::string name, key, dtype, shape;
  std::array<JsonValue, 4> summary;
  const JsonValue* stack = nullptr;
  JsonValue md5;
  std::string data_name;
};

void leaf_rows(const MergedOp& op, bool stack_mode, std::vector<LeafRow>& out) {
  std::array<size_t, 4> next{0, 0, 0, 0};
  for (size_t idx : reordered_leaves(op)) {
    LeafRow r;
    r.name = op.op_name[idx];
    // gen_data_df picks the struct list by substring, not by the name's state
    StructGroup g = kParamsGradGroup;
    if (contains(r.name, ".input.") || contains(r.name, ".kwargs.")) {
      g = kInputGroup;
    } else if (contains(r.name, ".output.")) {
      g = kOutputGroup;
    } else if (contains(r.name, ".parameters.")) {
      g = kParamsGroup;
    }
    if (next[g] >= op.structs[g].size())
      throw InvalidInput("pop from empty list: the structs of " + op.entry + " do not fit its names");
    const LeafStruct& st = op.structs[g][next[g]++];
    r.dtype = py_str(st.dtype);
    r.shape = py_str(st.shape);
    r.md5 = st.md5;
    r.summary = op.summary[idx];
    if (stack_mode) r.stack = op.stack;  // stays in the stack map
    r.data_name = op.data_name[idx];
    out.push_back(std::move(r));
  }
}

std::vector<LeafRow> data_rows(const ParsedDump& dump, bool stack_mode) {
  std::vector<LeafRow> rows;
  for (const ParsedEntry& e : dump.entries) {
    if (!e.error.empty()) throw InvalidInput(e.error);
    if (!e.op.empty()) leaf_rows(e.op, stack_mode, rows);
  }
  return rows;
}

const char* torch_dtype_of_mindspore(const std::string& d) {
  static const std::pair<const char*, const char*> kMap[] = {
      {"Int8", "torch.int8"},         {"UInt8", "torch.uint8"},         {"Int16", "torch.int16"},
      {"UInt16", "torch.uint16"},     {"Int32", "torch.int32"},         {"UInt32", "torch.uint32"},
      {"Int64", "torch.int64"},       {"UInt64", "torch.uint64"},       {"Float16", "torch.float16"},
      {"Float32", "torch.float32"},   {"Float64", "torch.float64"},     {"Bool", "torch.bool"},
      {"BFloat16", "torch.bfloat16"}, {"Complex64", "torch.complex64"}, {"Complex128", "torch.complex128"}};
  for (const auto& p : kMap)
    if (d == p.first) return p.second;
  return nullptr;
}

bool dtype_ok(std::string n, const std::string& b, bool cross) {
  if (cross) {
    if (const char* t = torch_dtype_of_mindspore(n)) n = t;
  }
  return n == b || dtypes_compatible(n, b);
}

// set_summary: None -> "N/A"; anything whose str() is "nan" (any case) -> "Nan".
Cell summary_value(const JsonValue& v) {
  if (v.is_null()) return Cell::str(k::kNA);
  const Cell c = cell_of(v);
  if (to_lower(cell_str(c)) == "nan") return Cell::str(k::kNan);
  return c;
}

// pd.to_numeric(str(value), errors="coerce") for one cell; "nan" in any case counts as a
// number for 1.2.1's type_check (its value stays NaN).
struct Numeric {
  bool ok = false;
  bool is_int = false;
  double v = kNaN;
};

Numeric to_numeric(const Cell& c) {
  Numeric n;
  const std::string s = cell_str(c);
  const PandasNumber p = pandas_to_numeric(s);
  if (p.ok) {
    n.ok = true;
    n.is_int = p.is_int;
    n.v = p.value;
    return n;
  }
  n.ok = to_lower(s) == "nan";
  return n;
}

Cell number(double v, bool is_int) { return is_int ? Cell::integer(v) : Cell::num(v); }

}  // namespace

void joined_match(const ParsedDump& npu, const ParsedDump& bench, const JoinedMatchOptions& opt,
                  std::vector<Row>& rows) {
  const std::vector<LeafRow> n_rows = data_rows(npu, opt.stack_mode);
  const std::vector<LeafRow> b_rows = data_rows(bench, opt.stack_mode);
  if (opt.mapper) {
    std::vector<std::string> nn, bn;
    for (const auto& r : n_rows) nn.push_back(r.name);
    for (const auto& r : b_rows) bn.push_back(r.name);
    opt.mapper->prepare(nn, bn);
  }
  // pandas merge(how="outer", sort=False) on (compare_key, compare_shape): groups in order of
  // first appearance among the NPU rows; NPU rows of a group in order, each with all the bench
  // rows of the group in order.
  std::unordered_map<std::string, std::vector<size_t>> bench_by_key;
  auto join_key = [](const std::string& key, const std::string& shape) { return key + '\x1f' + shape; };
  for (size_t j = 0; j < b_rows.size(); ++j)
    bench_by_key[join_key(b_rows[j].name, b_rows[j].shape)].push_back(j);
  std::vector<std::string> keys;
  std::unordered_map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < n_rows.size(); ++i) {
    const std::string key = opt.mapper ? opt.mapper->npu_key(n_rows[i].name) : n_rows[i].name;
    const std::string jk = join_key(key, n_rows[i].shape);
    auto it = groups.find(jk);
    if (it == groups.end()) {
      keys.push_back(jk);
      groups[jk].push_back(i);
    } else {
      it->second.push_back(i);
    }
  }
  struct Pair {
    size_t n;
    long b;  // -1: no bench
  };
  std::vector<Pair> pairs;
  for (const auto& jk : keys) {
    auto bit = bench_by_key.find(jk);
    for (size_t i : groups[jk]) {
      if (bit == bench_by_key.end()) {
        pairs.push_back({i, -1});
        continue;
      }
      for (size_t j : bit->second) {
        const bool ok = dtype_ok(n_rows[i].dtype, b_rows[j].dtype, opt.cross_framework);
        pairs.push_back({i, ok ? (long)j : -1});
      }
    }
  }

  const CompareMode mode = opt.mode;
  const std::vector<std::string> header = table_header(mode, opt.stack_mode);
  auto col = [&](const char* name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return (int)i;
    return -1;
  };
  const int c_npu_max = col(k::kNpuMax), c_bench_max = col(k::kBenchMax);
  const int c_result = col(k::kResult), c_err = col(k::kErrorMessage), c_acc = col(k::kAccuracy);
  const size_t first = rows.size();
  for (const Pair& p : pairs) {
    const LeafRow& n = n_rows[p.n];
    const LeafRow* b = p.b >= 0 ? &b_rows[(size_t)p.b] : nullptr;
    Row row(header.size(), Cell::num(kNaN));  // columns 1.2.1 leaves unset hold NaN
    row[0] = Cell::str(n.name);
    row[1] = Cell::str(b ? b->name : k::kNA);
    row[2] = Cell::str(n.dtype);
    row[3] = Cell::str(b ? b->dtype : k::kNA);
    row[4] = Cell::str(n.shape);
    row[5] = Cell::str(b ? b->shape : k::kNA);
    if (mode == CompareMode::kMd5) {
      row[6] = n.md5.is_null() ? Cell::str(k::kNA) : cell_of(n.md5);
      row[7] = !b ? Cell::str(k::kNA) : b->md5.is_null() ? Cell::str(k::kNA) : cell_of(b->md5);
    } else {
      for (int s = 0; s < 4; ++s) {
        row[c_npu_max + s] = summary_value(n.summary[s]);
        row[c_bench_max + s] = b ? summary_value(b->summary[s]) : Cell::str(k::kNA);
      }
    }
    if (opt.stack_mode)
      row[col(k::kStack)] = !n.stack || n.stack->is_null() ? Cell::str(k::kNA) : cell_of(*n.stack);
    if (mode == CompareMode::kTensor) row[col(k::kDataName)] = Cell::str(n.data_name);
    if (!b) {  // fillna("N/A") of the unset columns, then the no-bench message
      for (auto& c : row)
        if (c.is_number() && std::isnan(c.d)) c = Cell::str(k::kNA);
      if (c_err >= 0) row[c_err] = Cell::str(k::kNoBench);
    }
    rows.push_back(std::move(row));
  }

  // calc_accuracy
  if (mode == CompareMode::kMd5) {
    for (size_t r = first; r < rows.size(); ++r) {
      Row& row = rows[r];
      const bool no_bench = cell_str(row[1]) == k::kNA;
      if (row[6] == row[7]) {
        row[c_result] = Cell::str(k::kPass);
      } else if (!no_bench) {
        row[c_result] = Cell::str(k::kDiff);
      }
    }
    return;
  }
  if (mode == CompareMode::kTensor) {
    for (size_t r = first; r < rows.size(); ++r) {
      Row& row = rows[r];
      if (cell_str(row[1]) == k::kNA) continue;
      for (const char* name : {k::kCosine, k::kMaxAbsErr, k::kMaxRelativeErr, k::kOneThousandth,
                               k::kFiveThousandths, k::kErrorMessage})
        row[col(name)] = Cell::str("");
      row[c_acc] = Cell::str(k::kYes);
    }
    return;
  }
  // statistics: column-wise diffs; a column of integers only stays integer (pandas int64)
  const size_t count = rows.size() - first;
  std::vector<int> warn_count(count, 0);
  static const char* const kDiffCols[4] = {k::kMaxDiff, k::kMinDiff, k::kMeanDiff, k::kNormDiff};
  static const char* const kRelCols[4] = {k::kMaxRelativeErr, k::kMinRelativeErr, k::kMeanRelativeErr,
                                          k::kNormRelativeErr};
  for (int s = 0; s < 4; ++s) {
    const int c_n = c_npu_max + s, c_b = c_bench_max + s;
    const int c_diff = col(kDiffCols[s]), c_rel = col(kRelCols[s]);
    std::vector<Numeric> nv(count), bv(count);
    bool n_int = true, b_int = true;
    for (size_t i = 0; i < count; ++i) {
      nv[i] = to_numeric(rows[first + i][c_n]);
      bv[i] = to_numeric(rows[first + i][c_b]);
      n_int = n_int && nv[i].ok && nv[i].is_int && !std::isnan(nv[i].v);
      b_int = b_int && bv[i].ok && bv[i].is_int && !std::isnan(bv[i].v);
    }
    const bool int_diff = n_int && b_int;
    for (size_t i = 0; i < count; ++i) {
      Row& row = rows[first + i];
      const bool no_bench = cell_str(row[1]) == k::kNA;
      const bool na = !nv[i].ok || !bv[i].ok;
      if (na) {
        row[c_diff] = row[c_rel] = Cell::str(k::kNA);
        continue;
      }
      if (no_bench) continue;
      const double d = nv[i].v - bv[i].v;
      if (std::isnan(d)) {
        row[c_diff] = row[c_rel] = Cell::str(k::kNan);
        continue;
      }
      row[c_diff] = number(d, int_diff);
      const Cell& bench_cell = row[c_b];
      if ((bench_cell.is_number() || bench_cell.is_bool()) && bench_cell.d == 0) {
        row[c_rel] = Cell::str(k::kNan);
      } else {
        row[c_rel] = Cell::str(py_float_repr(std::fabs(d / bench_cell.d * 100)) + "%");
      }
      // magnitude: get_number() re-parses the diff column's text; np.maximum propagates NaN
      const double d_again = to_numeric(row[c_diff]).v;
      const double biggest = std::fmax(nv[i].v, bv[i].v);
      const double mag = std::isnan(nv[i].v) || std::isnan(bv[i].v)
                             ? kNaN
                             : std::fabs(d_again) / (std::fabs(biggest) + 1e-10);
      if (mag > 0.5) ++warn_count[i];
    }
  }
  for (size_t i = 0; i < count; ++i) {
    Row& row = rows[first + i];
    if (cell_str(row[1]) == k::kNA) continue;
    const bool warning = warn_count[i] == 4;
    row[c_result] = Cell::str(warning ? k::kWarning : "");
    row[c_err] = Cell::str(warning ? k::kNeedDoubleCheck : "");
  }
}

}  // namespace compare
}  // namespace msprobe
