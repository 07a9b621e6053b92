// GradComparator's similarities from the direction files (bool .npy, mapped, never unpickled).
#include "msprobe/grad/grad_compare.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "msprobe/base/error.h"
#include "msprobe/base/path.h"
#include "msprobe/check/csv_table.h"
#include "msprobe/format/json_writer.h"
#include "msprobe/format/npy_reader.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace grad {
namespace {

const std::string kSameConfig = ", please dump data in same configuration";

std::string summary_csv(const std::string& dir, int64_t step) {
  return join_path(dir, "grad_summary_" + std::to_string(step) + ".csv");
}

// The parameter names of the lowest step's grad_summary_{step}.csv present in both folders.
std::vector<std::string> param_order(const std::string& dir1, const std::string& dir2,
                                     const std::vector<int64_t>& steps) {
  for (int64_t step : steps) {
    const std::string p1 = summary_csv(dir1, step);
    if (!is_regular_file(p1) || !is_regular_file(summary_csv(dir2, step))) continue;
    const check::CsvTable t = check::CsvTable::read_file(p1);
    int col = t.column("param_name");
    if (col < 0) col = t.column("Param_name");  // MindSpore's static graph files
    MSPROBE_CHECK(col >= 0, FileError, p1 + ": no param_name column");
    std::vector<std::string> names;
    for (size_t r = 0; r < t.num_rows(); ++r) {
      const std::string_view* c = t.cell(r, (size_t)col);
      if (c) names.emplace_back(*c);
    }
    return names;
  }
  throw InvalidInput("no matched grad_summary.csv for comparison" + kSameConfig);
}

// (agreeing elements, elements) of two direction files.
std::pair<int64_t, int64_t> agreement(const std::string& f1, const std::string& f2) {
  NpyFile a(f1), b(f2);
  for (const NpyFile* f : {&a, &b}) {
    const std::string& path = f == &a ? f1 : f2;
    MSPROBE_CHECK(f->status() == NpyFile::Status::kOk, FileError, path + ": " + f->error());
    MSPROBE_CHECK(f->descr() == "|b1", FileError, "tensor type is not bool: " + path);
  }
  MSPROBE_CHECK(a.shape() == b.shape(), FileError, "tensor shape is not equal: " + f1 + ", " + f2);
  const int64_t n = a.numel();
  const uint8_t* x = static_cast<const uint8_t*>(a.view().data);
  const uint8_t* y = static_cast<const uint8_t*>(b.view().data);
  int64_t same = 0;
  for (int64_t i = 0; i < n; ++i) same += (x[i] != 0) == (y[i] != 0);
  return {same, n};
}

}  // namespace

std::vector<int64_t> matched_numbered_dirs(const std::string& dir1, const std::string& dir2,
                                           const std::string& prefix) {
  for (const std::string* d : {&dir1, &dir2}) {
    MSPROBE_CHECK(is_folder(*d), FileError, "GradComparator: " + *d + " is not a folder");
  }
  std::vector<int64_t> out;
  for (const std::string& name : numbered_names(dir1, prefix)) {
    if (name.size() == prefix.size() || name.size() - prefix.size() > 18) continue;
    if (!is_folder(join_path(dir1, name)) || !is_folder(join_path(dir2, name))) continue;
    out.push_back(std::stoll(name.substr(prefix.size())));
  }
  return out;  // numbered_names sorts numerically
}

GradSimilarities compare_rank_dirs(const std::string& dir1, const std::string& dir2) {
  GradSimilarities s;
  s.steps = matched_numbered_dirs(dir1, dir2, "step");
  MSPROBE_CHECK(!s.steps.empty(), InvalidInput, "no matched steps for comparison" + kSameConfig);
  const std::vector<std::string> params = param_order(dir1, dir2, s.steps);
  s.names = params;
  s.names.push_back("summary");
  s.values.assign(s.names.size(), std::vector<double>(s.steps.size(), 0.0));
  s.empty.assign(s.names.size(), std::vector<char>(s.steps.size(), 0));
  for (size_t j = 0; j < s.steps.size(); ++j) {
    const std::string sub = "step" + std::to_string(s.steps[j]);
    const std::string d1 = join_path(dir1, sub), d2 = join_path(dir2, sub);
    int64_t same_all = 0, total_all = 0;
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string f1 = join_path(d1, params[i] + ".npy"), f2 = join_path(d2, params[i] + ".npy");
      MSPROBE_CHECK(
          is_regular_file(f1) && is_regular_file(f2), InvalidInput,
          "no matched grad_file for comparison" + kSameConfig + " (" + params[i] + " at " + sub + ")");
      const auto [same, total] = agreement(f1, f2);
      same_all += same;
      total_all += total;
      s.values[i][j] = total ? (double)same / (double)total : 0.0;
      s.empty[i][j] = total == 0;
    }
    s.values.back()[j] = total_all ? (double)same_all / (double)total_all : 0.0;
    s.empty.back()[j] = total_all == 0;
  }
  return s;
}

