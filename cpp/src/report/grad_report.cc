// The GradComparator page: inline SVG, no script, so that it opens anywhere from disk.
#include "msprobe/report/grad_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "msprobe/base/error.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/grad/grad_compare.h"
#include "report/svg_chart.h"

namespace msprobe {
namespace report {
namespace {

using grad::GradDivergence;
using grad::GradSimilarities;

std::string escape(const std::string& s) { return html_escape(s); }
std::string num(double v, const char* fmt = "%.1f") { return svg_num(v, fmt); }

struct RankPart {
  std::string label;  // "rank0" or ""
  GradSimilarities s;
  GradDivergence d;
};

// Similarity along the steps: one line per parameter (summary in black, thicker), the first
// divergent step marked.
std::string chart(const RankPart& p) {
  const GradSimilarities& s = p.s;
  const double w = 760, h = 320, left = 56, right = 16, top = 16, bottom = 40;
  double lo = 1.0;
  for (const auto& row : s.values)
    for (double v : row) lo = std::min(lo, v);
  lo = std::max(0.0, std::floor(lo * 10 - 1e-9) / 10);
  if (lo >= 1.0) lo = 0.9;
  const int64_t first = s.steps.empty() ? 0 : s.steps.front(), last = s.steps.empty() ? 1 : s.steps.back();
  const double span = last > first ? (double)(last - first) : 1.0;
  auto x = [&](int64_t step) { return left + (w - left - right) * ((double)(step - first) / span); };
  auto y = [&](double v) { return top + (h - top - bottom) * (1.0 - (v - lo) / (1.0 - lo)); };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w, "%.0f") + "\" height=\"" +
                    num(h, "%.0f") + "\" role=\"img\" aria-label=\"similarity along steps\">\n";
  svg += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(w - left - right) +
         "\" height=\"" + num(h - top - bottom) + "\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double v = lo + (1.0 - lo) * i / 4;
    svg += "<line x1=\"" + num(left) + "\" x2=\"" + num(w - right) + "\" y1=\"" + num(y(v)) + "\" y2=\"" +
           num(y(v)) + "\" stroke=\"#e5e5e5\"/><text x=\"" + num(left - 6) + "\" y=\"" + num(y(v) + 4) +
           "\" text-anchor=\"end\" font-size=\"11\">" + num(v, "%.3g") + "</text>\n";
  }
  const size_t ticks = std::min<size_t>(s.steps.size(), 12);
  for (size_t i = 0; i < ticks; ++i) {
    const int64_t step = s.steps[ticks > 1 ? i * (s.steps.size() - 1) / (ticks - 1) : 0];
    svg += "<text x=\"" + num(x(step)) + "\" y=\"" + num(h - bottom + 16) +
           "\" text-anchor=\"middle\" font-size=\"11\">" + std::to_string(step) + "</text>\n";
  }
  svg += "<text x=\"" + num(left + (w - left - right) / 2) + "\" y=\"" + num(h - 6) +
         "\" text-anchor=\"middle\" font-size=\"12\">step</text>\n";
  if (p.d.found) {
    svg += "<line x1=\"" + num(x(p.d.step)) + "\" x2=\"" + num(x(p.d.step)) + "\" y1=\"" + num(top) +
           "\" y2=\"" + num(h - bottom) + "\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>\n";
  }
  for (size_t i = 0; i < s.names.size(); ++i) {
    const bool summary = i + 1 == s.names.size();
    std::string points;
    for (size_t j = 0; j < s.steps.size(); ++j)
      points += num(x(s.steps[j])) + "," + num(y(s.values[i][j])) + " ";
    const std::string color = summary ? "#000" : line_color(i);
    svg += "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"" + (summary ? "2.5" : "1.2") +
           "\" points=\"" + points + "\"><title>" + escape(s.names[i]) + "</title></polyline>\n";
    if (s.steps.size() == 1) {
      svg += "<circle cx=\"" + num(x(s.steps[0])) + "\" cy=\"" + num(y(s.values[i][0])) +
             "\" r=\"3\" fill=\"" + color + "\"/>\n";
    }
  }
  return svg + "</svg>\n";
}

std::string rank_section(const RankPart& p) {
  std::string out = "<section>\n";
  if (!p.label.empty()) out += "<h2>" + escape(p.label) + "</h2>\n";
  out += std::string("<p class=\"") + (p.d.found ? "bad" : "good") + "\">" +
         escape(grad::divergence_line(p.d)) + "</p>\n";
  out += chart(p);
  out += "<p class=\"legend\">";
  for (size_t i = 0; i < p.s.names.size(); ++i) {
    const bool summary = i + 1 == p.s.names.size();
    out += "<span style=\"color:" + std::string(summary ? "#000" : line_color(i)) + "\">&#9632; " +
           escape(p.s.names[i]) + "</span> ";
  }
  out += "</p>\n<table>\n<tr><th>parameter</th>";
  for (int64_t step : p.s.steps) out += "<th>" + std::to_string(step) + "</th>";
  out += "</tr>\n";
  for (size_t i = 0; i < p.s.names.size(); ++i) {
    out += "<tr><td>" + escape(p.s.names[i]) + "</td>";
    for (size_t j = 0; j < p.s.steps.size(); ++j) {
      bool flagged = false;
      for (const GradDivergence::Param& q : p.d.params)
        flagged |= q.name == p.s.names[i] && p.s.steps[j] == p.d.step;
      out += std::string(flagged ? "<td class=\"bad\">" : "<td>") + num(p.s.values[i][j], "%.4f") + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n</section>\n";
}

}  // namespace

bool is_grad_compare_output(const std::string& path) {
  if (!is_folder(path)) return false;
  if (is_regular_file(join_path(path, "similarities.csv"))) return true;
  for (const std::string& r : numbered_names(path, "rank"))
    if (is_regular_file(join_path(join_path(path, r), "similarities.csv"))) return true;
  return false;
}

std::string render_grad_report(const std::string& path, const std::string& title) {
  MSPROBE_CHECK(is_grad_compare_output(path), InvalidInput,
                path + ": not a GradComparator output (no similarities.csv in it or in its rank folders)");
  std::vector<RankPart> parts;
  auto add = [&](const std::string& dir, const std::string& label) {
    RankPart p;
    p.label = label;
    p.s = grad::read_similarities_csv(join_path(dir, "similarities.csv"));
    p.d = grad::find_grad_divergence(p.s);
    parts.push_back(std::move(p));
  };
  if (is_regular_file(join_path(path, "similarities.csv"))) add(path, "");
  for (const std::string& r : numbered_names(path, "rank")) {
    const std::string dir = join_path(path, r);
    if (r.size() > 4 && is_regular_file(join_path(dir, "similarities.csv"))) add(dir, r);
  }
  const std::string heading = title.empty() ? "Gradient direction similarity" : title;
  std::string html =
      simple_page_head(heading, "td,th{text-align:right}td:first-child{text-align:left}") + "<p>" +
      escape(path) + " &mdash; generated " + timestamp_now() +
      ". A parameter's similarity is the share of its gradient's elements whose direction (&gt; 0 or not) is "
      "the "
      "same in both runs; summary weighs the parameters by size. Directions part where a similarity is below "
      "0.97 at the first step or drops by more than 0.03 from one step to the next (1.2.1's rule of "
      "thumb).</p>\n";
  for (const RankPart& p : parts) html += rank_section(p);
  return html + "</body></html>\n";
}

}  // namespace report
}  // namespace msprobe
