#include "report_page.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <unordered_set>

#include "msprobe/compare/row_name.h"
#include "msprobe/format/json_text.h"
#include "report_json.h"

namespace msprobe {
namespace report {
namespace {

using compare::CompareTable;
using compare::RowName;
using compare::RowRole;
using compare::Suspect;

constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();
const char* const kVerdictNames[] = {"nodata", "pass", "unmatched", "warning", "error"};

int name_column(const CompareTable& t) {
  int c = t.column("NPU Name");
  if (c < 0) c = t.column("Name");
  return c < 0 ? 0 : c;
}

std::string cell_text(const std::vector<compare::Cell>& row, int col) {
  return col >= 0 && col < (int)row.size() && row[col].is_string() ? row[col].s : std::string();
}

// The tree and the rows of one part, in the arrays the page reads.
struct PartModel {
  std::vector<std::string> names;  // entries: table entries in dump order, then structure only
  std::unordered_map<std::string, int> index;
  size_t with_rows = 0;  // the first with_rows entries have table rows
  std::vector<int32_t> parent;
  std::vector<uint8_t> dir;  // 1 forward, 0 backward
  std::vector<uint8_t> verdict, subtree;
  std::vector<float> value, in_value;
  std::vector<int32_t> stack;
  std::vector<int32_t> child_start, children;  // CSR; the root's children are at index n
  // rows
  std::vector<std::string> row_names;
  std::vector<int32_t> row_entry;
  std::vector<uint8_t> row_role;  // 0 input side, 1 output side
  std::vector<std::string> suffix_dict;
  std::vector<uint32_t> row_suffix;
  // stacks, deduplicated
  std::vector<std::string> stack_lines;
  std::vector<std::vector<int32_t>> stacks;

