// Complete aclnnLayerNormBackward calls from raw bytes: shapes, strides, offsets, dtypes, NULLs,
// masks, and operands placed over each other in one buffer. Every call must either be rejected
// with a message, changing nothing, or succeed in both phases, write only inside its output views,
// and match the long-double reference. The SIMD target and thread count vary with the input.
#include <algorithm>

#include "arena_call.h"
#include "operator_fuzz.h"

namespace {

using aclhost::fuzz::ByteReader;
using aclhost::fuzz::Dtype;
using namespace aclhost::testing;

// A consistent call over input's dims, then a mutation per operand.
ArenaCallSpec Decode(ByteReader &bytes) {
  ArenaCallSpec spec;
  const int rank = static_cast<int>(bytes.Range(1, 4));
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int64_t &dim : dims) dim = bytes.Range(0, 15) == 0 ? 0 : bytes.Range(1, 6);
  const int norm_dims = static_cast<int>(bytes.Range(1, rank));
  const std::vector<int64_t> normalized(dims.end() - norm_dims, dims.end());
  std::vector<int64_t> stats(dims.begin(), dims.end() - norm_dims);
  stats.resize(dims.size(), 1);
  const aclDataType data = Dtype(bytes);
  const std::vector<int64_t> *shapes[kOperandCount] = {&dims, &dims, &stats, &stats, &normalized,
                                                       &normalized, &dims, &normalized, &normalized};
  for (int k = 0; k < kOperandCount; ++k) {
    Placement &placement = spec.operands[k];
    placement.dims = *shapes[k];
    // gradOut and input share the data dtype; every other operand may also be FLOAT.
    const bool same_as_input = k == kGradOut || k == kInput || bytes.Range(0, 3) != 0;
    placement.dtype = same_as_input ? data : ACL_FLOAT;
  }
  spec.normalized_shape = normalized;
  const uint8_t mask = bytes.Byte();
  for (int k = 0; k < 3; ++k) spec.mask[k] = ((mask >> k) & 1) != 0 || mask >= 128;

  // Side by side first; mutations may then move an operand onto another.
  int64_t next = 0;
  for (int k = 0; k < kOperandCount; ++k) {
    spec.operands[k].byte_offset = next;
    next = EndOf(spec, k) + 8 * bytes.Range(0, 2);
  }
  for (int k = 0; k < kOperandCount; ++k) aclhost::fuzz::Mutate(bytes, &spec.operands[k], spec.operands, kOperandCount);
  if (bytes.Range(0, 15) == 0) spec.normalized_shape.back() += 1;
  if (bytes.Range(0, 31) == 0) spec.normalized_shape.clear();
  for (int k = 0; k < kOperandCount; ++k) next = std::max(next, EndOf(spec, k));
  spec.arena_bytes = static_cast<size_t>(next) + 16;
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  aclrtStream stream = aclhost::fuzz::Stream("layer_norm_backward_fuzz");
  ByteReader bytes(data, size);
  aclhost::fuzz::ChooseKernel(bytes);
  const ArenaCallSpec spec = Decode(bytes);
  aclhost::fuzz::CheckOutcome("layer_norm_backward_fuzz", spec, RunArenaCall(spec, 7, stream));
  return 0;
}
