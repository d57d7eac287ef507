// Where the benchmarks and bench/ab_builds stop timing calls warm, back to back.
#pragma once

namespace aclhost {
namespace bench {

// Calls that move less than this (the small calls, whose operands stay in cache) are timed back
// to back, warm: what bounds them is the call's fixed cost, not memory, so they get no ratio.
// Larger calls start with their operands out of the caches.
constexpr double kWarmCaseBytes = 8 << 20;

}  // namespace bench
}  // namespace aclhost
