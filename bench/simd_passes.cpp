// With 16-byte loads and stores (and consecutive blocks a thread) the benchmark gave 4.9 ms for the
// BF16 (4096, 4096) column floor on Zen 5, with the CPU's widest 2.7-3.2 (docs/PERFORMANCE.md,
// thirty-ninth session): hence one source per SIMD target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_passes.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <chrono>

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most a line a vector, so that `bytes` (a multiple of 64) is whole vectors on every target.
using LineTag = hn::CappedTag<uint64_t, 8>;

uint64_t ReadBothOnTarget(const char *a, const char *b, int64_t bytes) {
  const LineTag d;
  const int64_t step = static_cast<int64_t>(hn::Lanes(d) * sizeof(uint64_t));
  auto sum = hn::Zero(d);
  for (int64_t at = 0; at < bytes; at += step) {
    const auto x = hn::LoadU(d, reinterpret_cast<const uint64_t *>(a + at));
    const auto y = hn::LoadU(d, reinterpret_cast<const uint64_t *>(b + at));
    sum = hn::Xor(sum, hn::Xor(x, y));
  }
  return hn::GetLane(hn::SumOfLanes(d, sum));
}

void WriteFromBothOnTarget(const char *a, const char *b, char *out, int64_t bytes) {
  const LineTag d;
  const int64_t step = static_cast<int64_t>(hn::Lanes(d) * sizeof(uint64_t));
  for (int64_t at = 0; at < bytes; at += step) {
    const auto x = hn::LoadU(d, reinterpret_cast<const uint64_t *>(a + at));
    const auto y = hn::LoadU(d, reinterpret_cast<const uint64_t *>(b + at));
    hn::Stream(hn::Xor(x, y), d, reinterpret_cast<uint64_t *>(out + at));
  }
}

double MulAddNsPerVectorOnTarget(int64_t rounds) {
  // 12 chains: more than a core's multiply-add latency times its units keeps busy.
  constexpr int kChains = 12;
  const hn::ScalableTag<float> d;
  hn::Vec<decltype(d)> chain[kChains];
  for (int c = 0; c < kChains; ++c) chain[c] = hn::Set(d, 1.0f + static_cast<float>(c) * 1e-7f);
  const auto factor = hn::Set(d, 0.9999999f), term = hn::Set(d, 1e-7f);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t round = 0; round < rounds; ++round) {
    for (int c = 0; c < kChains; ++c) chain[c] = hn::MulAdd(chain[c], factor, term);
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  auto sum = chain[0];
  for (int c = 1; c < kChains; ++c) sum = hn::Add(sum, chain[c]);
  volatile float keep = hn::GetLane(sum);  // the chains' results are used
  (void)keep;
  return elapsed.count() * 1e9 / static_cast<double>(rounds * kChains);
}

}  // namespace HWY_NAMESPACE
}  // namespace bench
}  // namespace aclhost
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "simd_passes.h"

namespace aclhost {
namespace bench {
HWY_EXPORT(ReadBothOnTarget);
HWY_EXPORT(WriteFromBothOnTarget);
HWY_EXPORT(MulAddNsPerVectorOnTarget);

uint64_t ReadBoth(const char *a, const char *b, int64_t bytes) { return HWY_DYNAMIC_DISPATCH(ReadBothOnTarget)(a, b, bytes); }
void WriteFromBoth(const char *a, const char *b, char *out, int64_t bytes) {
  HWY_DYNAMIC_DISPATCH(WriteFromBothOnTarget)(a, b, out, bytes);
}
double MulAddNsPerVector(int64_t rounds) { return HWY_DYNAMIC_DISPATCH(MulAddNsPerVectorOnTarget)(rounds); }

}  // namespace bench
}  // namespace aclhost
#endif  // HWY_ONCE
