#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace msprobe {
namespace report {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string svg_num(double v, const char* fmt) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

std::string simple_page_head(const std::string& heading, const std::string& extra_css) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(heading) +
         "</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;"
         "font-size:12px;margin:8px 0 24px}td,th{border:1px solid #ddd;padding:2px 6px}"
         ".bad{color:#b00;font-weight:bold}.good{color:#070}.legend span{margin-right:12px;font-size:12px}" +
         extra_css + "</style></head><body>\n<h1>" + html_escape(heading) + "</h1>\n";
}

const char* line_color(size_t i) {
  static const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return kColors[i % 10];
}

std::string svg_line_chart(const std::vector<ChartLine>& lines, const std::vector<ChartMark>& marks,
                           const std::string& label) {
  const double w = 760, h = 280, left = 72, right = 16, top = 16, bottom = 40;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
  for (const ChartLine& l : lines) {
    for (size_t j = 0; j < l.steps.size(); ++j) {
      first = std::min(first, l.steps[j]);
      last = std::max(last, l.steps[j]);
      if (std::isfinite(l.values[j])) {
        lo = std::min(lo, l.values[j]);
        hi = std::max(hi, l.values[j]);
      }
    }
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (hi <= lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.1);
  if (first > last) first = 0, last = 1;
  const double span = last > first ? (double)(last - first) : 1.0;
  auto x = [&](int64_t step) { return left + (w - left - right) * ((double)(step - first) / span); };
  auto y = [&](double v) { return top + (h - top - bottom) * (1.0 - (v - lo) / (hi - lo)); };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_num(w, "%.0f") +
                    "\" height=\"" + svg_num(h, "%.0f") + "\" role=\"img\" aria-label=\"" +
                    html_escape(label) + "\">\n";
  svg += "<rect x=\"" + svg_num(left) + "\" y=\"" + svg_num(top) + "\" width=\"" + svg_num(w - left - right) +
         "\" height=\"" + svg_num(h - top - bottom) + "\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double v = lo + (hi - lo) * i / 4;
    svg += "<line x1=\"" + svg_num(left) + "\" x2=\"" + svg_num(w - right) + "\" y1=\"" + svg_num(y(v)) +
           "\" y2=\"" + svg_num(y(v)) + "\" stroke=\"#e5e5e5\"/><text x=\"" + svg_num(left - 6) + "\" y=\"" +
           svg_num(y(v) + 4) + "\" text-anchor=\"end\" font-size=\"11\">" + svg_num(v, "%.4g") + "</text>\n";
  }
  for (int i = 0; i <= 6 && last > first; ++i) {
    const int64_t step = first + (int64_t)std::llround((double)(last - first) * i / 6);
    svg += "<text x=\"" + svg_num(x(step)) + "\" y=\"" + svg_num(h - bottom + 16) +
           "\" text-anchor=\"middle\" font-size=\"11\">" + std::to_string(step) + "</text>\n";
  }
  svg += "<text x=\"" + svg_num(left + (w - left - right) / 2) + "\" y=\"" + svg_num(h - 6) +
         "\" text-anchor=\"middle\" font-size=\"12\">step</text>\n";
  for (size_t i = 0; i < lines.size(); ++i) {
    const ChartLine& l = lines[i];
    std::string points;
    for (size_t j = 0; j < l.steps.size(); ++j)
      if (std::isfinite(l.values[j])) points += svg_num(x(l.steps[j])) + "," + svg_num(y(l.values[j])) + " ";
    svg += "<polyline fill=\"none\" stroke=\"" + std::string(line_color(i)) +
           "\" stroke-width=\"1.2\" points=\"" + points + "\"><title>" + html_escape(l.name) +
           "</title></polyline>\n";
    if (l.steps.size() == 1 && std::isfinite(l.values[0]))
      svg += "<circle cx=\"" + svg_num(x(l.steps[0])) + "\" cy=\"" + svg_num(y(l.values[0])) +
             "\" r=\"3\" fill=\"" + line_color(i) + "\"/>\n";
  }
  for (const ChartMark& m : marks) {
    const double v = std::isfinite(m.value) ? m.value : hi;
    svg += "<circle class=\"anomaly\" cx=\"" + svg_num(x(m.step)) + "\" cy=\"" + svg_num(y(v)) +
           "\" r=\"5\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"><title>" + html_escape(m.text) +
           "</title></circle>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace report
}  // namespace msprobe
