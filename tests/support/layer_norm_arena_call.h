// One aclnnLayerNorm (or aclnnLayerNormWithImplMode) call whose every operand is a view into one
// buffer (arena.h): a rejected call changes nothing, and an accepted one writes only inside out,
// meanOut and rstdOut, with values that match the long-double reference. For the forward's fuzz
// target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arena.h"

namespace aclhost {
namespace testing {

enum ForwardOperand { kForwardInput, kForwardWeight, kForwardBias, kForwardOut, kForwardMean, kForwardRstd, kForwardOperandCount };

const char *ForwardOperandName(int operand);

struct ForwardArenaSpec {
  Placement operands[kForwardOperandCount];
  std::vector<int64_t> normalized_shape;
  double eps = 1e-5;
  int32_t impl_mode = -1;  // -1: aclnnLayerNorm; otherwise the ImplMode variant with this mode
  size_t arena_bytes = 0;
};

// One line per operand, then the normalized shape, eps, the impl mode and the arena's size.
std::string Describe(const ForwardArenaSpec &spec);

// Fills input, weight and bias with random values (seeded), runs phase 1, and when it succeeds
// phase 2 on stream and a synchronisation.
ArenaOutcome RunForwardArenaCall(const ForwardArenaSpec &spec, uint64_t seed, aclrtStream stream);

}  // namespace testing
}  // namespace aclhost