  int add_entry(const std::string& name, bool forward) {
    auto [it, inserted] = index.emplace(name, (int)names.size());
    if (inserted) {
      names.push_back(name);
      dir.push_back(forward ? 1 : 0);
      verdict.push_back(kNoData);
      value.push_back(kNaNf);
      in_value.push_back(kNaNf);
    }
    return it->second;
  }
};

bool looks_backward(const std::string& name) {
  return name.find(".backward") != std::string::npos || name.find(".parameters_grad") != std::string::npos;
}

void build_model(const PartInput& p, PartModel* m) {
  const CompareTable& t = *p.table;
  const int name_col = name_column(t);
  const size_t n_rows = t.rows.size();
  m->row_names.resize(n_rows);
  m->row_entry.resize(n_rows);
  m->row_role.resize(n_rows);
  m->row_suffix.resize(n_rows);
  std::unordered_map<std::string, uint32_t> suffix_index;
  for (size_t r = 0; r < n_rows; ++r) {
    std::string name = cell_text(t.rows[r], name_col);
    RowName rn = compare::split_row_name(name);
    std::string entry = rn.entry.empty() ? name : rn.entry;
    int e = m->add_entry(entry, rn.entry.empty() ? !looks_backward(name) : rn.forward);
    std::string suffix = name.size() > entry.size() + 1 ? name.substr(entry.size() + 1) : "";
    auto [it, inserted] = suffix_index.emplace(suffix, (uint32_t)m->suffix_dict.size());
    if (inserted) m->suffix_dict.push_back(suffix);
    m->row_suffix[r] = it->second;
    m->row_entry[r] = e;
    bool input_side =
        rn.role == RowRole::kInput || rn.role == RowRole::kKwargs || rn.role == RowRole::kParameters;
    m->row_role[r] = input_side ? 0 : 1;
    m->row_names[r] = std::move(name);
    uint8_t v = r < p.row_verdict.size() ? p.row_verdict[r] : (uint8_t)kNoData;
    m->verdict[e] = std::max(m->verdict[e], v);
    double x = r < p.row_value.size() ? p.row_value[r] : std::nan("");
    if (!std::isnan(x)) {
      float& slot = input_side ? m->in_value[e] : m->value[e];
      if (std::isnan(slot) || (float)x > slot) slot = (float)x;
    }
  }
  m->with_rows = m->names.size();

  // Parents: construct.json, then parameters_grad under its module's backward call.
  std::unordered_map<int, int> parent_of;
  std::unordered_map<std::string, int> construct_pos;
  if (p.construct) {
    int pos = 0;
    for (const auto& [child, parent] : *p.construct) {
      int c = m->add_entry(child, !looks_backward(child));
      construct_pos.emplace(child, pos++);
      if (!parent.empty()) {
        int q = m->add_entry(parent, !looks_backward(parent));
        construct_pos.emplace(parent, pos++);
        if (q != c) parent_of[c] = q;
      }
    }
  }
  const size_t n = m->names.size();
  m->parent.assign(n, -1);
  m->verdict.resize(n, kNoData);
  for (const auto& [c, q] : parent_of) m->parent[c] = q;
  {
    // "Module.x.Linear.parameters_grad" -> the next "Module.x.Linear.backward.N" in dump order
    // (the gradients are written just before that call's backward entry), else the last one.
    std::map<std::string, std::vector<int>> backward_calls;
    for (size_t e = 0; e < n; ++e) {
      size_t at = m->names[e].rfind(".backward.");
      if (at != std::string::npos && m->names[e].compare(0, 7, "Module.") == 0 &&
          m->names[e].find('.', at + 10) == std::string::npos)
        backward_calls[m->names[e].substr(0, at)].push_back((int)e);
    }
    static const std::string kGrad = ".parameters_grad";
    for (size_t e = 0; e < n; ++e) {
      const std::string& name = m->names[e];
      if (m->parent[e] >= 0 || name.size() <= kGrad.size() ||
          name.compare(name.size() - kGrad.size(), kGrad.size(), kGrad) != 0)
        continue;
      auto it = backward_calls.find(name.substr(0, name.size() - kGrad.size()));
      if (it == backward_calls.end()) continue;
      int chosen = it->second.back();
      for (int b : it->second)
        if (b > (int)e) {
          chosen = b;
          break;
        }
      m->parent[e] = chosen;
    }
  }

  // Children, ordered by construct.json position (call order), then dump order. A cycle in a
  // damaged construct.json would hide its nodes: they are moved to the root.
  auto order_key = [&](int e) {
    auto it = construct_pos.find(m->names[e]);
    return std::make_pair(it == construct_pos.end() ? std::numeric_limits<int>::max() : it->second, e);
  };
  auto build_children = [&]() {
    std::vector<std::vector<int>> kids(n + 1);
    for (size_t e = 0; e < n; ++e) kids[m->parent[e] < 0 ? n : (size_t)m->parent[e]].push_back((int)e);
    for (auto& k : kids)
      std::sort(k.begin(), k.end(), [&](int a, int b) { return order_key(a) < order_key(b); });
    return kids;
  };
  std::vector<std::vector<int>> kids = build_children();
  std::vector<char> reached(n, 0);
  std::vector<int> stack_(kids[n].begin(), kids[n].end());
  while (!stack_.empty()) {
    int e = stack_.back();
    stack_.pop_back();
    if (reached[e]) continue;
    reached[e] = 1;
    for (int c : kids[e]) stack_.push_back(c);
  }
  bool cut = false;
  for (size_t e = 0; e < n; ++e)
    if (!reached[e]) {
      m->parent[e] = -1;
      cut = true;
    }
  if (cut) kids = build_children();
  m->child_start.assign(n + 2, 0);
  for (size_t i = 0; i <= n; ++i) {
    m->child_start[i + 1] = m->child_start[i] + (int32_t)kids[i].size();
    m->children.insert(m->children.end(), kids[i].begin(), kids[i].end());
  }
  // Worst verdict of each subtree (post-order over the CSR, iteratively).
  m->subtree = m->verdict;
  std::vector<int> order;
  order.reserve(n);
  std::vector<int> todo(kids[n].rbegin(), kids[n].rend());
  while (!todo.empty()) {
    int e = todo.back();
    todo.pop_back();
    order.push_back(e);
    for (int c : kids[e]) todo.push_back(c);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (m->parent[*it] >= 0)
      m->subtree[m->parent[*it]] = std::max(m->subtree[m->parent[*it]], m->subtree[*it]);
  if (p.group_verdicts)
    for (size_t e = m->with_rows; e < n; ++e) m->verdict[e] = m->subtree[e];

  // Stacks: each distinct stack once, each distinct line once.
  m->stack.assign(n, -1);
  if (p.stacks) {
    std::unordered_map<std::string, int32_t> line_index;
    std::map<std::vector<int32_t>, int32_t> stack_index;
    for (size_t e = 0; e < n; ++e) {
      auto it = p.stacks->find(m->names[e]);
      if (it == p.stacks->end()) continue;
      std::vector<int32_t> ids;
      for (const std::string& line : it->second) {
        auto [li, ins] = line_index.emplace(line, (int32_t)m->stack_lines.size());
        if (ins) m->stack_lines.push_back(line);
        ids.push_back(li->second);
      }
      auto [si, ins] = stack_index.emplace(ids, (int32_t)m->stacks.size());
      if (ins) m->stacks.push_back(ids);
      m->stack[e] = si->second;
    }
  }
}

void append_string_list(std::string& out, const std::vector<std::string>& v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    append_html_json_string(out, v[i]);
  }
  out += ']';
}

void append_counts(std::string& out, const size_t counts[5]) {
  out += '{';
  for (int v = 0; v < 5; ++v) {
    if (v) out += ',';
    out += '"';
    out += kVerdictNames[v];
    out += "\":";
    append_int(out, (int64_t)counts[v]);
  }
  out += '}';
}

void append_key(std::string& out, const char* key) {
  out += ",\"";
  out += key;
  out += "\":";
}

void append_suspect_fields(std::string& out, const Suspect& s) {
  out += "\"name\":";
  append_html_json_string(out, s.name);
  append_key(out, "rank");
  append_int(out, s.rank);
  append_key(out, "step");
  append_int(out, s.step);
  append_key(out, "tier");
  append_int(out, s.tier);
  append_key(out, "forward");
  out += s.forward ? "true" : "false";
  append_key(out, "reason");
  append_html_json_string(out, s.reason);
  append_key(out, "inputError");
  append_json_number(out, s.input_error);
  append_key(out, "outputError");
  append_json_number(out, s.output_error);
  append_key(out, "amplification");
  append_json_number(out, s.amplification);
  append_key(out, "modulePath");
  append_string_list(out, s.module_path);
  append_key(out, "nextSteps");
  append_string_list(out, {s.next_steps.redump_config_npu, s.next_steps.redump_config_bench,
                           s.next_steps.config_op, s.next_steps.compare_json});
  append_key(out, "source");
  out += s.source ? "true" : "false";
  append_key(out, "replay");
  append_string_list(out, {s.replay.verdict, s.replay.reason});
}

void append_part(std::string& out, const PartInput& p, const PartModel& m, const std::vector<int32_t>* op_ids,
                 size_t totals_rows[5], size_t totals_entries[5]) {
  const CompareTable& t = *p.table;
  const size_t n = m.names.size();
  out += "{\"label\":";
  append_html_json_string(out, p.label);
  append_key(out, "rank");
  append_int(out, p.rank);
  append_key(out, "step");
  append_int(out, p.step);

  out += ",\"entries\":{\"n\":";
  append_int(out, (int64_t)n);
  append_key(out, "withRows");
  append_int(out, (int64_t)m.with_rows);
  append_key(out, "names");
  append_string_list(out, m.names);
  append_key(out, "parent");
  append_base64_array(out, m.parent);
  append_key(out, "childStart");
  append_base64_array(out, m.child_start);
  append_key(out, "children");
  append_base64_array(out, m.children);
  append_key(out, "verdict");
  append_base64_array(out, m.verdict);
  append_key(out, "subtree");
  append_base64_array(out, m.subtree);
  append_key(out, "dir");
  append_base64_array(out, m.dir);
  append_key(out, "value");
  append_base64_array(out, m.value);
  append_key(out, "inValue");
  append_base64_array(out, m.in_value);
  append_key(out, "stack");
  append_base64_array(out, m.stack);
  if (op_ids) {
    append_key(out, "op");
    append_base64_array(out, *op_ids);
  }
  out += '}';

  out += ",\"rows\":{\"n\":";
  append_int(out, (int64_t)t.rows.size());
  append_key(out, "entry");
  append_base64_array(out, m.row_entry);
  append_key(out, "role");
  append_base64_array(out, m.row_role);
  std::vector<uint8_t> rv(t.rows.size(), kNoData);
  std::vector<float> rval(t.rows.size(), kNaNf);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (r < p.row_verdict.size()) rv[r] = p.row_verdict[r];
    if (r < p.row_value.size()) rval[r] = (float)p.row_value[r];
  }
  append_key(out, "verdict");
  append_base64_array(out, rv);
  append_key(out, "value");
  append_base64_array(out, rval);
  append_key(out, "suffixes");
  append_string_list(out, m.suffix_dict);
  append_key(out, "suffix");
  if (m.suffix_dict.size() <= 0xff) {
    std::vector<uint8_t> v(m.row_suffix.begin(), m.row_suffix.end());
    append_base64_array(out, v);
    out += ",\"suffixWidth\":1";
  } else {
    append_base64_array(out, m.row_suffix);
    out += ",\"suffixWidth\":4";
  }
  append_key(out, "columns");
  out += '[';
  const int name_col = name_column(t);
  bool first = true;
  for (int c = 0; c < (int)t.header.size(); ++c) {
    if (c == name_col || t.header[c] == "NPU_Stack_Info") continue;
    if (!first) out += ',';
    first = false;
    append_table_column(out, t.header[c], t.rows, c, m.row_names,
                        c < (int)p.column_labels.size() ? p.column_labels[c] : std::string());
  }
  out += "]}";

