// Complete aclnnLayerNorm and aclnnLayerNormWithImplMode calls from raw bytes: shapes, strides,
// offsets, dtypes, NULLs, eps, the impl mode, and operands placed over each other in one buffer.
// Every call must either be rejected with a message, changing nothing, or succeed in both phases,
// write only inside out, meanOut and rstdOut, and match the long-double reference. The SIMD
// target and thread count vary with the input.
#include <algorithm>
#include <limits>

#include "layer_norm_arena_call.h"
#include "operator_fuzz.h"

namespace {

using aclhost::fuzz::ByteReader;
using aclhost::fuzz::Dtype;
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
  const int rank = static_cast<int>(bytes.Range(1, 4));
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int64_t &dim : dims) dim = bytes.Range(0, 15) == 0 ? 0 : bytes.Range(1, 6);
  const int norm_dims = static_cast<int>(bytes.Range(1, rank));
  const std::vector<int64_t> normalized(dims.end() - norm_dims, dims.end());
  std::vector<int64_t> stats(dims.begin(), dims.end() - norm_dims);
  stats.resize(dims.size(), 1);
  const aclDataType data = Dtype(bytes);
  const std::vector<int64_t> *shapes[kForwardOperandCount] = {&dims, &normalized, &normalized, &dims, &stats, &stats};
  for (int k = 0; k < kForwardOperandCount; ++k) {
    Placement &placement = spec.operands[k];
    placement.dims = *shapes[k];
    // input and out share the data dtype; weight, bias and the statistics may also be FLOAT.
    const bool same_as_input = k == kForwardInput || k == kForwardOut || bytes.Range(0, 3) != 0;
    placement.dtype = same_as_input ? data : ACL_FLOAT;
  }
  spec.normalized_shape = normalized;
  spec.eps = Eps(bytes);
  spec.impl_mode = ImplMode(bytes);

  // Side by side first; mutations may then move an operand onto another.
  int64_t next = 0;
  for (int k = 0; k < kForwardOperandCount; ++k) {
    spec.operands[k].byte_offset = next;
    next = EndOf(spec.operands[k]) + 8 * bytes.Range(0, 2);
  }
  for (int k = 0; k < kForwardOperandCount; ++k) {
    aclhost::fuzz::Mutate(bytes, &spec.operands[k], spec.operands, kForwardOperandCount);
  }
  if (bytes.Range(0, 15) == 0) spec.normalized_shape.back() += 1;
  if (bytes.Range(0, 31) == 0) spec.normalized_shape.clear();
  for (int k = 0; k < kForwardOperandCount; ++k) next = std::max(next, EndOf(spec.operands[k]));
  spec.arena_bytes = static_cast<size_t>(next) + 16;
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  aclrtStream stream = aclhost::fuzz::Stream("layer_norm_fuzz");
  ByteReader bytes(data, size);
  aclhost::fuzz::ChooseKernel(bytes);
  const ForwardArenaSpec spec = Decode(bytes);
  aclhost::fuzz::CheckOutcome("layer_norm_fuzz", spec, RunForwardArenaCall(spec, 7, stream));
  return 0;
}
