// body(i, worker) for i in [0, count) on up to threads OpenMP threads; worker is in [0, threads)
// and names the thread among those of this loop (for per-thread buffers), whatever thread the
// caller itself is. Each thread takes its i in increasing order, in runs of consecutive i. The
// guided schedule hands out halving runs: a thread that starts late (a woken pool thread began
// 30-40 us after the caller in a 1.3 ms call here) or runs slower leaves the rest to the other,
// where a static split would wait for it; the first runs stay long. (8192, 768) FLOAT16
// backward, alternating builds: faster than static in 65 of 100 pairs; 30 ms calls even.
// With one thread it is a plain loop: even an if(false) parallel region wakes the idle OpenMP
// pool, which costs microseconds small calls cannot afford.
#pragma once

#include <omp.h>

#include <cstdint>

namespace aclhost {

// The loop on the caller alone where one thread does all: true if it ran.
template <typename Body>
bool RunAlone(int64_t count, int threads, Body &body) {
  if (threads > 1 && count > 1) return false;
  for (int64_t i = 0; i < count; ++i) body(i, 0);
  return true;
}

template <typename Body>
void ParallelFor(int64_t count, int threads, Body body) {
  if (RunAlone(count, threads, body)) return;
#pragma omp parallel for schedule(guided) num_threads(threads)
  for (int64_t i = 0; i < count; ++i) body(i, omp_get_thread_num());
}

// ParallelFor with each thread taking the next i no thread has taken yet, one at a time, so that
// the threads work on neighbouring i together (the operands in columns read and write neighbouring
// runs of each column together) and one that runs slower leaves the rest to the others.
template <typename Body>
void ParallelForInTurn(int64_t count, int threads, Body body) {
  if (RunAlone(count, threads, body)) return;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t i = 0; i < count; ++i) body(i, omp_get_thread_num());
}

// Which of a ParallelTeam's threads runs a body, among how many, and where they meet.
struct Team {
  int worker = 0, workers = 1;

  // Every worker arrives before any goes on. A team of one has no one to wait for: ParallelTeam
  // runs it without a region, where a barrier would bind to a caller's own OpenMP region and wait on
  // its threads.
  void Barrier() const {
    if (workers > 1) {
#pragma omp barrier
    }
  }
};

// body(team) once on each of up to `threads` OpenMP threads. With one thread, the caller alone, no
// region.
template <typename Body>
void ParallelTeam(int threads, Body body) {
  if (threads <= 1) {
    body(Team{});
    return;
  }
#pragma omp parallel num_threads(threads)
  body(Team{omp_get_thread_num(), omp_get_num_threads()});
}

}  // namespace aclhost
