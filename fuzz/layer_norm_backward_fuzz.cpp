// Complete aclnnLayerNormBackward calls from raw bytes: shapes, strides, offsets, dtypes, NULLs,
// masks, and operands placed over each other in one buffer. Every call must either be rejected
// with a message, changing nothing, or succeed in both phases, write only inside its output views,
// and match the long-double reference. The SIMD target and thread count vary with the input.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "aclnn/opdev/op_errno.h"
#include "arena_call.h"
#include "byte_reader.h"

namespace {

using aclhost::fuzz::ByteReader;
using namespace aclhost::testing;

void Require(bool condition, const char *what, const ArenaCallSpec &spec, const ArenaOutcome &outcome) {
  if (condition) return;
  std::fprintf(stderr, "layer_norm_backward_fuzz: %s\n  failure: %s\n  message: %s\n  phase1 %d phase2 %d sync %d\n%s", what,
               outcome.failure.c_str(), outcome.message.c_str(), outcome.phase1, outcome.phase2, outcome.synchronize,
               Describe(spec).c_str());
  std::abort();
}

aclrtStream Stream() {
  static aclrtStream stream = [] {
    aclrtStream created = nullptr;
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&created) != ACL_SUCCESS) {
      std::fprintf(stderr, "layer_norm_backward_fuzz: runtime set-up failed\n");
      std::abort();
    }
    return created;
  }();
  return stream;
}

aclDataType Dtype(ByteReader &bytes) {
  static const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_INT32, ACL_DOUBLE};
  const uint8_t pick = bytes.Byte();
  return pick < 240 ? kDtypes[pick % 3] : kDtypes[pick % 6];  // mostly accepted dtypes
}

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
  for (int k = 0; k < kOperandCount; ++k) {
    Placement &placement = spec.operands[k];
    switch (bytes.Byte() % 24) {
      case 0: placement.present = false; break;
      case 1: placement.null_data = true; break;
      case 2: placement.dtype = Dtype(bytes); break;
      case 3:
        if (!placement.dims.empty()) placement.dims[static_cast<size_t>(bytes.Range(0, 7)) % placement.dims.size()] += 1;
        break;
      case 4:
      case 5: {  // over another operand's memory, possibly exactly
        const Placement &other = spec.operands[bytes.Range(0, kOperandCount - 1)];
        placement.byte_offset = other.byte_offset;
        if (bytes.Bit() && other.dims == placement.dims) placement.strides = other.strides;
        placement.view_offset = bytes.Range(0, 2);
        break;
      }
      case 6:
      case 7:  // any strides, zeros and interleavings included
        placement.strides.resize(placement.dims.size());
        for (int64_t &stride : placement.strides) stride = bytes.Range(0, 24);
        placement.view_offset = bytes.Range(0, 5);
        break;
      case 8: placement.byte_offset += 1; break;  // misaligned
      default: break;
    }
  }
  if (bytes.Range(0, 15) == 0) spec.normalized_shape.back() += 1;
  if (bytes.Range(0, 31) == 0) spec.normalized_shape.clear();
  for (int k = 0; k < kOperandCount; ++k) next = std::max(next, EndOf(spec, k));
  spec.arena_bytes = static_cast<size_t>(next) + 16;
  return spec;
}

void ChooseKernel(ByteReader &bytes) {
  static const char *const kIsas[] = {nullptr, "scalar", "sse4", "avx2", "avx512"};
  const char *isa = kIsas[bytes.Range(0, 4)];
  if (isa == nullptr) {
    unsetenv("ACLNN_HOST_ISA");
  } else {
    setenv("ACLNN_HOST_ISA", isa, 1);
  }
  setenv("ACLNN_HOST_NUM_THREADS", std::to_string(bytes.Range(1, 3)).c_str(), 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  aclrtStream stream = Stream();
  ByteReader bytes(data, size);
  ChooseKernel(bytes);
  const ArenaCallSpec spec = Decode(bytes);
  const ArenaOutcome outcome = RunArenaCall(spec, 7, stream);
  if (!outcome.described) return 0;  // aclCreateTensor refused a view: the tensor fuzzer's ground
  if (outcome.phase1 != ACLNN_SUCCESS) {
    Require(!outcome.message.empty(), "a rejected call left no message", spec, outcome);
    Require(outcome.handles_untouched, "a rejected call wrote its out-parameters", spec, outcome);
    Require(outcome.arena_intact, "a rejected call changed memory", spec, outcome);
    return 0;
  }
  Require(outcome.phase2 == ACLNN_SUCCESS && outcome.synchronize == ACL_SUCCESS, "an accepted call failed to run", spec, outcome);
  Require(outcome.arena_intact, "an accepted call wrote outside its outputs", spec, outcome);
  Require(outcome.results_match, "an accepted call's results differ from the reference", spec, outcome);
  return 0;
}
