#include "msprobe/report/dump_report.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "msprobe/base/error.h"
#include "msprobe/base/path.h"
#include "msprobe/base/strings.h"
#include "msprobe/format/json_text.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/side_files.h"
#include "msprobe/report/dump_parts.h"
#include "report_page.h"

namespace msprobe {
namespace report {
namespace {

using compare::Cell;
using compare::CompareTable;

std::string shape_text(const JsonValue& v) {
  if (!v.is_array()) return v.is_null() ? "" : v.is_string() ? v.as_string() : "?";
  std::string s = "[";
  for (size_t i = 0; i < v.as_array().size(); ++i) {
    if (i) s += ", ";
    const JsonValue& d = v.as_array()[i];
    if (d.is_int())
      s += std::to_string(d.as_int());
    else
      s += "?";
  }
  return s + "]";
}

Cell stat_cell(const JsonValue* v) {
  if (!v || v->is_null()) return Cell::empty();
  if (v->is_bool()) return Cell::boolean(v->as_bool());
  if (v->is_number()) return Cell::num(v->as_double());
  if (v->is_string()) return Cell::str(v->as_string());
  return Cell::empty();
}

double number(const Cell& c) {
  if (c.is_number()) return c.d;
  if (c.is_string()) {
    const std::string s = to_lower(c.s);
    if (s == "inf" || s == "-inf" || s == "infinity" || s == "-infinity") return HUGE_VAL;
    if (s == "nan") return std::nan("");
  }
  return std::nan("");
}

// inf or nan, as a number or as the text 1.2.1 writes for them.
bool is_nonfinite(const Cell& c) {
  if (c.is_number()) return !std::isfinite(c.d);
  return c.is_string() && !std::isfinite(number(c));
}

// The rows of one dump: one per tensor or scalar, named as 1.2.1's compare names them.
struct TableBuilder {
  CompareTable table;
  std::vector<uint8_t> verdict;
  std::vector<double> value;
  bool has_md5 = false;

  void leaf(const std::string& name, const JsonValue& v, bool input_side) {
    std::vector<Cell> row(8);
    row[0] = Cell::str(name);
    const JsonValue* type = v.find("type");
    const JsonValue* dtype = v.find("dtype");
    const JsonValue* value_v = v.find("value");
    if (dtype && dtype->is_string()) {
      row[1] = Cell::str(dtype->as_string());
      row[2] = Cell::str(shape_text(v.find("shape") ? *v.find("shape") : JsonValue()));
      row[3] = stat_cell(v.find("Max"));
      row[4] = stat_cell(v.find("Min"));
      row[5] = stat_cell(v.find("Mean"));
      row[6] = stat_cell(v.find("Norm"));
    } else {
      row[1] = Cell::str(type && type->is_string() ? type->as_string() : "");
      if (value_v && value_v->is_array()) {
        row[2] = Cell::str(shape_text(*value_v));
      } else {
        row[2] = Cell::str("[]");
        row[3] = row[4] = row[5] = stat_cell(value_v);
      }
    }
    if (const JsonValue* md5 = v.find("md5"); md5 && md5->is_string()) {
      row[7] = Cell::str(md5->as_string());
      has_md5 = true;
    }
    double mx = number(row[3]), mn = number(row[4]);
    bool nonfinite = is_nonfinite(row[3]) || is_nonfinite(row[4]);
    verdict.push_back(nonfinite ? (input_side ? kWarning : kError) : kPass);
    double mag = std::max(std::isnan(mx) ? 0.0 : std::fabs(mx), std::isnan(mn) ? 0.0 : std::fabs(mn));
    value.push_back(nonfinite ? HUGE_VAL : (row[3].is_number() || row[4].is_number()) ? mag : std::nan(""));
    table.rows.push_back(std::move(row));
  }

