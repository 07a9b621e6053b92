// A few pooled threads that help the calling thread through one batch of independent tasks, for
// memory-bound passes (the training monitor's gradient statistics) that a single core cannot
// read as fast as the cache delivers. The caller takes tasks too, so a batch finishes even when
// no worker wakes in time (or, after a fork, when there are none).
#pragma once
#include <cstdint>
#include <functional>

namespace msprobe {

// Runs fn(i) for every i in [0, n), on the calling thread and the pool's workers, and returns
// when all are done. Which thread runs a task is not fixed: fn(i) must write its result to slot
// i and not depend on the others. The first exception thrown by a task is rethrown here (tasks
// not started by then still run). Batches from several threads run one after the other.
void parallel_for(int64_t n, const std::function<void(int64_t)>& fn);

// Workers beside the caller: the CPUs this process may run on, less one, at most 3;
// MSPROBE_STATS_THREADS=N caps the threads in all (caller included) at N, and 1 turns the pool
// off.
int parallel_workers();

}  // namespace msprobe
