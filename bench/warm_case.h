// The bytes the benchmarks and bench/ab_builds rate a call by, and where they stop timing calls
// warm, back to back.
#pragma once

namespace aclhost {
namespace bench {

// What a call must move: the backward reads gradOut and input and writes gradInput, the forward
// reads input and writes out, each `elements` of element_size bytes.
inline double EffectiveBytes(double elements, double element_size, bool forward) {
  return (forward ? 2.0 : 3.0) * elements * element_size;
}

// Calls that move less than this (the small calls, whose operands stay in cache) are timed back
// to back, warm: what bounds them is the call's fixed cost, not memory, so they get no ratio.
// Larger calls start with their operands out of the caches.
constexpr double kWarmCaseBytes = 8 << 20;

}  // namespace bench
}  // namespace aclhost
