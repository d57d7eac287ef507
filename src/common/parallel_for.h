// body(i, worker) for i in [0, count) on up to threads OpenMP threads, static schedule; worker
// is in [0, threads) and names the thread among those of this loop (for per-thread buffers),
// whatever thread the caller itself is. With one thread it is a plain loop: even an if(false)
// parallel region wakes the idle OpenMP pool, which costs microseconds small calls cannot afford.
#pragma once

#include <omp.h>

#include <cstdint>

namespace aclhost {

template <typename Body>
void ParallelFor(int64_t count, int threads, Body body) {
  if (threads <= 1 || count <= 1) {
    for (int64_t i = 0; i < count; ++i) body(i, 0);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < count; ++i) body(i, omp_get_thread_num());
}

}  // namespace aclhost
