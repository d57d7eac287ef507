// One random seed per test process, printed so that a failing run can be replayed with
// LNB_TEST_SEED=<seed>.
#pragma once

#include <cstdint>

namespace aclhost {
namespace testing {

uint64_t TestSeed();

}  // namespace testing
}  // namespace aclhost
