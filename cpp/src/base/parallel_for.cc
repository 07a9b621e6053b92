// The pool behind parallel_for: workers sleep on a condition variable and claim task numbers
// from one atomic counter while a batch is open. The caller closes the batch once every number
// is claimed and waits for the workers still inside it, so `fn` never outlives its call. A
// forked child has the pool but not its threads: it runs every task itself.
#include "msprobe/base/parallel_for.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace msprobe {
namespace {

int worker_count() {
  cpu_set_t set;
  int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  if (const char* env = std::getenv("MSPROBE_STATS_THREADS")) {
    const int cap = std::atoi(env);
    if (cap >= 1) cpus = std::min(cpus, cap);
  }
  return std::max(0, std::min(cpus - 1, 3));
}

class Pool {
 public:
  Pool() : owner_(getpid()) {
    const int n = worker_count();
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { work(); });
  }
  int workers() const { return (int)threads_.size(); }

  void run(int64_t n, const std::function<void(int64_t)>& fn) {
    if (threads_.empty() || n <= 1 || getpid() != owner_) {
      for (int64_t i = 0; i < n; ++i) fn(i);
      return;
    }
    std::lock_guard<std::mutex> one_batch(batch_mu_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn_ = &fn;
      n_ = n;
      next_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    take_tasks(fn, n);
    std::exception_ptr error;
    {
      std::unique_lock<std::mutex> lock(mu_);
      fn_ = nullptr;  // workers that wake from now on find no batch
      idle_.wait(lock, [this] { return busy_ == 0; });
      error = error_;
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  void take_tasks(const std::function<void(int64_t)>& fn, int64_t n) {
    for (int64_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!error_) error_ = std::current_exception();
      }
    }
  }

  void work() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (!fn_) continue;
      const std::function<void(int64_t)>* fn = fn_;
      const int64_t n = n_;
      ++busy_;
      lock.unlock();
      take_tasks(*fn, n);
      lock.lock();
      if (--busy_ == 0) idle_.notify_all();
    }
  }

  const pid_t owner_;
  std::vector<std::thread> threads_;
  std::mutex batch_mu_;  // one batch at a time
  std::mutex mu_;
  std::condition_variable wake_, idle_;
  const std::function<void(int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  std::atomic<int64_t> next_{0};
  uint64_t generation_ = 0;
  int busy_ = 0;
  std::exception_ptr error_;
};

// Never destroyed: the workers sleep until the process ends (joining them from a static
// destructor could wait on a thread that a fork left behind).
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

}  // namespace

void parallel_for(int64_t n, const std::function<void(int64_t)>& fn) { pool().run(n, fn); }

int parallel_workers() { return pool().workers(); }

}  // namespace msprobe
