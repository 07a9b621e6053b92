#include "msprobe/monitor/monitor_csv_series.h"

#include <dirent.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "msprobe/base/error.h"
#include "msprobe/base/path.h"
#include "msprobe/base/strings.h"
#include "msprobe/check/csv_table.h"
#include "msprobe/format/pandas_numeric.h"

namespace msprobe {
namespace monitor {
namespace {

// "{data_type}_{digits}-{digits}.csv"
bool is_file_of(const std::string& name, const std::string& data_type) {
  if (!starts_with(name, data_type + "_") || !ends_with(name, ".csv")) return false;
  const std::string mid = name.substr(data_type.size() + 1, name.size() - data_type.size() - 5);
  const size_t dash = mid.find('-');
  auto digits = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return dash != std::string::npos && digits(mid.substr(0, dash)) && digits(mid.substr(dash + 1));
}

std::vector<std::string> files_of(const std::string& dir, const std::string& data_type) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  MSPROBE_CHECK(d != nullptr, FileError, "monitor folder " + dir + ": cannot be read");
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (is_file_of(name, data_type)) out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

double number(std::string_view cell) {
  const PandasNumber n = pandas_to_numeric(std::string(cell));
  return n.ok ? n.value : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

const std::vector<std::string>& monitor_data_types() {
  static const std::vector<std::string> types = {"actv",           "actv_grad",    "exp_avg", "exp_avg_sq",
                                                 "grad_unreduced", "grad_reduced", "param"};
  return types;
}

MonitorCsvSeries read_monitor_csv_series(const std::string& rank_dir, const std::string& data_type) {
  const auto& types = monitor_data_types();
  MSPROBE_CHECK(std::find(types.begin(), types.end(), data_type) != types.end(), InvalidInput,
                "data type " + data_type + " is not supported; the data types are " + join(types, ", "));
  MonitorCsvSeries out;
  out.data_type = data_type;
  std::map<std::string, size_t> index;
  std::vector<std::map<int64_t, std::vector<double>>> by_step;
  for (const std::string& file : files_of(rank_dir, data_type)) {
    const std::string path = join_path(rank_dir, file);
    const check::CsvTable t = check::CsvTable::read_file(path);
    const int vpp = t.column("vpp_stage"), step_col = t.column("step");
    MSPROBE_CHECK(step_col >= 1, InvalidInput, path + ": no \"step\" column");
    const int name_col = step_col - 1;
    std::vector<std::string> ops(t.header().begin() + step_col + 1, t.header().end());
    if (out.ops.empty()) out.ops = ops;
    MSPROBE_CHECK(ops == out.ops, InvalidInput,
                  path + ": its columns differ from the other " + data_type + " files");
    for (size_t r = 0; r < t.num_rows(); ++r) {
      const std::string_view* stage = vpp >= 0 ? t.cell(r, (size_t)vpp) : nullptr;
      const std::string_view* name = t.cell(r, (size_t)name_col);
      const std::string_view* step = t.cell(r, (size_t)step_col);
      MSPROBE_CHECK(name && step, InvalidInput,
                    path + ": line " + std::to_string(t.row_line(r)) + " is short");
      const std::string key = "vp" + std::string(stage ? *stage : "0") + ":" + std::string(*name);
      auto [it, fresh] = index.emplace(key, by_step.size());
      if (fresh) by_step.emplace_back();
      const double step_value = number(*step);
      // NaN or beyond int64 (a hostile file) would be undefined as an integer: refused.
      MSPROBE_CHECK(step_value >= -9.2e18 && step_value <= 9.2e18, InvalidInput,
                    path + ": line " + std::to_string(t.row_line(r)) + ": step is not a number");
      const int64_t s = (int64_t)step_value;
      std::vector<double> values;
      for (size_t c = (size_t)step_col + 1; c < t.header().size(); ++c) {
        const std::string_view* cell = t.cell(r, c);
        values.push_back(cell ? number(*cell) : std::numeric_limits<double>::quiet_NaN());
      }
      MSPROBE_CHECK(by_step[it->second].emplace(s, std::move(values)).second, InvalidInput,
                    path + ": " + key + " at step " + std::to_string(s) + " is there twice");
    }
  }
  std::vector<std::pair<std::string, size_t>> names(index.begin(), index.end());
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [name, i] : names) {
    MonitorSeries s;
    s.name = name;
    for (auto& [step, values] : by_step[i]) {
      s.steps.push_back(step);
      s.values.push_back(std::move(values));
    }
    out.series.push_back(std::move(s));
  }
  return out;
}

}  // namespace monitor
}  // namespace msprobe