  out += ",\"stacks\":{\"lines\":";
  append_string_list(out, m.stack_lines);
  append_key(out, "stacks");
  out += '[';
  for (size_t s = 0; s < m.stacks.size(); ++s) {
    if (s) out += ',';
    out += '[';
    for (size_t i = 0; i < m.stacks[s].size(); ++i) {
      if (i) out += ',';
      append_int(out, m.stacks[s][i]);
    }
    out += ']';
  }
  out += "]}";

  out += ",\"suspects\":[";
  if (p.suspects) {
    bool first_s = true;
    for (const Suspect& s : *p.suspects) {
      auto it = m.index.find(s.name);
      if (it == m.index.end()) continue;
      if (!first_s) out += ',';
      first_s = false;
      out += "{\"entry\":";
      append_int(out, it->second);
      out += ',';
      append_suspect_fields(out, s);
      out += '}';
    }
  }
  out += ']';

  size_t rows_c[5] = {0, 0, 0, 0, 0}, entries_c[5] = {0, 0, 0, 0, 0};
  for (uint8_t v : rv) ++rows_c[std::min<int>(v, 4)];
  for (size_t e = 0; e < m.with_rows; ++e) ++entries_c[std::min<int>(m.verdict[e], 4)];
  for (int v = 0; v < 5; ++v) {
    totals_rows[v] += rows_c[v];
    totals_entries[v] += entries_c[v];
  }
  out += ",\"counts\":{\"rows\":";
  append_counts(out, rows_c);
  out += ",\"entries\":";
  append_counts(out, entries_c);
  out += "}}";
}

std::string iso_now() {
  time_t now = time(nullptr);
  struct tm tmv;
  localtime_r(&now, &tmv);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tmv);
  return buf;
}

}  // namespace

