#include "stream_bandwidth.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>

namespace aclhost {
namespace bench {
namespace {

constexpr size_t kCount = size_t{1} << 25;  // 128 MiB per array

// The three arrays, allocated and first touched once: a pass taken next to every timed call then
// costs its pass only.
struct Arrays {
  explicit Arrays(int threads) : a(new float[kCount]), b(new float[kCount]), c(new float[kCount]) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < kCount; ++i) {
      a[i] = 0.0f;
      b[i] = 1.0f;
      c[i] = 2.0f;
    }
  }
  std::unique_ptr<float[]> a, b, c;
};

Arrays &SharedArrays(int threads) {
  static Arrays arrays(threads);
  return arrays;
}

// kArrays: how many arrays the kernel streams (3 for the triad, 2 for the copy).
template <int kArrays>
double Pass(int threads) {
  Arrays &arrays = SharedArrays(threads);
  float *a = arrays.a.get();
  const float *b = arrays.b.get();
  const float *c = arrays.c.get();
  const float scale = 3.0f;
  const auto start = std::chrono::steady_clock::now();
  if (kArrays == 3) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < kCount; ++i) a[i] = b[i] + scale * c[i];
  } else {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < kCount; ++i) a[i] = b[i];
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  benchmark::DoNotOptimize(a[kCount / 2]);
  return kArrays * sizeof(float) * static_cast<double>(kCount) / seconds;
}

constexpr size_t kCleanCount = size_t{16} << 20;  // 64 MiB of floats

}  // namespace

void LeaveCachesClean(int threads) {
  static const std::unique_ptr<float[]> clean = [] {
    std::unique_ptr<float[]> array(new float[kCleanCount]);
    for (size_t i = 0; i < kCleanCount; ++i) array[i] = 1.0f;
    return array;
  }();
  const float *data = clean.get();
  float sum = 0.0f;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : sum)
  for (size_t i = 0; i < kCleanCount; i += 16) sum += data[i];  // one float a 64-byte line
  benchmark::DoNotOptimize(sum);
}

double CoreRoundTripNs(int threads) {
  if (threads < 2) return 0.0;
  constexpr int kTrips = 256;
  alignas(64) std::atomic<int> turn{0};
  double nanoseconds = 0.0;
#pragma omp parallel num_threads(2)
  if (omp_get_num_threads() == 2) {  // a team of one would wait for itself
    const bool first = omp_get_thread_num() == 0;
#pragma omp barrier
    const auto start = std::chrono::steady_clock::now();
    for (int trip = 0; trip < kTrips; ++trip) {
      const int sent = 2 * trip + 1, answered = 2 * trip + 2;
      if (first) {
        turn.store(sent, std::memory_order_release);
        while (turn.load(std::memory_order_acquire) != answered) {
        }
      } else {
        while (turn.load(std::memory_order_acquire) != sent) {
        }
        turn.store(answered, std::memory_order_release);
      }
    }
    if (first) nanoseconds = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / kTrips;
  }
  return nanoseconds;
}

double TriadPass(int threads) { return Pass<3>(threads); }
double CopyPass(int threads) { return Pass<2>(threads); }

CoreState CoreStateOf(double round_trip_ns) {
  constexpr double kApartRoundTripNs = 250, kDescheduledRoundTripNs = 2000;
  if (round_trip_ns > kDescheduledRoundTripNs) return CoreState::kNone;
  return round_trip_ns > kApartRoundTripNs ? CoreState::kApart : CoreState::kTogether;
}

}  // namespace bench
}  // namespace aclhost
