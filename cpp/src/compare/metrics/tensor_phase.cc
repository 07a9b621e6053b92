// Tensor-mode comparison of every row on a thread pool (see tensor_phase.h).
#include "tensor_phase.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "bench_data_name.h"
#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "msprobe/compare/compare_const.h"
#include "msprobe/format/py_value.h"
#include "tensor_metrics.h"
#include "tensor_source.h"

namespace msprobe {
namespace compare {

namespace {

// 1.2.1's FileChecker pattern ^[a-zA-Z0-9_.:/-]+$, applied here to the file name.
bool valid_file_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == ':' || c == '/' || c == '-';
    if (!ok) return false;
  }
  return true;
}

int column(const std::vector<std::string>& header, const char* name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return (int)i;
  throw InvalidInput(std::string("compare table has no column ") + name);
}

}  // namespace

void run_tensor_phase(std::vector<Row>& rows, const std::vector<std::string>& header,
                      const TensorPhaseInput& in, std::vector<double>* relative_l2_error) {
  relative_l2_error->assign(rows.size(), std::numeric_limits<double>::quiet_NaN());
  const int c_npu = column(header, k::kNpuName), c_bench = column(header, k::kBenchName);
  const int c_cos = column(header, k::kCosine), c_abs = column(header, k::kMaxAbsErr);
  const int c_rel = column(header, k::kMaxRelativeErr), c_1 = column(header, k::kOneThousandth);
  const int c_5 = column(header, k::kFiveThousandths), c_acc = column(header, k::kAccuracy);
  const int c_err = column(header, k::kErrorMessage), c_data = (int)header.size() - 1;

  // read_dump_data: NPU Name -> Data_name of the last row with that name.
  std::unordered_map<std::string, std::string> npu_data_name;
  std::vector<std::string> bench_names;
  bench_names.reserve(rows.size());
  for (const Row& r : rows) {
    npu_data_name[cell_str(r[c_npu])] = cell_str(r[c_data]);
    bench_names.push_back(cell_str(r[c_bench]));
  }
  const std::vector<std::string> bench_files = resolve_bench_data_names(in.bench_dump_json, bench_names);

  auto compare_row = [&](size_t i) {
    Row& r = rows[i];
    const std::string npu_name = cell_str(r[c_npu]);
    const std::string& data_name = npu_data_name.at(npu_name);
    const std::string& bench_file = bench_files[i];
    TensorMetrics m;
    if (data_name == "-1") {
      m = unreadable_metrics(kNoBenchDataMsg);
    } else if (bench_file.empty()) {
      m = unreadable_metrics(kBenchNoFileMsg);
    } else {
      const std::string npu_file = npu_name + in.npu_suffix;
      bool loaded = false;
      TensorData n, b;
      if (valid_file_name(npu_file) && valid_file_name(bench_file) &&
          (!in.pt_files_only || (ends_with(npu_file, ".pt") && ends_with(bench_file, ".pt")))) {
        try {
          n = load_dump_tensor(in.npu_tensor_dir, npu_file);
          b = load_dump_tensor(in.bench_tensor_dir, bench_file);
          loaded = true;
        } catch (const FileError&) {  // missing, refused or unreadable: 1.2.1's "not found"
        } catch (const InvalidInput&) {
        }
      }
      m = loaded ? compare_tensor_data(n.view, b.view) : unreadable_metrics(file_not_found_msg(data_name));
    }
    if (in.fuzzy && npu_name != bench_names[i] && bench_names[i] != k::kNA)
      m.err_msg += " Fuzzy matching data, the comparison accuracy may be affected.";
    r[c_cos] = m.cosine;
    r[c_abs] = m.max_abs_err;
    r[c_rel] = m.max_relative_err;
    r[c_err] = Cell::str(m.err_msg);
    r[c_acc] = accuracy_verdict(m.cosine, m.max_abs_err);
    r[c_1] = m.one_thousandth;
    r[c_5] = m.five_thousandths;
    (*relative_l2_error)[i] = m.relative_l2_error;
  };

  const size_t total = rows.size();
  size_t threads = in.threads > 0 ? (size_t)in.threads : std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  if (threads > total) threads = total == 0 ? 1 : total;
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex mu;
  std::condition_variable cv;
  auto worker = [&] {
    while (!failed.load(std::memory_order_relaxed)) {
      const size_t i = next.fetch_add(1);
      if (i >= total) break;
      try {
        compare_row(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        failed = true;
      }
      done.fetch_add(1);
      cv.notify_one();
    }
  };
  // `threads` workers compute; the calling thread only reports progress (it sleeps on the
  // condition variable), so that every core compares tensors.
  std::vector<std::thread> pool;
  for (size_t t = (threads == 1 ? 1 : 0); t < threads; ++t) pool.emplace_back(worker);
  if (threads == 1) {
    worker();
  } else {
    size_t reported = (size_t)-1;
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      const size_t d = done.load();
      if (in.progress && d != reported) {
        reported = d;
        lock.unlock();
        in.progress(d, total);
        lock.lock();
      }
      if (d >= total || failed) break;
      cv.wait_for(lock, std::chrono::milliseconds(100));
    }
  }
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  if (in.progress) in.progress(done.load(), total);
}

}  // namespace compare
}  // namespace msprobe
