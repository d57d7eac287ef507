// One aclnnLayerNormBackward call whose every operand is a view into a single buffer (the arena),
// so that aliasing, overlap and odd strides can be described as data. Running it checks the two
// promises a caller relies on, byte for byte: a rejected call changes nothing, and an accepted
// one writes only inside its output views, with values that match the long-double reference.
// Shared by the overlap tests and the fuzz target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace aclhost {
namespace testing {

enum Operand { kGradOut, kInput, kMean, kRstd, kWeight, kBias, kGradInput, kGradWeight, kGradBias, kOperandCount };

const char *OperandName(int operand);

struct Placement {
  bool present = true;
  bool null_data = false;  // a descriptor with a NULL data address
  aclDataType dtype = ACL_FLOAT;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // in elements; empty = contiguous
  int64_t view_offset = 0;       // in elements, from the data address
  int64_t byte_offset = 0;       // data address = arena + byte_offset
};

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

struct ArenaOutcome {
  bool described = true;  // false: aclCreateTensor refused a view (nothing else ran)
  aclnnStatus phase1 = 0;
  aclnnStatus phase2 = 0;
  aclError synchronize = ACL_SUCCESS;
  std::string message;              // aclGetRecentErrMsg after a failure
  bool arena_intact = true;         // rejected: no byte changed; accepted: none outside the outputs
  bool results_match = true;        // accepted: every output within its tolerance of the reference
  bool handles_untouched = true;    // rejected: *workspaceSize and *executor as they were
  std::string failure;              // what did not hold, for a test to print
};

// Fills the inputs with random values (seeded), runs phase 1, and when it succeeds phase 2 on
// stream and a synchronisation.
ArenaOutcome RunArenaCall(const ArenaCallSpec &spec, uint64_t seed, aclrtStream stream);

}  // namespace testing
}  // namespace aclhost
