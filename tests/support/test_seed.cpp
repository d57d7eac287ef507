#include "test_seed.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace aclhost {
namespace testing {

uint64_t TestSeed() {
  static const uint64_t seed = [] {
    const char *fixed = std::getenv("LNB_TEST_SEED");
    const uint64_t chosen = fixed != nullptr ? std::strtoull(fixed, nullptr, 10)
                                             : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    std::printf("LNB_TEST_SEED=%llu\n", static_cast<unsigned long long>(chosen));
    return chosen;
  }();
  return seed;
}

}  // namespace testing
}  // namespace aclhost