std::string build_page_json(const PageInput& in) {
  std::vector<PartModel> models(in.parts.size());
  for (size_t i = 0; i < in.parts.size(); ++i) build_model(in.parts[i], &models[i]);

  // Several parts: one op id per entry name across parts, for the heat map.
  std::vector<std::vector<int32_t>> op_ids(in.parts.size());
  std::vector<int32_t> op_part, op_entry;
  if (in.parts.size() > 1) {
    std::unordered_map<std::string, int32_t> ops;
    for (size_t i = 0; i < models.size(); ++i) {
      op_ids[i].assign(models[i].names.size(), -1);
      for (size_t e = 0; e < models[i].with_rows; ++e) {
        auto [it, inserted] = ops.emplace(models[i].names[e], (int32_t)op_part.size());
        if (inserted) {
          op_part.push_back((int32_t)i);
          op_entry.push_back((int32_t)e);
        }
        op_ids[i][e] = it->second;
      }
    }
  }

  std::string out;
  out += "{\"version\":1,\"kind\":";
  append_html_json_string(out, in.kind);
  append_key(out, "title");
  append_html_json_string(out, in.title);
  append_key(out, "generated");
  append_html_json_string(out, in.generated_at.empty() ? iso_now() : in.generated_at);
  append_key(out, "mode");
  append_html_json_string(out, in.mode);
  append_key(out, "valueLabel");
  append_html_json_string(out, in.value_label);
  append_key(out, "runs");
  out += '[';
  for (size_t i = 0; i < in.runs.size(); ++i) {
    const RunInfo& r = in.runs[i];
    if (i) out += ',';
    out += "{\"label\":";
    append_html_json_string(out, r.label);
    append_key(out, "path");
    append_html_json_string(out, r.path);
    append_key(out, "framework");
    append_html_json_string(out, r.framework);
    append_key(out, "level");
    append_html_json_string(out, r.level);
    append_key(out, "task");
    append_html_json_string(out, r.task);
    out += '}';
  }
  out += ']';

  append_key(out, "notes");
  append_string_list(out, in.notes);

  size_t rows_c[5] = {0, 0, 0, 0, 0}, entries_c[5] = {0, 0, 0, 0, 0};
  append_key(out, "parts");
  out += '[';
  for (size_t i = 0; i < in.parts.size(); ++i) {
    if (i) out += ',';
    append_part(out, in.parts[i], models[i], in.parts.size() > 1 ? &op_ids[i] : nullptr, rows_c, entries_c);
  }
  out += ']';
  append_key(out, "counts");
  out += "{\"rows\":";
  append_counts(out, rows_c);
  out += ",\"entries\":";
  append_counts(out, entries_c);
  out += '}';

  if (in.parts.size() > 1) {
    out += ",\"ops\":{\"n\":";
    append_int(out, (int64_t)op_part.size());
    append_key(out, "part");
    append_base64_array(out, op_part);
    append_key(out, "entry");
    append_base64_array(out, op_entry);
    out += '}';
  }

  // The first suspects, with their part, entry and stack resolved for the summary.
  append_key(out, "suspects");
  out += '[';
  bool first = true;
  size_t shown = 0;
  for (const Suspect& s : in.top_suspects) {
    if (shown >= 20) break;
    int part = -1;
    for (size_t i = 0; i < in.parts.size(); ++i)
      if (in.parts[i].rank == s.rank && in.parts[i].step == s.step) {
        part = (int)i;
        break;
      }
    if (part < 0 && in.parts.size() == 1) part = 0;
    int entry = -1;
    if (part >= 0) {
      auto it = models[part].index.find(s.name);
      if (it != models[part].index.end()) entry = it->second;
    }
    if (!first) out += ',';
    first = false;
    ++shown;
    out += "{\"part\":";
    append_int(out, part);
    append_key(out, "entry");
    append_int(out, entry);
    out += ',';
    append_suspect_fields(out, s);
    append_key(out, "stack");
    append_string_list(out, s.stack);
    out += '}';
  }
  out += "]}";
  return out;
}