  void walk(const std::string& name, const JsonValue& v, bool input_side, bool grad, int depth) {
    if (depth > 64 || v.is_null()) return;
    if (v.is_array()) {
      const auto& a = v.as_array();
      for (size_t i = 0; i < a.size(); ++i)
        walk(grad ? name : name + "." + std::to_string(i), a[i], input_side, grad, depth + 1);
    } else if (v.is_object()) {
      const JsonValue* type = v.find("type");
      if (type && type->is_string()) {
        leaf(name, v, input_side);
        return;
      }
      for (const auto& [k, sub] : v.as_object()) walk(name + "." + k, sub, input_side, grad, depth + 1);
    }
  }

  void entry(std::string_view name, const JsonValue& record) {
    std::string n(name);
    if (n.find(".parameters_grad") != std::string::npos) {
      walk(n, record, false, true, 0);
      return;
    }
    static const std::pair<const char*, const char*> kKeys[] = {{"input_args", ".input"},
                                                                {"input_kwargs", ".input"},
                                                                {"input", ".input"},
                                                                {"output", ".output"},
                                                                {"parameters", ".parameters"}};
    for (const auto& [key, suffix] : kKeys)
      if (const JsonValue* v = record.find(key))
        walk(n + suffix, *v, std::string(suffix) != ".output", false, 0);
  }
};

struct LoadedPart {
  DumpPart where;
  reader::DumpHeader header;
  TableBuilder rows;
  std::vector<std::pair<std::string, std::string>> construct;
  std::unordered_map<std::string, std::vector<std::string>> stacks;
  bool has_construct = false, has_stacks = false;
};

}  // namespace

std::string render_dump_report(const std::string& dump_path, const std::string& title) {
  std::vector<std::unique_ptr<LoadedPart>> loaded;
  for (const DumpPart& part : find_dump_parts(dump_path)) {
    auto lp = std::make_unique<LoadedPart>();
    lp->where = part;
    reader::DumpJsonReader r(part.dump_json);
    lp->header = r.header();
    lp->rows.table.header = {"Name", "Dtype", "Shape", "Max", "Min", "Mean", "Norm", "MD5"};
    r.for_each_entry([&](std::string_view name, const JsonValue& record) { lp->rows.entry(name, record); });
    if (!lp->rows.has_md5) {
      lp->rows.table.header.pop_back();
      for (auto& row : lp->rows.table.rows) row.pop_back();
    }
    const std::string dir = folder_of(part.dump_json);
    const std::string construct = join_path(dir, "construct.json"), stack = join_path(dir, "stack.json");
    if (is_regular_file(construct)) {
      lp->construct = reader::read_construct_json(construct, nullptr);
      lp->has_construct = true;
    }
    if (is_regular_file(stack)) {
      lp->stacks = reader::read_stack_json(stack, nullptr);
      lp->has_stacks = true;
    }
    loaded.push_back(std::move(lp));
  }

  PageInput page;
  page.kind = "dump";
  page.title = title.empty() ? "msprobe dump report" : title;
  page.mode = loaded.front()->header.task.empty() ? "statistics" : loaded.front()->header.task;
  page.value_label = "largest |value| of the outputs (max(|Max|, |Min|))";
  RunInfo run;
  run.label = "dump";
  run.path = dump_path;
  run.framework = loaded.front()->header.framework;
  run.level = loaded.front()->header.level;
  run.task = loaded.front()->header.task;
  page.runs.push_back(run);
  for (const auto& lp : loaded) {
    PartInput p;
    p.rank = lp->where.rank;
    p.step = lp->where.step;
    if (p.step >= 0) p.label = "step" + std::to_string(p.step);
    if (p.rank >= 0) p.label += (p.label.empty() ? "" : "/") + std::string("rank") + std::to_string(p.rank);
    const std::string incomplete = reader::describe_probe_disabled(lp->header.probe_disabled);
    if (!incomplete.empty()) page.notes.push_back((p.label.empty() ? "dump" : p.label) + ": " + incomplete);
    p.table = &lp->rows.table;
    p.row_verdict = lp->rows.verdict;
    p.row_value = lp->rows.value;
    p.construct = lp->has_construct ? &lp->construct : nullptr;
    p.stacks = lp->has_stacks ? &lp->stacks : nullptr;
    page.parts.push_back(std::move(p));
  }
  return render_page(page);
}

}  // namespace report
}  // namespace msprobe
