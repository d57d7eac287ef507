// How every harness of bench/peers times its call: the best mean over 5 rounds of 5 calls back to
// back (after the one call each harness makes first, outside the timing), in seconds.
#pragma once

#include <algorithm>
#include <chrono>

template <typename Call>
double BestMeanSeconds(Call call) {
  constexpr int kRounds = 5, kCallsPerRound = 5;
  double best = 1e30;
  for (int round = 0; round < kRounds; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCallsPerRound; ++i) call();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kCallsPerRound);
  }
  return best;
}
