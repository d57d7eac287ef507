// Complete aclnnLayerNorm and aclnnLayerNormWithImplMode calls from raw bytes: shapes, strides,
// offsets, dtypes, NULLs, eps, the impl mode, and operands placed over each other in one buffer.
// Every call must either be rejected with a message, changing nothing, or succeed in both phases,
// write only inside out, meanOut and rstdOut, and match the long-double reference. The SIMD
// target and thread count vary with the input.
#include <limits>

#include "layer_norm_arena_call.h"
#include "operator_fuzz.h"

namespace {

using aclhost::fuzz::ByteReader;
using namespace aclhost::testing;

// Mostly the usual eps; now and then zero, tiny, large, negative or not finite.
double Eps(ByteReader &bytes) {
  static const double kOdd[] = {0.0, 1e-12, 0.5, 1e3, -1e-5, std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::infinity()};
  const uint8_t pick = bytes.Byte();
  return pick < 200 ? 1e-5 : kOdd[pick % 7];
}

// aclnnLayerNorm mostly; the ImplMode variant with a valid mode, or now and then an invalid one.
int32_t ImplMode(ByteReader &bytes) {
  static const int32_t kModes[] = {0, 1, 2, 0, 1, 2, 3, -2};
  const uint8_t pick = bytes.Byte();
  return pick < 128 ? -1 : kModes[pick % 8];
}

// A consistent call over input's dims, then a mutation per operand.
ForwardArenaSpec Decode(ByteReader &bytes) {
  ForwardArenaSpec spec;
  const aclhost::fuzz::CallShape shape = aclhost::fuzz::DecodeShape(bytes);
  // input and out share the data dtype; weight, bias and the statistics may also be FLOAT.
  const int kinds[kForwardOperandCount] = {0, 1, 1, 0, 2, 2};
  aclhost::fuzz::ShapeOperands(bytes, shape, kinds, kForwardOperandCount,
                               [](int k) { return k == kForwardInput || k == kForwardOut; }, spec.operands);
  spec.normalized_shape = shape.normalized;
  spec.eps = Eps(bytes);
  spec.impl_mode = ImplMode(bytes);

  // Side by side first; mutations may then move an operand onto another.
  spec.arena_bytes = aclhost::fuzz::PlaceInArena(bytes, spec.operands, kForwardOperandCount, &spec.normalized_shape);
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return aclhost::fuzz::FuzzOneCall("layer_norm_fuzz", data, size, Decode, RunForwardArenaCall);
}
