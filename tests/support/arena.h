// Operator calls whose every operand is a view into one buffer (the arena), so that aliasing,
// overlap and odd strides can be described as data: where a view's elements lie, its values read
// and written through its dtype, and one call run over the arena with the two promises a caller
// relies on checked byte for byte: a rejected call changes nothing, and an accepted one writes only
// inside its output views. Each operator's arena call (arena_call.h, layer_norm_arena_call.h)
// supplies its descriptors, inputs and reference.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace aclhost {
namespace testing {

struct Placement {
  bool present = true;
  bool null_data = false;  // a descriptor with a NULL data address
  aclDataType dtype = ACL_FLOAT;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // in elements; empty = contiguous
  int64_t view_offset = 0;       // in elements, from the data address
  int64_t byte_offset = 0;       // data address = arena + byte_offset
};

int64_t CountOf(const std::vector<int64_t> &dims);
// The view's values in row-major index order, read through its dtype (an aliased byte reads as
// whatever was written there last).
std::vector<double> ReadView(const Placement &placement, const uint8_t *arena);
void WriteView(const Placement &placement, const std::vector<double> &values, uint8_t *arena);
// Whether every value is finite and at most 1e4 in size. Inputs written over each other in
// different dtypes read back as arbitrary bits (NaN, Inf, 1e38), where float32 and long double
// legitimately part ways, and results beyond that overflow FLOAT16 by right: an arena call judges
// only the bytes then.
bool AllModerate(const std::vector<double> &values);
// The element-aligned arena offset just past the end of the view's storage.
int64_t EndOf(const Placement &placement);
// "name: dtype .. dims [..] strides [..] view_offset .. byte_offset ..", or "name: absent".
std::string DescribePlacement(const char *name, const Placement &placement);
std::string DescribeDims(const std::vector<int64_t> &values);
// The descriptor of a present placement, its storage everything from its data address to the
// arena's end; nullptr for an absent one, or when aclCreateTensor refuses the view.
aclTensor *CreateTensorOver(const Placement &placement, uint8_t *arena, size_t arena_bytes);

// The descriptors of one call's operands (created over the arena) and its normalized shape;
// destroyed with it.
template <int kCount>
class ArenaTensors {
 public:
  ArenaTensors(const Placement (&placements)[kCount], const std::vector<int64_t> &normalized_shape, size_t arena_bytes)
      : placements_(placements), normalized_shape_values_(normalized_shape), arena_bytes_(arena_bytes) {}
  ~ArenaTensors() {
    for (aclTensor *tensor : tensors_) aclDestroyTensor(tensor);
    aclDestroyIntArray(normalized_shape_);
  }
  ArenaTensors(const ArenaTensors &) = delete;
  ArenaTensors &operator=(const ArenaTensors &) = delete;

  // False when aclCreateTensor refused a view.
  bool Create(uint8_t *arena) {
    bool complete = true;
    for (int k = 0; k < kCount; ++k) {
      tensors_[k] = CreateTensorOver(placements_[k], arena, arena_bytes_);
      if (placements_[k].present && tensors_[k] == nullptr) complete = false;
    }
    normalized_shape_ = aclCreateIntArray(normalized_shape_values_.data(), normalized_shape_values_.size());
    return complete;
  }
  aclTensor *operator[](int operand) const { return tensors_[operand]; }
  const aclIntArray *normalized_shape() const { return normalized_shape_; }

 private:
  const Placement (&placements_)[kCount];
  const std::vector<int64_t> &normalized_shape_values_;
  size_t arena_bytes_;
  aclTensor *tensors_[kCount] = {};
  aclIntArray *normalized_shape_ = nullptr;
};

struct ArenaOutcome {
  bool described = true;  // false: aclCreateTensor refused a view (nothing else ran)
  aclnnStatus phase1 = 0;
  aclnnStatus phase2 = 0;
  aclError synchronize = ACL_SUCCESS;
  std::string message;            // aclGetRecentErrMsg after a failure
  bool arena_intact = true;       // rejected: no byte changed; accepted: none outside the outputs
  bool results_match = true;      // accepted: every output within its tolerance of the reference
  bool handles_untouched = true;  // rejected: *workspaceSize and *executor as they were
  std::string failure;            // what did not hold, for a test to print
};

// One operator's part of an arena call.
struct ArenaCall {
  // Creates the descriptors over the arena; false when one was refused.
  std::function<bool(uint8_t *arena)> describe;
  // Writes the inputs' values (and keeps what the check needs of them).
  std::function<void(uint8_t *arena)> fill;
  std::function<aclnnStatus(uint64_t *workspace_size, aclOpExecutor **executor)> phase1;
  std::function<aclnnStatus(void *workspace, uint64_t workspace_size, aclOpExecutor *executor, aclrtStream stream)> phase2;
  // The views an accepted call may write.
  std::vector<Placement> outputs;
  // An accepted call's results against the reference; false with *failure set when they differ.
  std::function<bool(const uint8_t *arena, std::string *failure)> check;
};

// Allocates arena_bytes of sentinel bytes, describes and fills them, runs phase 1 and, when it
// succeeds, phase 2 on stream with a workspace of the size asked and a synchronisation.
ArenaOutcome RunInArena(size_t arena_bytes, const ArenaCall &call, aclrtStream stream);

}  // namespace testing
}  // namespace aclhost
