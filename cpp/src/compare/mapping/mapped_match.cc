// compare_process_custom of 1.2.1 (see mapped_match.h).
#include "mapped_match.h"

#include <unordered_map>

#include "compare/matching/summary_diff.h"
#include "msprobe/base/error.h"
#include "msprobe/compare/compare_const.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace compare {

namespace {

// One leaf as merge_data keeps it (ops_all[name]).
struct MappedLeaf {
  const MergedOp* op = nullptr;
  const LeafStruct* st = nullptr;
  const std::array<JsonValue, 4>* summary = nullptr;
  std::string data_name;
};

std::unordered_map<std::string, MappedLeaf> leaves_by_name(const ParsedDump& dump) {
  std::unordered_map<std::string, MappedLeaf> out;
  for (const ParsedEntry& e : dump.entries) {
    if (!e.error.empty()) throw InvalidInput(e.error);
    if (e.op.empty()) continue;
    std::array<size_t, 4> next{0, 0, 0, 0};
    for (size_t idx : reordered_leaves(e.op)) {
      const std::string& name = e.op.op_name[idx];
      const StructGroup g = group_of(get_name_and_state(name).state);
      if (next[g] >= e.op.structs[g].size())
        throw InvalidInput("index out of range in the structs of " + e.op.entry);
      MappedLeaf leaf;
      leaf.op = &e.op;
      leaf.st = &e.op.structs[g][next[g]++];
      leaf.summary = &e.op.summary[idx];
      leaf.data_name = e.op.data_name[idx];
      out[name] = leaf;  // a repeated name: the later leaf wins
    }
  }
  return out;
}

}  // namespace

void mapped_match(const ParsedDump& npu, const ParsedDump& bench,
                  const std::vector<std::pair<std::string, std::string>>& mapping, CompareMode mode,
                  std::vector<Row>& rows) {
  const auto n_leaves = leaves_by_name(npu);
  const auto b_leaves = leaves_by_name(bench);
  const Cell na = Cell::str(k::kNA);
  for (const auto& m : mapping) {
    auto ni = n_leaves.find(m.first);
    if (ni == n_leaves.end()) continue;
    // _generate_na_data: bench "N/A" is a leaf whose every field is "N/A" (it replaces a real
    // bench row of that name); with no bench leaf at all 1.2.1 fails on it.
    const bool bench_na = m.second == k::kNA;
    if (bench_na && b_leaves.empty())
      throw InvalidInput(
          "The length of npu_struct and bench_struct must be >= 2: the bench dump has no data");
    auto bi = b_leaves.find(m.second);
    if (bi == b_leaves.end() && !bench_na) continue;
    const MappedLeaf& n = ni->second;
    const MappedLeaf* b = bench_na ? nullptr : &bi->second;
    const bool has_stack = n.op->has_stack && (b ? b->op->has_stack : n.op->has_stack);
    const Cell stack = has_stack ? cell_of(n.op->stack_value()) : Cell::str(k::kNone);
    Row row{Cell::str(m.first),   Cell::str(m.second),
            cell_of(n.st->dtype), b ? cell_of(b->st->dtype) : na,
            cell_of(n.st->shape), b ? cell_of(b->st->shape) : na};
    if (mode == CompareMode::kMd5) {
      const Cell bmd5 = b ? cell_of(b->st->md5) : na;
      const bool same =
          b ? py_equal(n.st->md5, b->st->md5) : (n.st->md5.is_string() && n.st->md5.as_string() == k::kNA);
      row.push_back(cell_of(n.st->md5));
      row.push_back(bmd5);
      row.push_back(Cell::str(same ? k::kPass : k::kDiff));
      row.push_back(stack);
      rows.push_back(std::move(row));
      continue;
    }
    row.insert(row.end(), mode == CompareMode::kStatistics ? 8 : 5, Cell::str(" "));
    for (const auto& v : *n.summary) row.push_back(cell_of(v));
    std::array<JsonValue, 4> na_summary;
    for (auto& v : na_summary) v = JsonValue::make_string(k::kNA);
    const std::array<JsonValue, 4>& bsum = b ? *b->summary : na_summary;
    for (const auto& v : bsum) row.push_back(cell_of(v));
    if (mode == CompareMode::kStatistics) {
      const bool warning = apply_summary_diff(row, *n.summary, bsum);
      row.push_back(Cell::str(warning ? k::kWarning : ""));
      row.push_back(Cell::str(warning ? k::kNeedDoubleCheck : ""));
    } else {
      row.push_back(Cell::str(k::kYes));
      row.push_back(Cell::str(""));
    }
    row.push_back(stack);
    if (mode == CompareMode::kTensor) row.push_back(Cell::str(n.data_name));
    rows.push_back(std::move(row));
  }
}

}  // namespace compare
}  // namespace msprobe
