// What the operators' fuzz targets share: the stream, the SIMD target and thread count drawn from
// the input, a dtype pick, one mutation of an operand's placement, and the checks of an arena
// call's outcome (arena.h): a rejected call leaves a message and changes nothing, an accepted one
// runs, writes only its outputs and matches the reference.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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

// A LayerNorm call's shapes: input's dims (rank 1-4, each 1-6, now and then 0), the normalized
// trailing dims, the statistics' shape (input's leading dims, then ones) and the data dtype.
struct CallShape {
  std::vector<int64_t> dims, normalized, stats;
  aclDataType data = ACL_FLOAT;
};

inline CallShape DecodeShape(ByteReader &bytes) {
  CallShape shape;
  const int rank = static_cast<int>(bytes.Range(1, 4));
  shape.dims.resize(static_cast<size_t>(rank));
  for (int64_t &dim : shape.dims) dim = bytes.Range(0, 15) == 0 ? 0 : bytes.Range(1, 6);
  const int norm_dims = static_cast<int>(bytes.Range(1, rank));
  shape.normalized.assign(shape.dims.end() - norm_dims, shape.dims.end());
  shape.stats.assign(shape.dims.begin(), shape.dims.end() - norm_dims);
  shape.stats.resize(shape.dims.size(), 1);
  shape.data = Dtype(bytes);
  return shape;
}

// Operand k of `count` gets the dims of the kind kinds[k] names (0 the call's dims, 1 the normalized
// dims, 2 the statistics') and the call's data dtype where keeps_data(k), else, one time in four
// (a byte decides), FLOAT instead.
template <typename KeepsData>
void ShapeOperands(ByteReader &bytes, const CallShape &shape, const int *kinds, int count, KeepsData keeps_data,
                   testing::Placement *operands) {
  const std::vector<int64_t> *dims_of_kind[] = {&shape.dims, &shape.normalized, &shape.stats};
  for (int k = 0; k < count; ++k) {
    operands[k].dims = *dims_of_kind[kinds[k]];
    operands[k].dtype = keeps_data(k) || bytes.Range(0, 3) != 0 ? shape.data : ACL_FLOAT;
  }
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

// Lays a call's `count` operands side by side (0 to 16 bytes apart), mutates each (Mutate), now
// and then the normalized shape too (one longer, or empty), and returns the arena's size.
inline size_t PlaceInArena(ByteReader &bytes, testing::Placement *operands, int count, std::vector<int64_t> *normalized_shape) {
  int64_t next = 0;
  for (int k = 0; k < count; ++k) {
    operands[k].byte_offset = next;
    next = testing::EndOf(operands[k]) + 8 * bytes.Range(0, 2);
  }
  for (int k = 0; k < count; ++k) Mutate(bytes, &operands[k], operands, count);
  if (bytes.Range(0, 15) == 0) normalized_shape->back() += 1;
  if (bytes.Range(0, 31) == 0) normalized_shape->clear();
  for (int k = 0; k < count; ++k) next = std::max(next, testing::EndOf(operands[k]));
  return static_cast<size_t>(next) + 16;
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

// One fuzz input: the kernel choice, then decode(bytes) -> a call spec, run(spec, seed, stream) ->
// its outcome, checked (CheckOutcome).
template <class Decode, class Run>
int FuzzOneCall(const char *target, const uint8_t *data, size_t size, Decode decode, Run run) {
  aclrtStream stream = Stream(target);
  ByteReader bytes(data, size);
  ChooseKernel(bytes);
  const auto spec = decode(bytes);
  CheckOutcome(target, spec, run(spec, 7, stream));
  return 0;
}

}  // namespace fuzz
}  // namespace aclhost
