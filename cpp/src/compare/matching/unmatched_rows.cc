#include "unmatched_rows.h"

#include <unordered_map>

#include "msprobe/compare/compare_const.h"
#include "msprobe/compare/row_name.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace compare {
namespace {

constexpr size_t kNamed = 3;  // calls named on the line

// The entries of a dump by name (matching keeps the names of the entries it is done with).
const MergedOp* find_op(const ParsedDump& d, const std::string& entry,
                        std::unordered_map<std::string, const MergedOp*>* index) {
  if (index->empty())
    for (const ParsedEntry& e : d.entries) index->emplace(e.op.entry, &e.op);
  auto it = index->find(entry);
  return it == index->end() ? nullptr : it->second;
}

// Why the bench entry of the same name did not pair with the NPU one.
std::string why(const MergedOp* n, const MergedOp* b) {
  if (!b) return "not in the bench dump";
  if (!n || n->empty() || b->empty())
    return "in the bench dump, but its arguments, dtypes, shapes or place differ";
  for (size_t g = 0; g < n->structs.size(); ++g) {
    if (n->structs[g].size() != b->structs[g].size()) return "a different number of arguments or outputs";
    for (size_t i = 0; i < n->structs[g].size(); ++i) {
      const LeafStruct &x = n->structs[g][i], &y = b->structs[g][i];
      if (py_str(x.shape) != py_str(y.shape)) return "shape " + py_str(x.shape) + " vs " + py_str(y.shape);
      if (py_str(x.dtype) != py_str(y.dtype)) return "dtype " + py_str(x.dtype) + " vs " + py_str(y.dtype);
    }
  }
  return "its bench call was paired with another (the call order differs)";
}

}  // namespace

std::string unmatched_rows_line(const std::vector<Row>& rows, const ParsedDump& npu,
                                const ParsedDump& bench) {
  size_t unmatched = 0;
  std::vector<std::string> entries;
  for (const Row& row : rows) {
    if (row.size() < 2 || row[1].kind != Cell::Kind::kString || row[1].s != k::kNA) continue;
    ++unmatched;
    const std::string entry = row[0].kind == Cell::Kind::kString ? split_row_name(row[0].s).entry : "";
    if (!entry.empty() && (entries.empty() || entries.back() != entry)) entries.push_back(entry);
  }
  if (unmatched == 0) return "";
  std::unordered_map<std::string, const MergedOp*> npu_index, bench_index;
  std::string line = std::to_string(unmatched) + " of " + std::to_string(rows.size()) +
                     " rows found no bench row (" + std::to_string(entries.size()) + " calls): ";
  for (size_t i = 0; i < entries.size() && i < kNamed; ++i) {
    if (i) line += ", ";
    line += entries[i] + " (" +
            why(find_op(npu, entries[i], &npu_index), find_op(bench, entries[i], &bench_index)) + ")";
  }
  if (entries.size() > kNamed) line += ", ...";
  return line;
}

}  // namespace compare
}  // namespace msprobe