std::string render_page(const PageInput& in) {
  std::string data = build_page_json(in);
  std::string_view tpl = report_asset("report.html");
  std::string out;
  out.reserve(tpl.size() + data.size() + 200000);
  // The template's markers are replaced in one pass, in the order they appear.
  static const std::pair<const char*, const char*> kSlots[] = {{"/*@TITLE@*/", nullptr},
                                                               {"/*@CHART_CSS@*/", "dygraph.min.css"},
                                                               {"/*@REPORT_CSS@*/", "report.css"},
                                                               {"/*@CHART_LICENSE@*/", "dygraphs.LICENSE"},
                                                               {"/*@CHART_JS@*/", "dygraph.min.js"},
                                                               {"/*@DATA@*/", nullptr},
                                                               {"/*@REPORT_JS@*/", "report.js"}};
  size_t pos = 0;
  while (true) {
    size_t best = std::string_view::npos;
    const std::pair<const char*, const char*>* slot = nullptr;
    for (const auto& s : kSlots) {
      size_t at = tpl.find(s.first, pos);
      if (at < best) {
        best = at;
        slot = &s;
      }
    }
    if (!slot) break;
    out.append(tpl.substr(pos, best - pos));
    std::string_view key = slot->first;
    if (key == "/*@TITLE@*/") {
      std::string title = in.title;
      for (char c : title) {
        if (c == '<')
          out += "&lt;";
        else if (c == '&')
          out += "&amp;";
        else
          out += c;
      }
    } else if (key == "/*@DATA@*/") {
      out += data;
    } else {
      out.append(report_asset(slot->second));
    }
    pos = best + key.size();
  }
  out.append(tpl.substr(pos));
  return out;
}

}  // namespace report
}  // namespace msprobe
