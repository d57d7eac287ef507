#include "stream_bandwidth.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>

namespace aclhost {
namespace bench {
namespace {

constexpr size_t kCount = size_t{1} << 25;  // 128 MiB per array

// kArrays: how many arrays the kernel streams (3 for the triad, 2 for the copy).
template <int kArrays>
double Measure(int threads) {
  std::unique_ptr<float[]> a(new float[kCount]), b(new float[kCount]), c(new float[kCount]);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t i = 0; i < kCount; ++i) {
    a[i] = 0.0f;
    b[i] = 1.0f;
    c[i] = 2.0f;
  }
  double best = 1e30;
  for (int repeat = 0; repeat < 8; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    const float scale = 3.0f;
    if (kArrays == 3) {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (size_t i = 0; i < kCount; ++i) a[i] = b[i] + scale * c[i];
    } else {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (size_t i = 0; i < kCount; ++i) a[i] = b[i];
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  benchmark::DoNotOptimize(a[kCount / 2]);
  return kArrays * sizeof(float) * static_cast<double>(kCount) / best;
}

}  // namespace

double MeasureTriad(int threads) { return Measure<3>(threads); }
double MeasureCopy(int threads) { return Measure<2>(threads); }

}  // namespace bench
}  // namespace aclhost
