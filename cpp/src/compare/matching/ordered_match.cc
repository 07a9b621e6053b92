// 1.2.1's ordered two-queue matching (see ordered_match.h).
#include "ordered_match.h"

#include <deque>

#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace compare {

namespace {

bool struct_equal(const LeafStruct& a, const LeafStruct& b, bool with_md5) {
  return py_equal(a.dtype, b.dtype) && py_equal(a.shape, b.shape) && (!with_md5 || py_equal(a.md5, b.md5));
}

// check_type_shape_match
bool type_shape_match(const std::vector<LeafStruct>& n, const std::vector<LeafStruct>& b) {
  if (n.size() != b.size()) return false;
  for (size_t i = 0; i < n.size(); ++i) {
    if (!py_equal(n[i].shape, b[i].shape)) return false;
    if (!py_equal(n[i].dtype, b[i].dtype) && !dtypes_compatible(n[i].dtype, b[i].dtype)) return false;
  }
  return true;
}

// check_op for PyTorch.
bool check_op(const MergedOp& n, const MergedOp& b, const OrderedMatchOptions& opt) {
  const bool n_aten = contains(n.op_name.at(0), "Aten"), b_aten = contains(b.op_name.at(0), "Aten");
  if (n_aten != b_aten) {
    // Graph mode: 1.2.1 asks its Aten->torch table with the '_'-separated fragments of the dotted
    // names ('_'.join(name.split('_')[1:-3])), which never form a table key for real names, so
    // such pairs never match.
    return false;
  }
  const bool struct_match = same_struct(n, b, opt.mode);
  if (!opt.fuzzy) return n.op_name == b.op_name && struct_match;
  return fuzzy_same_names(n.op_name, b.op_name) && struct_match;
}

}  // namespace

bool dtypes_compatible(const JsonValue& n, const JsonValue& b) {
  return n.is_string() && b.is_string() && dtypes_compatible(n.as_string(), b.as_string());
}

bool is_floating_dtype(const std::string& d) {
  static const char* const kFloating[] = {"torch.float16", "torch.bfloat16", "torch.float32", "torch.float64",
                                          "Float16",       "BFloat16",       "Float32",       "Float64"};
  for (const char* f : kFloating)
    if (d == f) return true;
  return false;
}

bool dtypes_compatible(const std::string& n, const std::string& b) {
  // Beyond 1.2.1 (fp16 with fp32 or bf16 only): every pair of floating dtypes, as 26.2.0 pairs
  // them, so that bf16/fp16 autocast runs pair with their fp32 bench row by row.
  return is_floating_dtype(n) && is_floating_dtype(b);
}

bool same_struct(const MergedOp& n, const MergedOp& b, CompareMode mode) {
  const bool with_md5 = mode == CompareMode::kMd5;
  bool exact = true;
  for (int g = 0; g < 4 && exact; ++g) {
    if (n.structs[g].size() != b.structs[g].size()) {
      exact = false;
      break;
    }
    for (size_t i = 0; i < n.structs[g].size(); ++i)
      if (!struct_equal(n.structs[g][i], b.structs[g][i], with_md5)) {
        exact = false;
        break;
      }
  }
  if (exact) return true;
  if (n.structs[kInputGroup].empty() || b.structs[kInputGroup].empty()) return false;
  for (int g = 0; g < 4; ++g)
    if (!type_shape_match(n.structs[g], b.structs[g])) return false;
  return true;
}

std::string rename_api(const std::string& name, const std::string& process) {
  const size_t first = name.find(process);
  if (first == std::string::npos) throw InvalidInput(name + " can not be split with " + process);
  const std::string head = name.substr(0, first);
  const size_t after = first + process.size();
  size_t second = name.find(process, after);
  if (second == std::string::npos) second = name.size();
  const std::string in_out = name.substr(after, second - after);
  // head.rsplit('.', 2)[0]
  size_t cut = head.size();
  for (int k = 0; k < 2; ++k) {
    const size_t dot = cut == 0 ? std::string::npos : head.rfind('.', cut - 1);
    if (dot == std::string::npos) break;
    cut = dot;
  }
  return head.substr(0, cut) + in_out;
}

