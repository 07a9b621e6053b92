#include "msprobe/report/compare_report.h"

#include <algorithm>
#include <cstdio>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "report_page.h"

namespace msprobe {
namespace report {
namespace {

using compare::Cell;
using compare::CompareMode;
using compare::CompareTable;
using compare::Fill;

// A row's verdict: unmatched when the bench side is missing; otherwise the worst of its 1.2.1
// highlight (red error, yellow warning) and its result column (Result: Warning / Different,
// Accuracy Reached or Not: No).
std::vector<uint8_t> row_verdicts(const CompareTable& t) {
  const int bench = t.column("Bench Name");
  const int result = t.column("Result");
  const int accuracy = t.column("Accuracy Reached or Not");
  std::vector<uint8_t> out(t.rows.size(), kPass);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    if (bench >= 0 && bench < (int)row.size()) {
      const Cell& b = row[bench];
      if (b.is_empty() || (b.is_string() && (b.s == "N/A" || b.s.empty()))) {
        out[r] = kUnmatched;
        continue;
      }
    }
    uint8_t v = kPass;
    if (r < t.fills.size()) {
      if (t.fills[r] == Fill::kRed)
        v = kError;
      else if (t.fills[r] == Fill::kYellow)
        v = kWarning;
    }
    for (int c : {result, accuracy}) {
      if (c < 0 || c >= (int)row.size() || !row[c].is_string()) continue;
      std::string s = to_lower(row[c].s);
      if (s == "different" || s == "no" || s == "error")
        v = std::max<uint8_t>(v, kError);
      else if (s == "warning")
        v = std::max<uint8_t>(v, kWarning);
    }
    // With the suspects marked, only they are errors: what 1.2.1's row rules flag besides is a
    // warning, so that the counts and the Suspects box tell the same story.
    if (r < t.divergence.size())
      v = t.divergence[r] == compare::kSuspect                    ? kError
          : v == kPass && t.divergence[r] == compare::kNotSuspect ? kPass
                                                                  : kWarning;
    out[r] = v;
  }
  return out;
}

const char* mode_name(CompareMode m) {
  switch (m) {
    case CompareMode::kTensor: return "tensor";
    case CompareMode::kMd5: return "md5";
    default: return "statistics";
  }
}

std::string part_label(int rank, int step) {
  std::string s;
  if (step >= 0) s += "step" + std::to_string(step);
  if (rank >= 0) s += (s.empty() ? "" : "/") + std::string("rank") + std::to_string(rank);
  return s;
}

}  // namespace

std::string render_compare_report(const ReportInput& in) {
  if (in.ranks.empty()) throw InvalidInput("compare report: no compared rank to show");
  PageInput page;
  page.kind = "compare";
  page.title = in.title.empty() ? "msprobe compare report" : in.title;
  page.generated_at = in.generated_at;
  page.runs = in.runs;
  std::vector<compare::Suspect> merged;
  for (const RankInput& r : in.ranks) {
    if (!r.table) throw InvalidInput("compare report: rank " + std::to_string(r.rank) + " has no table");
    PartInput p;
    p.label = part_label(r.rank, r.step);
    p.rank = r.rank;
    p.step = r.step;
    p.table = r.table;
    for (const std::string& note : r.table->notes) page.notes.push_back(note);  // torn or incomplete
    p.row_verdict = row_verdicts(*r.table);
    compare::DivergenceContext ctx;
    ctx.rank = r.rank;
    ctx.step = r.step;
    p.row_value = compare::row_relative_errors(*r.table, ctx);
    p.construct = r.construct;
    p.stacks = r.stacks;
    p.suspects = r.suspects;
    if (r.suspects && !in.top_suspects) merged.insert(merged.end(), r.suspects->begin(), r.suspects->end());
    page.parts.push_back(std::move(p));
  }
  page.mode = mode_name(in.ranks.front().table->mode);
  page.value_label = page.mode == "md5"      ? "outputs differ (1) or equal (0)"
                     : page.mode == "tensor" ? "relative error ||npu - bench|| / ||bench||"
                                             : "relative error of the statistics";
  if (in.top_suspects) {
    page.top_suspects = *in.top_suspects;
  } else {
    if (in.ranks.size() > 1) compare::rank_suspects(&merged);
    page.top_suspects = std::move(merged);
  }
  return render_page(page);
}

void write_report_file(const std::string& path, const std::string& html) {
  write_file_atomically(path, html);  // readers see the old page or the new one, never half
}

}  // namespace report
}  // namespace msprobe
