// body(i) for i in [0, count) on up to threads OpenMP threads, static schedule. With one thread
// it is a plain loop: even an if(false) parallel region wakes the idle OpenMP pool, which costs
// microseconds that small calls cannot afford.
#pragma once

#include <cstdint>

namespace aclhost {

template <typename Body>
void ParallelFor(int64_t count, int threads, Body body) {
  if (threads <= 1 || count <= 1) {
    for (int64_t i = 0; i < count; ++i) body(i);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < count; ++i) body(i);
}

}  // namespace aclhost