bool fuzzy_same_names(const std::vector<std::string>& n, const std::vector<std::string>& b) {
  if (n.empty() || b.empty() || n.size() != b.size()) return false;
  for (size_t i = 0; i < n.size(); ++i) {
    bool match;
    if (contains(n[i], "forward") && contains(b[i], "forward")) {
      match = rename_api(n[i], "forward") == rename_api(b[i], "forward");
    } else if (contains(n[i], "backward") && contains(b[i], "backward")) {
      match = rename_api(n[i], "backward") == rename_api(b[i], "backward");
    } else {
      match = n[i] == b[i];
    }
    if (!match) return false;
  }
  return true;
}

void ordered_match(ParsedDump& npu, ParsedDump& bench, const OrderedMatchOptions& opt,
                   std::vector<Row>& rows) {
  std::deque<MergedOp*> nq, bq;
  size_t ni = 0, bi = 0, steps = 0;
  bool npu_more = true, bench_more = true;
  // Reads the next entry of a dump into its queue; 1.2.1 raises its checks' errors here.
  auto read_next = [](ParsedDump& dump, size_t& next, bool& more, std::deque<MergedOp*>& q) {
    if (next >= dump.entries.size()) {
      more = false;
      return;
    }
    ParsedEntry& e = dump.entries[next++];
    if (!e.error.empty()) throw InvalidInput(e.error);
    if (!e.op.empty()) q.push_back(&e.op);
  };
  while (npu_more || bench_more) {
    const size_t last_n = nq.size(), last_b = bq.size();
    read_next(npu, ni, npu_more, nq);
    read_next(bench, bi, bench_more, bq);
    if (opt.progress) opt.progress(++steps, npu.entries.size());
    const bool both_empty = nq.empty() && bq.empty();
    const bool no_change = nq.size() == last_n && bq.size() == last_b;
    if (both_empty || no_change) continue;
    if (nq.empty() != bq.empty()) break;  // 1.2.1 stops: "APIs ... unconsistent"
    // match_op
    long n_point = -1, b_point = -1;
    const MergedOp& n_last = *nq.back();
    for (size_t j = 0; j + 1 < bq.size(); ++j)
      if (check_op(n_last, *bq[j], opt)) {
        n_point = (long)nq.size() - 1;
        b_point = (long)j;
        break;
      }
    if (n_point < 0 && check_op(n_last, *bq.back(), opt)) {
      n_point = (long)nq.size() - 1;
      b_point = (long)bq.size() - 1;
    }
    if (n_point < 0) {
      for (size_t j = 0; j + 1 < nq.size(); ++j)
        if (check_op(*nq[j], *bq.back(), opt)) {
          n_point = (long)j;
          b_point = (long)bq.size() - 1;
          break;
        }
    }
    if (n_point < 0) continue;
    for (long j = 0; j < n_point; ++j) append_unmatched_rows(rows, *nq[j], opt.mode);
    append_matched_rows(rows, *nq[n_point], *bq[b_point], opt.mode);
    // Done with: freed, but for the name (unmatched_rows.h tells "not in the bench dump" by it).
    auto release = [](MergedOp* op) { *op = MergedOp::named(std::move(op->entry)); };
    for (long j = 0; j <= n_point; ++j) release(nq[j]);
    for (long j = 0; j <= b_point; ++j) release(bq[j]);
    nq.erase(nq.begin(), nq.begin() + n_point + 1);
    bq.erase(bq.begin(), bq.begin() + b_point + 1);
  }
  for (const MergedOp* op : nq) append_unmatched_rows(rows, *op, opt.mode);
}

}  // namespace compare
}  // namespace msprobe
