// The monitor's csv files as 1.2.1 writes them with pandas (DataFrame.round(ndigits),
// fillna("nan"), to_csv(index=False) appended, "\n" lines, no BOM) and its AnomalyTurbulence
// rule over a running mean per (tag, op).
#include "msprobe/monitor/monitor_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <numeric>

#include "msprobe/base/error.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/check/csv_table.h"
#include "msprobe/format/py_value.h"
#include "msprobe/monitor/sign_matches.h"

namespace msprobe {
namespace monitor {
namespace {

void append_line(std::string& out, const std::vector<std::string>& fields) {
  check::append_csv_row(out, fields);
  // pandas ends lines with "\n", csv.writer with "\r\n".
  if (out.size() >= 2 && out[out.size() - 2] == '\r') {
    out.erase(out.size() - 2, 1);
  }
}

void append_to_file(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
  MSPROBE_CHECK(fd >= 0, FileError, "monitor file " + path + ": cannot open: " + std::strerror(errno));
  ::fchmod(fd, 0640);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw FileError("monitor file " + path + ": cannot write: " + why);
    }
    done += (size_t)w;
  }
  ::close(fd);
}

// AnomalyTurbulence: the value leaves the running mean by more than threshold times the mean
// (above it for a positive mean, below it otherwise). NaN never fires.
bool turbulent(double baseline, double value, double threshold) {
  const double up = baseline + baseline * threshold;
  return baseline > 0 ? value > up : value < up;
}

void describe(MonitorAlert& a, int64_t rank) {
  a.message = "Rule " + a.rule + " reports anomaly signal in (" + py_str_repr(a.tag) + ", " +
              py_str_repr(a.op) + ") at step " + std::to_string(a.step) + ".";
  // "0:block.fc1_0/rank0/output" -> module "0:block.fc1_0", statistic "output mean".
  const size_t first = a.tag.find('/'), last = a.tag.rfind('/');
  const std::string what = first == std::string::npos ? "" : a.tag.substr(last + 1) + " ";
  a.line = "monitor alert: rank " + std::to_string(rank) + ", step " + std::to_string(a.step) + ", " +
           a.tag.substr(0, first) + ", " + what + a.op + " " + py_float_repr(a.value) +
           ": outside the running mean " + py_float_repr(a.baseline) + " by more than " +
           py_float_repr(a.threshold) + " of it (" + a.rule + ")";
}

}  // namespace

std::string monitor_csv_number(double value, int64_t ndigits) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  const double f = std::pow(10.0, (double)ndigits);
  const double y = std::nearbyint(value * f) / f;
  return py_float_repr(std::isfinite(y) ? y : value);
}

MonitorWriter::MonitorWriter(MonitorWriterOptions options) : o_(std::move(options)) {
  for (const std::string& op : o_.ops) {
    ops_.push_back(monitor_op_from_name(op));
    counts_ = counts_ || ops_.back() == MonitorOp::kZeros || ops_.back() == MonitorOp::kNans;
  }
  MSPROBE_CHECK(o_.step_count_per_record >= 1, InvalidInput, "step_count_per_record must be at least 1");
}

void MonitorWriter::Pending::order() {
  if (!grouped) return;
  std::vector<size_t> idx(tags.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [this](size_t a, size_t b) { return rank[a] < rank[b]; });
  std::vector<std::string> t;
  std::vector<std::vector<double>> v;
  t.reserve(idx.size());
  v.reserve(idx.size());
  for (size_t i : idx) {
    t.push_back(std::move(tags[i]));
    v.push_back(std::move(values[i]));
  }
  tags = std::move(t);
  values = std::move(v);
  grouped = false;
}

void MonitorWriter::add(const std::string& prefix, const std::vector<std::string>& tags,
                        const std::vector<const TensorView*>& tensors, const std::string& group) {
  MSPROBE_CHECK(tags.size() == tensors.size(), InvalidInput, "MonitorWriter.add: as many tags as tensors");
  const std::vector<MonitorStats> stats = monitor_stats_many(tensors, o_.eps, counts_);
  std::vector<std::vector<double>> values(tags.size());
  for (size_t i = 0; i < tags.size(); ++i) {
    values[i].assign(ops_.size(), std::nan(""));
    if (!tensors[i]) continue;
    for (size_t j = 0; j < ops_.size(); ++j) values[i][j] = stats[i].get(ops_[j]);
  }
  add_values(prefix, tags, std::move(values), group);
}

