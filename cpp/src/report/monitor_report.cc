// The training monitor's page: the csv files read back along steps (monitor_csv_series.h), the
// anomalies from anomaly_detected/rank{R}/anomaly.json, drawn with svg_chart.h.
#include "msprobe/report/monitor_report.h"

#include <dirent.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/base/strings.h"
#include "msprobe/format/py_value.h"
#include "msprobe/monitor/anomaly_file.h"
#include "msprobe/monitor/monitor_csv_series.h"
#include "report/svg_chart.h"

namespace msprobe {
namespace report {
namespace {

using monitor::AnomalyEntry;
using monitor::MonitorCsvSeries;

struct RankFolder {
  int64_t rank = -1;
  std::string name, path;
};

// The rank of a folder named as 1.2.1 names them ("...-rank{R}-..."), or -1.
int64_t rank_of(const std::string& name) {
  const size_t at = name.find("-rank");
  if (at == std::string::npos) return -1;
  size_t i = at + 5, j = i;
  while (j < name.size() && j - i < 5 && name[j] >= '0' && name[j] <= '9') ++j;
  if (j == i || j >= name.size() || name[j] != '-') return -1;
  return std::stoll(name.substr(i, j - i));
}

bool has_monitor_csv(const std::string& dir) {
  for (const std::string& type : monitor::monitor_data_types()) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return false;
    bool found = false;
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      found = found || (starts_with(n, type + "_") && ends_with(n, ".csv"));
    }
    ::closedir(d);
    if (found) return true;
  }
  return false;
}

std::vector<RankFolder> rank_folders(const std::string& path) {
  std::vector<RankFolder> out;
  if (has_monitor_csv(path)) {
    out.push_back({rank_of(file_name_of(path)), file_name_of(path), path});
    return out;
  }
  DIR* d = ::opendir(path.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    const std::string p = join_path(path, n);
    const int64_t r = rank_of(n);
    if (r >= 0 && is_folder(p) && has_monitor_csv(p)) out.push_back({r, n, p});
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const RankFolder& a, const RankFolder& b) {
    return std::tie(a.rank, a.name) < std::tie(b.rank, b.name);
  });
  return out;
}

// Where an anomaly is drawn: its data type, series name ("vp0:fc_0") and column ("output.mean").
struct Place {
  std::string data_type, series, column;
};

Place place_of(const AnomalyEntry& e) {
  Place p;
  const std::string& tag = e.tag_name;
  const size_t slash = tag.find('/');
  const std::string name = tag.substr(0, slash);
  const std::string what = slash == std::string::npos ? "" : tag.substr(tag.rfind('/') + 1);
  const size_t colon = name.find(':');
  p.series = colon == std::string::npos ? "vp0:" + name
                                        : "vp" + name.substr(0, colon) + ":" + name.substr(colon + 1);
  // The op is the second element of 1.2.1's message "... in ('tag', 'op') at step N."
  std::string op;
  const size_t q = e.message.rfind("', '");
  if (q != std::string::npos) op = e.message.substr(q + 4, e.message.find('\'', q + 4) - q - 4);
  static const std::map<std::string, std::string> kType = {{"input", "actv"},
                                                           {"output", "actv"},
                                                           {"input_grad", "actv_grad"},
                                                           {"output_grad", "actv_grad"},
                                                           {"post_grad", "grad_reduced"},
                                                           {"acc_grad", "grad_unreduced"},
                                                           {"pre_grad", "grad_unreduced"},
                                                           {"exp_avg", "exp_avg"},
                                                           {"efxp_avg_sq", "exp_avg_sq"},
                                                           {"", "param"}};
  auto it = kType.find(what);
  p.data_type = it == kType.end() ? "" : it->second;
  p.column = p.data_type.rfind("actv", 0) == 0 ? what + "." + op : op;
  return p;
}

