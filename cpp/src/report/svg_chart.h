// What the script-free pages (grad_probe, training monitor) share: HTML text escaping, numbers
// for SVG attributes, the page's head, and a line chart along steps as inline SVG.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace msprobe {
namespace report {

std::string html_escape(const std::string& s);
// snprintf(fmt, v).
std::string svg_num(double v, const char* fmt = "%.1f");

// The page's start up to its <h1>: title, the shared style (body, tables, .bad, .good, legends)
// and `extra_css`.
std::string simple_page_head(const std::string& heading, const std::string& extra_css);

// The colour of the i-th line (ten, repeating).
const char* line_color(size_t i);

struct ChartLine {
  std::string name;
  std::vector<int64_t> steps;
  std::vector<double> values;  // non-finite values are left out of the line
};

struct ChartMark {  // a point drawn as a red ring with its text as tooltip
  int64_t step = 0;
  double value = 0;
  std::string text;
};

// One chart: a line per ChartLine, the y range from the finite values, marks on top.
std::string svg_line_chart(const std::vector<ChartLine>& lines, const std::vector<ChartMark>& marks,
                           const std::string& label);

}  // namespace report
}  // namespace msprobe
