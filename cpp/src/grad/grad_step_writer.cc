// grad_summary_{step}.csv as 1.2.1 writes it (csv.writer, UTF-8 with BOM, "\r\n"; numbers as
// Python's repr of the float, shapes as str(list)) and the direction files as numpy.save writes a
// bool array.
#include "msprobe/grad/grad_step_writer.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/check/csv_table.h"
#include "msprobe/format/npy_writer.h"
#include "msprobe/format/py_value.h"
#include "msprobe/grad/grad_summary.h"

namespace msprobe {
namespace grad {
namespace {

const char kBom[] = "\xEF\xBB\xBF";
constexpr size_t kMaxThreads = 4;
constexpr int64_t kParallelElements = 1 << 20;  // below: one thread

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

void check_param_name(const std::string& name) {
  MSPROBE_CHECK(!name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
                    name.find('\0') == std::string::npos,
                InvalidInput, "grad_probe: parameter name \"" + name + "\" cannot be a file name");
}

}  // namespace

GradStepWriter::GradStepWriter(const GradProbeConfig& config, std::string dump_path, int64_t rank)
    : level_(config.grad_level), bounds_(config.bounds), bound_labels_(config.bound_labels) {
  MSPROBE_CHECK(level_ == "L0" || level_ == "L1" || level_ == "L2", InvalidInput,
                "\"grad_probe.grad_level\" must be one of L0, L1, L2, got \"" + level_ + "\"");
  if (bound_labels_.size() != bounds_.size()) {
    bound_labels_.clear();
    for (double b : bounds_) bound_labels_.push_back(py_float_repr(b));
  }
  if (!dump_path.empty()) make_dirs(dump_path, "grad_probe dump_path");
  if (!dump_path.empty() && dump_path.back() != '/') dump_path += '/';
  rank_dir_ = dump_path + "rank" + std::to_string(rank);
}

std::vector<std::string> GradStepWriter::header() const {
  std::vector<std::string> h{"param_name"};
  if (level_ == "L0") h.push_back("MD5");
  if (level_ == "L2") {
    const size_t k = bound_labels_.size();
    for (size_t i = 0; i < k; ++i) {
      h.push_back(i == 0 ? "(-inf, " + bound_labels_[0] + "]"
                         : "(" + bound_labels_[i - 1] + ", " + bound_labels_[i] + "]");
    }
    if (k) h.push_back("(" + bound_labels_[k - 1] + ", inf)");
    h.push_back("=0");
  }
  for (const char* c : {"max", "min", "norm", "shape"}) h.push_back(c);
  return h;
}

GradStepFiles GradStepWriter::write_step(int64_t step, const std::vector<std::string>& names,
                                         const std::vector<TensorView>& grads) const {
  MSPROBE_CHECK(names.size() == grads.size(), InvalidInput, "grad_probe: one name per gradient");
  for (const std::string& n : names) check_param_name(n);
  GradStepFiles files;
  make_dirs(rank_dir_, "grad_probe dump_path");
  GradSummaryOptions opt;
  opt.md5 = level_ == "L0";
  opt.distribution = level_ == "L2";
  opt.bounds = bounds_;
  const bool directions = level_ != "L0";
  const std::string step_dir = rank_dir_ + "/step" + std::to_string(step);
  if (directions && !grads.empty()) make_dirs(step_dir, "grad_probe dump_path");

  // Each gradient is summarised (and its direction file written) by one of up to kMaxThreads
  // threads when the step is large enough to pay for them; the rows keep the gradients' order.
  std::vector<std::vector<std::string>> rows(grads.size());
  auto one = [&](size_t i) {
    const TensorView& g = grads[i];
    std::string npy;
    uint8_t* dir = nullptr;
    if (directions) {
      TensorView shape_only;
      shape_only.dtype = DType::kBool;
      shape_only.shape = g.shape;
      npy = npy_header(shape_only);
      const size_t head = npy.size();
      npy.resize(head + (size_t)g.numel());
      dir = reinterpret_cast<uint8_t*>(&npy[head]);
    }
    const GradSummary s = summarize_gradient(g, opt, dir);
    std::vector<std::string>& row = rows[i];
    row.push_back(names[i]);
    if (opt.md5) row.push_back(s.md5);
    for (double d : s.distribution) row.push_back(s.numel ? py_float_repr(d) : "0");
    row.push_back(py_float_repr(s.max));
    row.push_back(py_float_repr(s.min));
    row.push_back(py_float_repr(s.norm));
    row.push_back(shape_str(g.shape));
    if (directions) write_file_atomically(step_dir + "/" + names[i] + ".npy", npy);
  };
  int64_t elements = 0;
  for (const TensorView& g : grads) elements += g.numel();
  size_t threads =
      std::min<size_t>({kMaxThreads, std::max(1u, std::thread::hardware_concurrency()), grads.size()});
  if (elements < kParallelElements) threads = 1;
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex mu;
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < grads.size();) {
      try {
        one(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        next = grads.size();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);

  std::string csv = kBom;
  check::append_csv_row(csv, header());
  for (const std::vector<std::string>& row : rows) check::append_csv_row(csv, row);
  files.rows = (int64_t)grads.size();
  files.direction_files = directions ? (int64_t)grads.size() : 0;
  files.csv_path = rank_dir_ + "/grad_summary_" + std::to_string(step) + ".csv";
  write_file_atomically(files.csv_path, csv);
  return files;
}

}  // namespace grad
}  // namespace msprobe
