// Result rows of 1.2.1's ordered compare (see result_rows.h).
#include "result_rows.h"

#include <cmath>

#include "msprobe/base/error.h"
#include "msprobe/compare/compare_const.h"
#include "msprobe/format/py_value.h"
#include "summary_diff.h"

namespace msprobe {
namespace compare {

namespace {

Cell stack_cell(const MergedOp& op) { return cell_of(op.stack_value()); }

// stack_column_process: the stack goes on the first input row when both sides have stack info.
void push_stack_matched(Row& row, bool has_stack, size_t index, StructGroup group, const MergedOp& npu) {
  if (has_stack && index == 0 && group == kInputGroup) {
    row.push_back(stack_cell(npu));
  } else {
    row.push_back(Cell::str(k::kNone));
  }
}

// count_struct: names must equal the structs in number.
void check_counts(const MergedOp& op) {
  size_t sum = 0;
  for (const auto& s : op.structs) sum += s.size();
  if (sum != op.op_name.size())
    throw InvalidInput("Length of names and structs of op_dict not match. Please check! op: " + op.entry);
}

void matched_group(std::vector<Row>& out, const MergedOp& n, const MergedOp& b, CompareMode mode,
                   size_t n_start, size_t b_start, StructGroup group) {
  const auto& ns = n.structs[group];
  const auto& bs = b.structs[group];
  const size_t n_len = ns.size(), b_len = bs.size();
  const size_t min_len = std::min(n_len, b_len);
  const bool has_stack = n.has_stack && b.has_stack;
  for (size_t index = 0; index < min_len; ++index) {
    const LeafStruct& nst = ns[index];
    const LeafStruct& bst = bs[index];
    Row row{Cell::str(n.op_name.at(n_start + index)),
            Cell::str(b.op_name.at(b_start + index)),
            cell_of(nst.dtype),
            cell_of(bst.dtype),
            cell_of(nst.shape),
            cell_of(bst.shape)};
    if (mode == CompareMode::kMd5) {
      row.push_back(cell_of(nst.md5));
      row.push_back(cell_of(bst.md5));
      row.push_back(Cell::str(py_equal(nst.md5, bst.md5) ? k::kPass : k::kDiff));
      push_stack_matched(row, has_stack, index, group, n);
      out.push_back(std::move(row));
      continue;
    }
    row.insert(row.end(), mode == CompareMode::kStatistics ? 8 : 5, Cell::str(" "));
    const auto& nsum = n.summary.at(n_start + index);
    const auto& bsum = b.summary.at(b_start + index);
    for (const auto& v : nsum) row.push_back(summary_cell(v));
    for (const auto& v : bsum) row.push_back(summary_cell(v));
    if (mode == CompareMode::kStatistics) {
      const bool warning = apply_summary_diff(row, nsum, bsum);
      row.push_back(Cell::str(warning ? k::kWarning : ""));
      row.push_back(Cell::str(warning ? k::kNeedDoubleCheck : ""));
    } else {
      row.push_back(Cell::str(k::kYes));
      row.push_back(Cell::str(""));
    }
    push_stack_matched(row, has_stack, index, group, n);
    if (mode == CompareMode::kTensor) row.push_back(Cell::str(n.data_name.at(n_start + index)));
    out.push_back(std::move(row));
  }
  // More NPU than bench leaves (only possible for Aten graph-mode matches): 1.2.1 writes these
  // rows with 'Nan' bench cells and always five blank metric cells.
  for (size_t index = b_len; index < n_len; ++index) {
    const LeafStruct& nst = ns[index];
    Row row{Cell::str(n.op_name.at(n_start + index)),
            Cell::str(k::kNan),
            cell_of(nst.dtype),
            Cell::str(k::kNan),
            cell_of(nst.shape),
            Cell::str(k::kNan)};
    if (mode == CompareMode::kMd5) {
      row.push_back(cell_of(nst.md5));
      row.push_back(Cell::str(k::kNan));
      row.push_back(Cell::str(k::kNan));
      out.push_back(std::move(row));
      continue;
    }
    row.insert(row.end(), 5, Cell::str(" "));
    for (const auto& v : n.summary.at(n_start + index)) row.push_back(cell_of(v));
    row.insert(row.end(), 4, Cell::str(k::kNan));
    row.push_back(Cell::str(k::kYes));
    row.push_back(Cell::str(""));
    push_stack_matched(row, has_stack, index, group, n);
    if (mode == CompareMode::kTensor) row.push_back(Cell::str(n.data_name.at(n_start + index)));
    out.push_back(std::move(row));
  }
}

}  // namespace

Cell summary_cell(const JsonValue& v) {
  if (v.type() == JsonValue::Type::kFloat && std::isnan(v.as_double())) return Cell::str(k::kNan);
  return cell_of(v);
}

void append_matched_rows(std::vector<Row>& out, const MergedOp& n, const MergedOp& b, CompareMode mode) {
  check_counts(n);
  check_counts(b);
  const size_t ni = n.structs[kInputGroup].size(), no = n.structs[kOutputGroup].size(),
               np = n.structs[kParamsGroup].size();
  const size_t bi = b.structs[kInputGroup].size(), bo = b.structs[kOutputGroup].size(),
               bp = b.structs[kParamsGroup].size();
  matched_group(out, n, b, mode, 0, 0, kInputGroup);
  matched_group(out, n, b, mode, ni + no, bi + bo, kParamsGroup);
  matched_group(out, n, b, mode, ni, bi, kOutputGroup);
  matched_group(out, n, b, mode, ni + no + np, bi + bo + bp, kParamsGradGroup);
}

void append_unmatched_rows(std::vector<Row>& out, const MergedOp& n, CompareMode mode) {
  std::array<size_t, 4> next{0, 0, 0, 0};
  const std::vector<size_t> order = reordered_leaves(n);
  for (size_t index = 0; index < order.size(); ++index) {
    const std::string& name = n.op_name[order[index]];
    const StructGroup group = group_of(get_name_and_state(name).state);
    const auto& structs = n.structs[group];
    if (next[group] >= structs.size())
      throw InvalidInput("index out of bounds error occurs in the structs of " + n.entry);
    const LeafStruct& st = structs[next[group]++];
    Row row{Cell::str(name),   Cell::str(k::kNA), cell_of(st.dtype),
            Cell::str(k::kNA), cell_of(st.shape), Cell::str(k::kNA)};
    // append_stack_info: the stack goes on the entry's first row, whatever its state.
    const Cell stack = (n.has_stack && index == 0) ? stack_cell(n) : Cell::str(k::kNone);
    if (mode == CompareMode::kMd5) {
      row.insert(row.end(), 3, Cell::str(k::kNA));
      row.push_back(stack);
      out.push_back(std::move(row));
      continue;
    }
    row.insert(row.end(), mode == CompareMode::kStatistics ? 8 : 5, Cell::str(k::kNA));
    for (const auto& v : n.summary[order[index]]) row.push_back(cell_of(v));
    row.insert(row.end(), 4, Cell::str(k::kNA));
    row.push_back(Cell::str(k::kNA));
    row.push_back(Cell::str(k::kNoBench));
    row.push_back(stack);
    if (mode == CompareMode::kTensor) row.push_back(Cell::str("-1"));
    out.push_back(std::move(row));
  }
}

void finish_rows(std::vector<Row>& rows, CompareMode mode, bool stack_mode) {
  const size_t width = table_header(mode, stack_mode).size();
  for (auto& row : rows) {
    if (!stack_mode) {
      // the stack is the last column, or the one before Data_name in tensor mode
      const size_t drop = mode == CompareMode::kTensor ? 2 : 1;
      if (row.size() >= drop) row.erase(row.end() - drop);
    }
    if (row.size() > width)
      throw InvalidInput("a result row has more cells than the header (" + cell_str(row[0]) + ")");
    row.resize(width, Cell::empty());
  }
}

}  // namespace compare
}  // namespace msprobe
