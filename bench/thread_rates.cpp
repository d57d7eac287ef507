// What each thread gets from its core and the memory system, all threads at once, round by round,
// with the state a cross-core round trip finds the machine in (CoreStateOf): multiply-adds in
// registers, reads from L2 (512 KiB a thread), L3 (8 MiB) and memory (256 MiB). On the Zen 5 VM it
// shows which of a thread's rates change when its vCPUs move between one CCD and two (docs/
// PERFORMANCE.md, forty-fourth session): why dense cases speed up apart and the views do not.
//
// usage: thread_rates [ROUNDS]   (default 20; threads as the library takes them,
//                                 ACLNN_HOST_NUM_THREADS or every online CPU)
// prints a line a round, then per state the medians over rounds and threads.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/common/kernel_config.h"
#include "simd_passes.h"
#include "stream_bandwidth.h"

namespace {

using aclhost::bench::CoreState;

constexpr int64_t kMulAddRounds = 20'000'000;
struct Level {
  const char *name;
  int64_t bytes;  // a thread's buffer
  int passes;     // read so many times a round
};
constexpr Level kLevels[] = {{"L2", int64_t{512} << 10, 400}, {"L3", int64_t{8} << 20, 20}, {"memory", int64_t{256} << 20, 1}};
constexpr int kRates = 1 + sizeof(kLevels) / sizeof(kLevels[0]);  // the multiply-add, then each level

struct FreeDeleter {
  void operator()(char *p) const { std::free(p); }
};

double Seconds() { return omp_get_wtime(); }

const char *StateName(CoreState state) {
  return state == CoreState::kTogether ? "together" : state == CoreState::kApart ? "apart" : "no state";
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0.0 : values[values.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  const int threads = aclhost::kernels::CurrentKernelConfig().threads;
  if (rounds < 1) {
    std::fprintf(stderr, "usage: thread_rates [ROUNDS]\n");
    return 2;
  }
  // Each thread's buffers, touched by the thread that reads them.
  std::vector<std::unique_ptr<char, FreeDeleter>> buffers(static_cast<size_t>(threads) * (kRates - 1));
#pragma omp parallel num_threads(threads)
  for (int level = 0; level < kRates - 1; ++level) {
    char *buffer = static_cast<char *>(std::aligned_alloc(64, static_cast<size_t>(kLevels[level].bytes)));
    std::memset(buffer, 0x5a + level, static_cast<size_t>(kLevels[level].bytes));
    buffers[static_cast<size_t>(omp_get_thread_num() * (kRates - 1) + level)].reset(buffer);
  }
  std::printf("%d threads; per thread: multiply-add ns a vector, read GB/s from", threads);
  for (const Level &level : kLevels) std::printf(" %s", level.name);
  std::printf("\n");
  std::vector<double> by_state[2][kRates];  // together, apart
  for (int round = 0; round < rounds; ++round) {
    const double round_trip_before = aclhost::bench::CoreRoundTripNs(threads);
    std::vector<double> rates(static_cast<size_t>(threads) * kRates);
#pragma omp parallel num_threads(threads)
    {
      const int thread = omp_get_thread_num();
      double *thread_rates = &rates[static_cast<size_t>(thread * kRates)];
#pragma omp barrier
      thread_rates[0] = aclhost::bench::MulAddNsPerVector(kMulAddRounds);
      for (int level = 0; level < kRates - 1; ++level) {
        const char *buffer = buffers[static_cast<size_t>(thread * (kRates - 1) + level)].get();
        const int64_t half = kLevels[level].bytes / 2;
#pragma omp barrier
        const double start = Seconds();
        for (int pass = 0; pass < kLevels[level].passes; ++pass) benchmark::DoNotOptimize(aclhost::bench::ReadBoth(buffer, buffer + half, half));
        thread_rates[1 + level] = static_cast<double>(kLevels[level].bytes) * kLevels[level].passes / (Seconds() - start) / 1e9;
      }
    }
    const double round_trip = std::max(round_trip_before, aclhost::bench::CoreRoundTripNs(threads));
    // One thread has no round trip: its rounds count as together.
    const CoreState state = threads > 1 ? aclhost::bench::CoreStateOf(round_trip) : CoreState::kTogether;
    std::printf("round %d, round trip %.0f ns (%s):", round + 1, round_trip, StateName(state));
    for (int thread = 0; thread < threads; ++thread) {
      std::printf(" |");
      for (int rate = 0; rate < kRates; ++rate) std::printf(" %.3g", rates[static_cast<size_t>(thread * kRates + rate)]);
    }
    std::printf("\n");
    if (state == CoreState::kNone) continue;
    for (int thread = 0; thread < threads; ++thread) {
      for (int rate = 0; rate < kRates; ++rate) {
        by_state[state == CoreState::kApart][rate].push_back(rates[static_cast<size_t>(thread * kRates + rate)]);
      }
    }
  }
  for (int apart = 0; apart < 2; ++apart) {
    const size_t samples = by_state[apart][0].size();
    if (samples == 0) continue;
    std::printf("medians %s (%zu thread rounds): multiply-add %.3f ns", StateName(apart ? CoreState::kApart : CoreState::kTogether), samples, Median(by_state[apart][0]));
    for (int level = 0; level < kRates - 1; ++level) std::printf(", %s %.1f GB/s", kLevels[level].name, Median(by_state[apart][1 + level]));
    std::printf("\n");
  }
  return 0;
}
