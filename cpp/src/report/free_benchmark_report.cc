#include "msprobe/report/free_benchmark_report.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cmath>
#include <set>
#include <unordered_map>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/base/path.h"
#include "msprobe/base/strings.h"
#include "msprobe/format/json_value.h"
#include "msprobe/reader/side_files.h"
#include "report_page.h"

namespace msprobe {
namespace report {
namespace {

using compare::Cell;
constexpr const char* kSummary = "free_benchmark_summary.json";

bool is_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Cell text_cell(const JsonValue* v) {
  if (!v || v->is_null()) return Cell::empty();
  if (v->is_number()) return Cell::num(v->as_double());
  if (v->is_string()) return v->as_string().empty() ? Cell::empty() : Cell::str(v->as_string());
  return Cell::empty();
}

// stack.json of every rank folder of step{step}.
void add_stacks(const std::string& dump_path, int64_t step,
                std::unordered_map<std::string, std::vector<std::string>>* stacks) {
  const std::string step_dir = join_path(dump_path, "step" + std::to_string(step));
  DIR* d = ::opendir(step_dir.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (!starts_with(name, "rank")) continue;
    const std::string file = join_path(join_path(step_dir, name), "stack.json");
    if (!is_file(file)) continue;
    try {
      for (auto& [k, v] : reader::read_stack_json(file, nullptr)) stacks->emplace(k, std::move(v));
    } catch (const Error&) {  // a damaged stack.json only loses the stacks
    }
  }
  ::closedir(d);
}

}  // namespace

std::string free_benchmark_summary_of(const std::string& path) {
  if (ends_with(path, kSummary) && is_file(path)) return path;
  const std::string in = join_path(path, kSummary);
  return is_file(in) ? in : "";
}

std::string render_free_benchmark_report(const std::string& summary_json, const std::string& title) {
  const JsonValue doc = parse_json_file(summary_json);
  const JsonValue* task = doc.find("task");
  const JsonValue* apis = doc.find("apis");
  if (!task || !task->is_string() || task->as_string() != "free_benchmark" || !apis || !apis->is_array())
    throw InvalidInput(summary_json +
                       ": not a free_benchmark summary (needs \"task\": \"free_benchmark\" and \"apis\")");
  const std::string dump_path = folder_of(summary_json);

  compare::CompareTable table;
  table.header = {"call",  "API",   "stage",   "flagged outputs", "step",  "measure",      "value",
                  "limit", "times", "max_rel", "dtype",           "shape", "output_index", "source"};
  std::vector<uint8_t> verdict;
  std::vector<double> value;
  std::vector<std::pair<std::string, std::string>> groups;
  std::unordered_map<std::string, std::vector<std::string>> stacks;
  std::set<int64_t> steps;
  for (const JsonValue& a : apis->as_array()) {
    if (!a.is_object()) continue;
    const JsonValue* call = a.find("worst_call");
    const JsonValue* api = a.find("api");
    if (!call || !call->is_string() || !api || !api->is_string()) continue;
    std::string source;
    if (const JsonValue* s = a.find("source"); s && s->is_object()) {
      const JsonValue *f = s->find("file"), *l = s->find("line"), *t = s->find("text");
      if (f && f->is_string()) source = f->as_string() + ":" + std::to_string(l ? l->as_int() : 0);
      if (t && t->is_string() && !t->as_string().empty()) source += "  " + t->as_string();
    }
    std::vector<Cell> row = {
        Cell::str(call->as_string()),      Cell::str(api->as_string()),
        text_cell(a.find("stage")),        text_cell(a.find("flagged_outputs")),
        text_cell(a.find("step")),         text_cell(a.find("measure")),
        text_cell(a.find("value")),        text_cell(a.find("limit")),
        text_cell(a.find("times_limit")),  text_cell(a.find("max_rel")),
        text_cell(a.find("dtype")),        text_cell(a.find("shape")),
        text_cell(a.find("output_index")), source.empty() ? Cell::empty() : Cell::str(source)};
    const JsonValue* times = a.find("times_limit");
    // A sign flip has no finite measure: it is plotted above every finite one.
    value.push_back(times && times->is_number() ? times->as_double() : std::nan(""));
    verdict.push_back(kError);
    groups.emplace_back(call->as_string(), api->as_string());
    if (const JsonValue* st = a.find("step"); st && st->is_int()) steps.insert(st->as_int());
    table.rows.push_back(std::move(row));
  }
  for (int64_t s : steps) add_stacks(dump_path, s, &stacks);
  // Backward rows carry the stack of their forward call.
  for (const auto& [call, api] : groups) {
    if (!ends_with(call, ".backward")) continue;
    auto it = stacks.find(call.substr(0, call.size() - 9) + ".forward");
    if (it != stacks.end()) stacks.emplace(call, it->second);
  }
  double finite_max = 0;
  for (double v : value)
    if (std::isfinite(v)) finite_max = std::max(finite_max, v);
  for (double& v : value)
    if (std::isnan(v)) v = finite_max > 0 ? finite_max * 10 : 1;
  table.fills.assign(table.rows.size(), compare::Fill::kNone);

  PageInput page;
  page.kind = "check";
  page.title = title.empty() ? "msprobe free_benchmark report" : title;
  const JsonValue* mode = doc.find("pert_mode");
  const JsonValue* handler = doc.find("handler_type");
  page.mode = "free_benchmark (" + (mode && mode->is_string() ? mode->as_string() : std::string("?")) + ", " +
              (handler && handler->is_string() ? handler->as_string() : std::string("?")) + ")";
  page.value_label = "times the precision limit (sign flips plotted on top)";
  const JsonValue* fw = doc.find("framework");
  page.runs.push_back(
      {"free_benchmark", summary_json, fw && fw->is_string() ? fw->as_string() : "pytorch", "", ""});
  const JsonValue* checked = doc.find("checked_calls");
  page.notes.push_back(std::to_string(table.rows.size()) + " APIs flagged out of " +
                       std::to_string(checked ? checked->as_int() : 0) +
                       " calls checked, worst first; free_benchmark.csv has every flagged output");
  PartInput p;
  p.table = &table;
  p.row_verdict = std::move(verdict);
  p.row_value = std::move(value);
  p.construct = &groups;
  p.stacks = &stacks;
  p.group_verdicts = true;
  page.parts.push_back(std::move(p));
  return render_page(page);
}

}  // namespace report
}  // namespace msprobe
