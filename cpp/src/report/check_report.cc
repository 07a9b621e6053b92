#include "msprobe/report/check_report.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "msprobe/check/csv_table.h"
#include "msprobe/compare/row_name.h"
#include "report_page.h"

namespace msprobe {
namespace report {
namespace {

using compare::Cell;

// A CSV field as the table cell pandas would read: numbers as numbers, " " and "" as empty.
Cell field_cell(const std::string_view* f) {
  if (!f) return Cell::empty();
  std::string s(*f);
  if (s.empty() || s == " ") return Cell::empty();
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() && *end == '\0') return Cell::num(d);
  return Cell::str(s);
}

uint8_t status_verdict(const Cell& c) {
  if (!c.is_string()) return kNoData;
  const std::string s = to_lower(c.s);
  if (s == "pass") return kPass;
  if (s == "warning") return kWarning;
  if (s == "error") return kError;
  if (s == "skip") return kUnmatched;  // shown as "skipped"
  return kNoData;
}

// An English title for 1.2.1's Chinese metric columns, built from their terms; the name itself
// when some part is not known.
std::string english_title(const std::string& name) {
  static const std::pair<const char*, const char*> kTerms[] = {
      {"ULP误差大于阈值占比", "ULP err > threshold share"},
      {"二进制一致错误率", "binary mismatch rate"},
      {"小值域错误占比", "small-value err share"},
      {"相对误差最大值", "max rel err"},
      {"相对误差平均值", "mean rel err"},
      {"相对误差错误率", "rel err rate"},
      {"绝对误差错误率", "abs err rate"},
      {"ULP误差最大值", "max ULP err"},
      {"ULP误差平均值", "mean ULP err"},
      {"余弦相似度", "cosine"},
      {"最大绝对误差", "max abs err"},
      {"双百指标", "1% ratio"},
      {"双千指标", "0.1% ratio"},
      {"双万指标", "0.01% ratio"},
      {"误差均衡性", "error balance"},
      {"均方根误差", "RMSE"},
      {"小值域错误", "small-value err"},
      {"二进制一致", "binary"},
      {"ULP误差", "ULP err"},
      {"相对误差", "rel err"},
      {"错误率", " err rate"},
      {"判定结果", " verdict"},
      {"比对结果", "compare result"},
      {"比对算法", "algorithm"},
      {"比值", " ratio"},
      {"小值域", "small-value"}};
  std::string out = name;
  for (const auto& [zh, en] : kTerms) {
    for (size_t at = out.find(zh); at != std::string::npos; at = out.find(zh, at + std::strlen(en)))
      out.replace(at, std::strlen(zh), en);
  }
  for (unsigned char c : out)
    if (c >= 0x80) return name;
  return out;
}

}  // namespace

std::string check_report_path(const std::string& details_csv) {
  size_t slash = details_csv.rfind('/');
  size_t at = details_csv.rfind("details_");
  std::string base = details_csv.size() > 4 && details_csv.compare(details_csv.size() - 4, 4, ".csv") == 0
                         ? details_csv.substr(0, details_csv.size() - 4)
                         : details_csv;
  if (at != std::string::npos && (slash == std::string::npos || at > slash))
    return details_csv.substr(0, at) + "report_" + base.substr(at + 8) + ".html";
  return base + ".html";
}

std::string render_check_report(const std::string& details_csv, const std::string& title) {
  check::CsvTable csv = check::CsvTable::read_file(details_csv);
  const int name_col = csv.column("API Name");
  int status_col = csv.column("Status");  // run_ut
  const bool precision = status_col < 0;
  if (precision) status_col = csv.column("比对结果");  // api_precision_compare: compare result
  if (name_col < 0 || status_col < 0)
    throw InvalidInput(details_csv +
                       ": not a run_ut or api_precision_compare details CSV (needs "
                       "the columns 'API Name' and 'Status' or '比对结果')");

  compare::CompareTable table;
  for (std::string_view h : csv.header()) table.header.emplace_back(h);
  // The plotted value: run_ut's max relative error (else max absolute error); for
  // api_precision_compare the worst ratio of the device's error to the reference's.
  std::vector<int> value_cols;
  if (precision) {
    for (size_t c = 0; c < table.header.size(); ++c)
      if (table.header[c].size() > 6 && table.header[c].compare(table.header[c].size() - 6, 6, "比值") == 0)
        value_cols.push_back((int)c);
  } else {
    for (const char* name : {"相对误差最大值", "最大绝对误差"})
      if (csv.column(name) >= 0) value_cols.push_back(csv.column(name));
  }
  std::vector<uint8_t> verdict;
  std::vector<double> value;
  std::vector<std::pair<std::string, std::string>> groups;  // entry -> API (the tree)
  std::vector<std::string> seen_entries;
  for (size_t r = 0; r < csv.num_rows(); ++r) {
    std::vector<Cell> row;
    for (size_t c = 0; c < table.header.size(); ++c) row.push_back(field_cell(csv.cell(r, c)));
    verdict.push_back(status_verdict(row[status_col]));
    double v = std::nan("");
    for (int c : value_cols) {
      if (!row[c].is_number()) continue;
      if (std::isnan(v) || row[c].d > v) v = row[c].d;
      if (!precision) break;  // the first available of max relative / max absolute error
    }
    value.push_back(v);
    const std::string name = row[name_col].is_string() ? row[name_col].s : "";
    compare::RowName rn = compare::split_row_name(name);
    if (!rn.entry.empty() && (seen_entries.empty() || seen_entries.back() != rn.entry)) {
      seen_entries.push_back(rn.entry);
      size_t at = rn.entry.rfind(rn.forward ? ".forward" : ".backward");
      if (at != std::string::npos) groups.emplace_back(rn.entry, rn.entry.substr(0, at));
    }
    // The API name is the row name column of the page.
    if (name_col != 0) std::swap(row[0], row[name_col]);
    table.rows.push_back(std::move(row));
  }
  if (name_col != 0) std::swap(table.header[0], table.header[name_col]);
  table.fills.assign(table.rows.size(), compare::Fill::kNone);

  PageInput page;
  page.kind = "check";
  page.title =
      title.empty() ? (precision ? "msprobe api_precision_compare report" : "msprobe run_ut report") : title;
  page.mode = precision ? "api_precision_compare" : "run_ut";
  page.value_label = precision ? "worst ratio of the device's error to the reference device's"
                               : "max relative error (max absolute error where it is absent)";
  page.runs.push_back({precision ? "api_precision_compare" : "run_ut", details_csv, "pytorch", "", ""});
  PartInput p;
  p.table = &table;
  p.row_verdict = std::move(verdict);
  p.row_value = std::move(value);
  p.construct = &groups;
  p.group_verdicts = true;
  for (const std::string& h : table.header) p.column_labels.push_back(english_title(h));
  page.parts.push_back(std::move(p));
  return render_page(page);
}

}  // namespace report
}  // namespace msprobe