std::string rank_section(const RankFolder& f, const std::vector<AnomalyEntry>& anomalies) {
  std::string out = "<section>\n<h2>" + html_escape(f.rank >= 0 ? "rank " + std::to_string(f.rank) : f.name) +
                    "</h2>\n<p class=\"path\">" + html_escape(f.path) + "</p>\n";
  if (anomalies.empty()) {
    out += "<p class=\"good\">No anomaly recorded.</p>\n";
  } else {
    out += "<p class=\"bad\">" + std::to_string(anomalies.size()) +
           " anomalies; the earliest first (forward before backward before the optimizer):</p>\n"
           "<table><tr><th>step</th><th>tag</th><th>message</th></tr>\n";
    for (size_t i = 0; i < anomalies.size() && i < 50; ++i)
      out += "<tr><td>" + std::to_string(anomalies[i].step) + "</td><td>" +
             html_escape(anomalies[i].tag_name) + "</td><td>" + html_escape(anomalies[i].message) +
             "</td></tr>\n";
    out += "</table>\n";
  }
  for (const std::string& type : monitor::monitor_data_types()) {
    const MonitorCsvSeries t = monitor::read_monitor_csv_series(f.path, type);
    if (t.series.empty()) continue;
    out += "<h3>" + html_escape(type) + "</h3>\n";
    for (size_t j = 0; j < t.ops.size(); ++j) {
      std::vector<ChartLine> lines;
      for (const auto& s : t.series) {
        ChartLine l;
        l.name = s.name;
        l.steps = s.steps;
        for (const auto& v : s.values) l.values.push_back(v[j]);
        lines.push_back(std::move(l));
      }
      std::vector<ChartMark> marks;
      for (const AnomalyEntry& e : anomalies) {
        const Place p = place_of(e);
        if (p.data_type != type || p.column != t.ops[j]) continue;
        for (const auto& l : lines) {
          if (l.name != p.series) continue;
          for (size_t k = 0; k < l.steps.size(); ++k)
            if (l.steps[k] == e.step) marks.push_back({e.step, l.values[k], e.message});
        }
      }
      out +=
          "<h4>" + html_escape(t.ops[j]) +
          (marks.empty() ? "" : " <span class=\"bad\">(" + std::to_string(marks.size()) + " marked)</span>") +
          "</h4>\n" + svg_line_chart(lines, marks, type + " " + t.ops[j]);
      out += "<p class=\"legend\">";
      for (size_t i = 0; i < lines.size(); ++i)
        out += "<span style=\"color:" + std::string(line_color(i)) + "\">&#9632; " +
               html_escape(lines[i].name) + "</span> ";
      out += "</p>\n";
    }
  }
  return out + "</section>\n";
}

}  // namespace

bool is_monitor_output(const std::string& path) { return is_folder(path) && !rank_folders(path).empty(); }

std::string render_monitor_report(const std::string& path, const std::string& title) {
  const std::vector<RankFolder> folders = rank_folders(path);
  MSPROBE_CHECK(is_folder(path) && !folders.empty(), InvalidInput,
                path + ": not a training monitor output (no {time}-rank{R}-{id} folder with its csv files)");
  std::vector<AnomalyEntry> all;
  const std::string anomaly_dir = join_path(path, "anomaly_detected");
  if (is_folder(anomaly_dir)) {
    all = monitor::read_anomalies(anomaly_dir);
    if (!all.empty()) all = monitor::earliest_anomalies(all, (int64_t)all.size(), {});
  }
  const std::string heading = title.empty() ? "Training monitor" : title;
  std::string html =
      simple_page_head(heading,
                       "td,th{text-align:left}.path{color:#666;font-size:12px}"
                       "h4{margin:16px 0 4px}") +
      "<p>" + html_escape(path) + " &mdash; generated " + timestamp_now() +
      ". Each chart is one statistic along the steps, one line per module or parameter; a red ring is a "
      "value "
      "an alert rule flagged (anomaly.json).</p>\n";
  for (const RankFolder& f : folders) {
    std::vector<AnomalyEntry> mine;
    for (const AnomalyEntry& e : all)
      if (e.rank == f.rank) mine.push_back(e);
    html += rank_section(f, mine);
  }
  return html + "</body></html>\n";
}

}  // namespace report
}  // namespace msprobe
