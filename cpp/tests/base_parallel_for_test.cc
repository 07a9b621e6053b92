// parallel_for: every task runs once, on whichever thread, errors come back to the caller, and
// batches from several threads do not mix.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "msprobe/base/parallel_for.h"

using namespace msprobe;

TEST(ParallelFor, RunsEveryTaskOnce) {
  for (int64_t n : {0, 1, 2, 7, 1000}) {
    std::vector<std::atomic<int>> runs(n);
    parallel_for(n, [&](int64_t i) { runs[i].fetch_add(1); });
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << "n " << n << " task " << i;
  }
}

TEST(ParallelFor, RethrowsATaskError) {
  std::atomic<int> ran{0};
  EXPECT_THROW(parallel_for(64,
                            [&](int64_t i) {
                              ran.fetch_add(1);
                              if (i == 5) throw std::runtime_error("task 5");
                            }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 64);  // the others still ran
  // The pool is usable afterwards.
  std::atomic<int64_t> sum{0};
  parallel_for(100, [&](int64_t i) { sum.fetch_add(i); });
  EXPECT_EQ(sum.load(), 4950);
}

TEST(ParallelFor, BatchesFromSeveralThreads) {
  constexpr int kCallers = 4, kBatches = 50, kTasks = 33;
  std::vector<std::vector<int>> seen(kCallers, std::vector<int>(kTasks, 0));
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int b = 0; b < kBatches; ++b) parallel_for(kTasks, [&](int64_t i) { ++seen[c][i]; });
    });
  }
  for (std::thread& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c)
    for (int i = 0; i < kTasks; ++i) EXPECT_EQ(seen[c][i], kBatches) << "caller " << c << " task " << i;
}

TEST(ParallelFor, WorkersFollowTheCpuCount) {
  const int w = parallel_workers();
  EXPECT_GE(w, 0);
  EXPECT_LE(w, 3);
}