void MonitorWriter::add_values(const std::string& prefix, const std::vector<std::string>& tags,
                               std::vector<std::vector<double>> values, const std::string& group,
                               bool numbered) {
  MSPROBE_CHECK(tags.size() == values.size(), InvalidInput, "MonitorWriter.add_values: as many tags as rows");
  std::lock_guard<std::mutex> lock(mu_);
  Pending& p = pending_[prefix];
  for (size_t i = 0; i < tags.size(); ++i) {
    values[i].resize(ops_.size(), std::nan(""));
    // 1.2.1 keeps a step's values in a dict by tag: the last values, at the first place.
    auto [it, fresh] = p.index.emplace(tags[i], p.tags.size());
    if (fresh) {
      p.tags.push_back(tags[i]);
      p.values.push_back(std::move(values[i]));
      if (group.empty()) {
        p.rank.push_back(p.next_rank++);
      } else {
        auto [g, first] = p.groups.emplace(group, p.next_rank);
        if (first) ++p.next_rank;
        p.grouped = p.grouped || !first;
        p.rank.push_back(g->second);
      }
    } else {
      p.values[it->second] = std::move(values[i]);
    }
    // 1.2.1 numbers the tags it names "{name}/rank{R}/{what}"; a parameter's own statistics
    // (param, a bare name) have no call id (-1).
    if (numbered && tags[i].find('/') != std::string::npos) call_ids_[tags[i]] = next_call_id_++;
  }
}

void MonitorWriter::add_sign_matches(const std::string& prefix, const std::vector<std::string>& tags,
                                     const std::vector<const TensorView*>& grads,
                                     const std::vector<const TensorView*>& exp_avgs) {
  MSPROBE_CHECK(tags.size() == grads.size(), InvalidInput,
                "MonitorWriter.add_sign_matches: as many tags as gradients");
  const std::vector<double> values = sign_matches(grads, exp_avgs);
  // 0-d tensors of the values: float32 (1.2.1's dtype for float32 gradients) when exact.
  std::vector<float> f(values.size());
  std::vector<TensorView> views(values.size());
  std::vector<const TensorView*> ptrs(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    f[i] = (float)values[i];
    const bool exact = (double)f[i] == values[i];
    views[i].data = exact ? (const void*)&f[i] : (const void*)&values[i];
    views[i].dtype = exact ? DType::kFloat32 : DType::kFloat64;
    ptrs[i] = &views[i];
  }
  add(prefix, tags, ptrs);
}

std::vector<std::string> MonitorWriter::header(const std::string& prefix, bool vpp) const {
  std::vector<std::string> h;
  if (vpp) h.push_back("vpp_stage");
  if (prefix == "actv" || prefix == "actv_grad") {
    h.push_back("module_name");
    h.push_back("step");
    const char* sides[2] = {"input", "output"};
    for (const char* side : sides) {
      for (const std::string& op : o_.ops) {
        h.push_back(std::string(side) + (prefix == "actv_grad" ? "_grad." : ".") + op);
      }
    }
  } else {
    h.push_back("param_name");
    h.push_back("step");
    for (const std::string& op : o_.ops) h.push_back(op);
  }
  return h;
}

std::string MonitorWriter::write_csv(const std::string& prefix, int64_t step, const Pending& rows) const {
  const int64_t per = o_.step_count_per_record;
  const int64_t first = (step / per) * per;  // 1.2.1: floor division of non-negative steps
  const std::string path = join_path(
      o_.dir, prefix + "_" + std::to_string(first) + "-" + std::to_string(first + per - 1) + ".csv");
  make_dirs(o_.dir, "monitor output folder");
  // One row per name (the tag before '/'), its tags' values in order.
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::string>> cells;
  for (size_t i = 0; i < rows.tags.size(); ++i) {
    const std::string name = rows.tags[i].substr(0, rows.tags[i].find('/'));
    auto it = cells.find(name);
    if (it == cells.end()) {
      names.push_back(name);
      it = cells.emplace(name, std::vector<std::string>{}).first;
    }
    for (double v : rows.values[i]) it->second.push_back(monitor_csv_number(v, o_.ndigits));
  }
  // pandas makes one frame of the rows: shorter rows (a collective with fewer tensors than
  // another, in "other") are filled with NaN up to the longest.
  size_t width = 0;
  for (const auto& [name, c] : cells) width = std::max(width, c.size());
  for (auto& [name, c] : cells) c.resize(width, "nan");
  const bool vpp = !names.empty() && names[0].find(':') != std::string::npos;
  std::string text;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) append_line(text, header(prefix, vpp));
  for (const std::string& name : names) {
    std::vector<std::string> row;
    const size_t colon = name.find(':');
    if (colon != std::string::npos) {
      row.push_back(name.substr(0, colon));
      row.push_back(name.substr(colon + 1));
    } else {
      row.push_back(name);
    }
    row.push_back(std::to_string(step));
    const std::vector<std::string>& c = cells[name];
    row.insert(row.end(), c.begin(), c.end());
    append_line(text, row);
  }
  append_to_file(path, text);
  return path;
}

