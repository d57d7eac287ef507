// Complete aclnnLayerNormBackward calls from raw bytes: shapes, strides, offsets, dtypes, NULLs,
// masks, and operands placed over each other in one buffer. Every call must either be rejected
// with a message, changing nothing, or succeed in both phases, write only inside its output views,
// and match the long-double reference. The SIMD target and thread count vary with the input.

#include "arena_call.h"
#include "operator_fuzz.h"

namespace {

using aclhost::fuzz::ByteReader;
using namespace aclhost::testing;

// A consistent call over input's dims, then a mutation per operand.
ArenaCallSpec Decode(ByteReader &bytes) {
  ArenaCallSpec spec;
  const aclhost::fuzz::CallShape shape = aclhost::fuzz::DecodeShape(bytes);
  // gradOut and input share the data dtype; every other operand may also be FLOAT.
  const int kinds[kOperandCount] = {0, 0, 2, 2, 1, 1, 0, 1, 1};
  aclhost::fuzz::ShapeOperands(bytes, shape, kinds, kOperandCount, [](int k) { return k == kGradOut || k == kInput; },
                               spec.operands);
  spec.normalized_shape = shape.normalized;
  const uint8_t mask = bytes.Byte();
  for (int k = 0; k < 3; ++k) spec.mask[k] = ((mask >> k) & 1) != 0 || mask >= 128;

  // Side by side first; mutations may then move an operand onto another.
  spec.arena_bytes = aclhost::fuzz::PlaceInArena(bytes, spec.operands, kOperandCount, &spec.normalized_shape);
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return aclhost::fuzz::FuzzOneCall("layer_norm_backward_fuzz", data, size, Decode, RunArenaCall);
}
