// The first divergence's verdict written into the compare table (divergence.h,
// mark_suspect_rows), so that the xlsx, the advisor and the report say what the suspects say.
#include <algorithm>

#include "msprobe/compare/compare_const.h"
#include "msprobe/compare/divergence.h"
#include "msprobe/compare/row_name.h"

namespace msprobe {
namespace compare {

void mark_suspect_rows(CompareTable& table, const std::vector<Suspect>& suspects) {
  table.divergence.assign(table.rows.size(), kNotSuspect);
  if (suspects.empty()) return;
  const int name_col = table.column("NPU Name");
  const int bench_col = table.column("Bench Name");
  const int message_col = table.column("Err_message");
  const int result_col =
      table.mode == CompareMode::kTensor ? table.column("Accuracy Reached or Not") : table.column("Result");
  const char* failing = table.mode == CompareMode::kTensor ? "No"
                        : table.mode == CompareMode::kMd5  ? "Different"
                                                           : "Warning";
  if (name_col < 0) return;
  // Row names of each suspect: a call's outputs, a source's input row.
  std::unordered_map<std::string, const Suspect*> by_row;
  std::unordered_map<std::string, const Suspect*> by_entry;
  for (const Suspect& s : suspects) {
    if (s.source)
      by_row.emplace(s.source_row, &s);
    else
      by_entry.emplace(s.name, &s);
  }
  table.fills.resize(table.rows.size(), Fill::kNone);
  for (size_t r = 0; r < table.rows.size(); ++r) {
    std::vector<Cell>& row = table.rows[r];
    if (name_col >= (int)row.size() || row[name_col].kind != Cell::Kind::kString) continue;
    const std::string& name = row[name_col].s;
    const Suspect* s = nullptr;
    auto at_row = by_row.find(name);
    if (at_row != by_row.end()) {
      s = at_row->second;
    } else {
      const RowName rn = split_row_name(name);
      auto at_entry = by_entry.find(rn.entry);
      if (at_entry != by_entry.end() && (rn.role == RowRole::kOutput || rn.role == RowRole::kParametersGrad))
        s = at_entry->second;
    }
    // A row without a bench row was not judged.
    if (!s || (bench_col >= 0 && bench_col < (int)row.size() && row[bench_col].kind == Cell::Kind::kString &&
               row[bench_col].s == k::kNA))
      continue;
    const bool high = s->tier < 2;
    table.divergence[r] = high ? kSuspect : kLowSuspect;
    if (high) {
      table.fills[r] = Fill::kRed;
      if (result_col >= 0 && result_col < (int)row.size()) row[result_col] = Cell::str(failing);
    } else if (table.fills[r] == Fill::kNone) {
      table.fills[r] = Fill::kYellow;
    }
    if (message_col >= 0 && message_col < (int)row.size()) {
      std::string text = row[message_col].kind == Cell::Kind::kString ? row[message_col].s : "";
      text += std::string(s->source ? "Source" : "First divergence") + " (" + confidence_name(s->tier) +
              "): " + s->reason + ".";
      row[message_col] = Cell::str(text);
    }
  }
}

}  // namespace compare
}  // namespace msprobe