MonitorWriter::Pending MonitorWriter::take(const std::string& prefix) {
  Pending rows;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(prefix);
  if (it != pending_.end()) {
    rows = std::move(it->second);
    pending_.erase(it);
    rows.order();
  }
  return rows;
}

std::map<std::string, int64_t> MonitorWriter::call_ids() {
  std::lock_guard<std::mutex> lock(mu_);
  return call_ids_;
}

MonitorFlush MonitorWriter::flush(const std::string& prefix, int64_t step) {
  settle();
  Pending rows = take(prefix);
  if (rows.tags.empty()) return flush_rows(prefix, step, std::move(rows), {});
  const std::map<std::string, int64_t> ids = call_ids();
  return flush_rows(prefix, step, std::move(rows), ids);
}

MonitorFlush MonitorWriter::flush_rows(const std::string& prefix, int64_t step, Pending rows,
                                       const std::map<std::string, int64_t>& call_ids) {
  MonitorFlush out;
  out.prefix = prefix;
  out.step = step;
  if (rows.tags.empty()) return out;
  if (!o_.rules.empty()) {
    for (size_t i = 0; i < rows.tags.size(); ++i) {
      for (size_t j = 0; j < ops_.size(); ++j) {
        const double v = rows.values[i][j];
        Running& r = running_[{rows.tags[i], o_.ops[j]}];
        if (r.count == 0) r.avg = v;
        const double baseline = r.avg;
        r.avg = (r.avg * (double)r.count + v) / (double)(r.count + 1);
        ++r.count;
        for (const AlertRule& rule : o_.rules) {
          if (!turbulent(baseline, v, rule.threshold)) continue;
          MonitorAlert a;
          a.tag = rows.tags[i];
          a.op = o_.ops[j];
          a.step = step;
          a.value = v;
          a.baseline = baseline;
          a.rule = rule.rule_name;
          a.threshold = rule.threshold;
          auto c = call_ids.find(a.tag);
          a.call_id = c == call_ids.end() ? -1 : c->second;
          describe(a, o_.rank);
          out.alerts.push_back(std::move(a));
          break;
        }
      }
    }
  }
  if (o_.csv) out.csv_path = write_csv(prefix, step, rows);
  out.tags = std::move(rows.tags);
  out.values = std::move(rows.values);
  return out;
}

std::vector<MonitorFlush> MonitorWriter::flush_step(const std::vector<std::string>& prefixes, int64_t step) {
  settle();
  std::vector<MonitorFlush> out = std::move(done_);
  done_.clear();
  for (const std::string& prefix : prefixes) {
    MonitorFlush f = flush(prefix, step);
    if (!f.tags.empty()) out.push_back(std::move(f));
  }
  end_step();
  return out;
}

void MonitorWriter::begin_flush_step(const std::vector<std::string>& prefixes, int64_t step) {
  settle();
  std::vector<std::pair<std::string, Pending>> taken;
  for (const std::string& prefix : prefixes) {
    Pending rows = take(prefix);
    if (!rows.tags.empty()) taken.emplace_back(prefix, std::move(rows));
  }
  if (taken.empty()) return;
  background_ =
      std::async(std::launch::async, [this, taken = std::move(taken), ids = call_ids(), step]() mutable {
        std::vector<MonitorFlush> out;
        for (auto& [prefix, rows] : taken) out.push_back(flush_rows(prefix, step, std::move(rows), ids));
        return out;
      });
}

void MonitorWriter::settle() {
  if (!background_.valid()) return;
  std::vector<MonitorFlush> finished = background_.get();  // rethrows the flush's error
  for (MonitorFlush& f : finished) done_.push_back(std::move(f));
}

MonitorFlush MonitorWriter::pending(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  MonitorFlush out;
  out.prefix = prefix;
  auto it = pending_.find(prefix);
  if (it != pending_.end()) {
    Pending rows = it->second;
    rows.order();
    out.tags = std::move(rows.tags);
    out.values = std::move(rows.values);
  }
  return out;
}

void MonitorWriter::end_step() {
  std::lock_guard<std::mutex> lock(mu_);
  call_ids_.clear();
  next_call_id_ = 0;
}

void MonitorWriter::clear() {
  settle();  // its files are written; an error of them is still reported
  done_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  pending_.clear();
  call_ids_.clear();
  next_call_id_ = 0;
}

}  // namespace monitor
}  // namespace msprobe
