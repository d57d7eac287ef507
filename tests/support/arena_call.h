// One aclnnLayerNormBackward call whose every operand is a view into a single buffer (the arena,
// arena.h): a rejected call changes nothing, and an accepted one writes only inside its output
// views, with values that match the long-double reference. Shared by the overlap tests and the
// fuzz target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arena.h"

namespace aclhost {
namespace testing {

enum Operand { kGradOut, kInput, kMean, kRstd, kWeight, kBias, kGradInput, kGradWeight, kGradBias, kOperandCount };

const char *OperandName(int operand);

struct ArenaCallSpec {
  Placement operands[kOperandCount];
  std::vector<int64_t> normalized_shape;
  bool mask[3] = {true, true, true};
  size_t arena_bytes = 0;
};

// The default: input [rows, cols] over the last dim, every operand dense, FLOAT, side by side.
ArenaCallSpec SeparateOperands(int64_t rows, int64_t cols);
// One line per operand (dtype, dims, strides, offsets), the normalized shape and the mask.
std::string Describe(const ArenaCallSpec &spec);
// The element-aligned arena offset just past the end of operand's storage.
int64_t EndOf(const ArenaCallSpec &spec, int operand);

// Fills the inputs with random values (seeded), runs phase 1, and when it succeeds phase 2 on
// stream and a synchronisation.
ArenaOutcome RunArenaCall(const ArenaCallSpec &spec, uint64_t seed, aclrtStream stream);

}  // namespace testing
}  // namespace aclhost