std::string similarities_csv(const GradSimilarities& s) {
  std::string out = "\xEF\xBB\xBF";
  std::vector<std::string> row{"step"};
  for (int64_t step : s.steps) row.push_back(std::to_string(step));
  check::append_csv_row(out, row);
  for (size_t i = 0; i < s.names.size(); ++i) {
    row.assign(1, s.names[i]);
    for (size_t j = 0; j < s.steps.size(); ++j)
      row.push_back(s.empty[i][j] ? "0" : py_float_repr(s.values[i][j]));
    check::append_csv_row(out, row);
  }
  return out;
}

GradSimilarities read_similarities_csv(const std::string& path) {
  const check::CsvTable t = check::CsvTable::read_file(path);
  MSPROBE_CHECK(!t.header().empty() && t.header()[0] == "step", FileError,
                path + ": not a similarities.csv (its first column is not \"step\")");
  GradSimilarities s;
  for (size_t c = 1; c < t.header().size(); ++c) {
    const std::string cell(t.header()[c]);
    char* end = nullptr;
    const long long step = std::strtoll(cell.c_str(), &end, 10);
    MSPROBE_CHECK(!cell.empty() && *end == '\0', FileError, path + ": step \"" + cell + "\" is not a number");
    s.steps.push_back(step);
  }
  for (size_t r = 0; r < t.num_rows(); ++r) {
    const std::string_view* name = t.cell(r, 0);
    if (!name) continue;
    s.names.emplace_back(*name);
    std::vector<double> values;
    std::vector<char> empty;
    for (size_t c = 1; c <= s.steps.size(); ++c) {
      const std::string_view* v = t.cell(r, c);
      const std::string text = v ? std::string(*v) : "";
      char* end = nullptr;
      const double d = std::strtod(text.c_str(), &end);
      MSPROBE_CHECK(!text.empty() && *end == '\0', FileError,
                    path + ": line " + std::to_string(t.row_line(r)) + ": \"" + text + "\" is not a number");
      values.push_back(d);
      empty.push_back(text == "0");
    }
    s.values.push_back(std::move(values));
    s.empty.push_back(std::move(empty));
  }
  return s;
}

GradDivergence find_grad_divergence(const GradSimilarities& s, double first_step_min, double max_drop) {
  GradDivergence d;
  d.first_step_min = first_step_min;
  d.max_drop = max_drop;
  const size_t params = s.names.empty() ? 0 : s.names.size() - 1;  // without "summary"
  for (size_t j = 0; j < s.steps.size() && !d.found; ++j) {
    for (size_t i = 0; i < params; ++i) {
      const double v = s.values[i][j];
      const double prev = j == 0 ? 1.0 : s.values[i][j - 1];
      const bool parts = j == 0 ? v < first_step_min : prev - v > max_drop;
      if (!parts) continue;
      d.found = true;
      d.step = s.steps[j];
      d.params.push_back({s.names[i], v, prev});
    }
  }
  return d;
}

std::string divergence_line(const GradDivergence& d) {
  if (!d.found) {
    return "gradient directions do not part at any step (no similarity below " +
           py_float_repr(d.first_step_min) + " at the first step, no drop over " + py_float_repr(d.max_drop) +
           ")";
  }
  std::string line = "gradient directions part first at step " + std::to_string(d.step) + ": ";
  char buf[64];
  for (size_t i = 0; i < d.params.size(); ++i) {
    if (i) line += ", ";
    std::snprintf(buf, sizeof(buf), " %.4f (was %.4f)", d.params[i].similarity, d.params[i].previous);
    line += d.params[i].name + buf;
  }
  return line;
}

std::string divergence_json(const GradDivergence& d, const GradSimilarities& s) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("first_divergent_step");
  if (d.found) {
    w.integer(d.step);
  } else {
    w.null();
  }
  w.key("parameters");
  w.begin_array();
  for (const GradDivergence::Param& p : d.params) {
    w.begin_object();
    w.key("name");
    w.string(p.name);
    w.key("similarity");
    w.floating(p.similarity);
    w.key("previous_similarity");
    w.floating(p.previous);
    w.end_object();
  }
  w.end_array();
  w.key("rule");
  w.begin_object();
  w.key("first_step_min_similarity");
  w.floating(d.first_step_min);
  w.key("max_drop");
  w.floating(d.max_drop);
  w.end_object();
  w.key("steps");
  w.begin_array();
  for (int64_t step : s.steps) w.integer(step);
  w.end_array();
  w.key("summary_similarity");
  w.begin_array();
  if (!s.values.empty()) {
    for (double v : s.values.back()) w.floating(v);
  }
  w.end_array();
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace grad
}  // namespace msprobe
