// What the operators' fuzz targets share: the stream, the SIMD target and thread count drawn from
// the input, a dtype pick, one mutation of an operand's placement, and the checks of an arena
// call's outcome (arena.h): a rejected call leaves a message and changes nothing, an accepted one
// runs, writes only its outputs and matches the reference.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "aclnn/opdev/op_errno.h"
#include "arena.h"
#include "byte_reader.h"

namespace aclhost {
namespace fuzz {

inline aclrtStream Stream(const char *target) {
  static aclrtStream stream = [target] {
    aclrtStream created = nullptr;
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&created) != ACL_SUCCESS) {
      std::fprintf(stderr, "%s: runtime set-up failed\n", target);
      std::abort();
    }
    return created;
  }();
  return stream;
}

// Mostly the accepted FLOAT, FLOAT16 and BF16; now and then INT32 or DOUBLE.
inline aclDataType Dtype(ByteReader &bytes) {
  static const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_INT32, ACL_DOUBLE};
  const uint8_t pick = bytes.Byte();
  return pick < 240 ? kDtypes[pick % 3] : kDtypes[pick % 6];
}

inline void ChooseKernel(ByteReader &bytes) {
  static const char *const kIsas[] = {nullptr, "scalar", "sse4", "avx2", "avx512"};
  const char *isa = kIsas[bytes.Range(0, 4)];
  if (isa == nullptr) {
    unsetenv("ACLNN_HOST_ISA");
  } else {
    setenv("ACLNN_HOST_ISA", isa, 1);
  }
  setenv("ACLNN_HOST_NUM_THREADS", std::to_string(bytes.Range(1, 3)).c_str(), 1);
}

// At most one change to a placement: absent, NULL data, another dtype, a dim one larger, moved
// over one of the call's `count` operands (possibly exactly), any strides, or misaligned.
inline void Mutate(ByteReader &bytes, testing::Placement *placement, const testing::Placement *operands, int count) {
  switch (bytes.Byte() % 24) {
    case 0: placement->present = false; break;
    case 1: placement->null_data = true; break;
    case 2: placement->dtype = Dtype(bytes); break;
    case 3:
      if (!placement->dims.empty()) placement->dims[static_cast<size_t>(bytes.Range(0, 7)) % placement->dims.size()] += 1;
      break;
    case 4:
    case 5: {  // over another operand's memory, possibly exactly
      const testing::Placement &other = operands[bytes.Range(0, count - 1)];
      placement->byte_offset = other.byte_offset;
      if (bytes.Bit() && other.dims == placement->dims) placement->strides = other.strides;
      placement->view_offset = bytes.Range(0, 2);
      break;
    }
    case 6:
    case 7:  // any strides, zeros and interleavings included
      placement->strides.resize(placement->dims.size());
      for (int64_t &stride : placement->strides) stride = bytes.Range(0, 24);
      placement->view_offset = bytes.Range(0, 5);
      break;
    case 8: placement->byte_offset += 1; break;  // misaligned
    default: break;
  }
}

template <class Spec>
void Require(bool condition, const char *target, const char *what, const Spec &spec, const testing::ArenaOutcome &outcome) {
  if (condition) return;
  std::fprintf(stderr, "%s: %s\n  failure: %s\n  message: %s\n  phase1 %d phase2 %d sync %d\n%s", target, what,
               outcome.failure.c_str(), outcome.message.c_str(), outcome.phase1, outcome.phase2, outcome.synchronize,
               Describe(spec).c_str());
  std::abort();
}

template <class Spec>
void CheckOutcome(const char *target, const Spec &spec, const testing::ArenaOutcome &outcome) {
  if (!outcome.described) return;  // aclCreateTensor refused a view: the tensor fuzzer's ground
  if (outcome.phase1 != ACLNN_SUCCESS) {
    Require(!outcome.message.empty(), target, "a rejected call left no message", spec, outcome);
    Require(outcome.handles_untouched, target, "a rejected call wrote its out-parameters", spec, outcome);
    Require(outcome.arena_intact, target, "a rejected call changed memory", spec, outcome);
    return;
  }
  Require(outcome.phase2 == ACLNN_SUCCESS && outcome.synchronize == ACL_SUCCESS, target, "an accepted call failed to run",
          spec, outcome);
  Require(outcome.arena_intact, target, "an accepted call wrote outside its outputs", spec, outcome);
  Require(outcome.results_match, target, "an accepted call's results differ from the reference", spec, outcome);
}

}  // namespace fuzz
}  // namespace aclhost
