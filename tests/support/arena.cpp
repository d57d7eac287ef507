#include "arena.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "aclnn/opdev/op_errno.h"
#include "dtype_codec.h"

namespace aclhost {
namespace testing {
namespace {

constexpr uint8_t kSentinel = 0x5A;

int64_t ElementSize(const Placement &placement) { return static_cast<int64_t>(aclDataTypeSize(placement.dtype)); }

std::vector<int64_t> StridesOf(const Placement &placement) {
  if (!placement.strides.empty()) return placement.strides;
  std::vector<int64_t> strides(placement.dims.size());
  int64_t running = 1;
  for (size_t d = placement.dims.size(); d-- > 0;) {
    strides[d] = running;
    running *= std::max<int64_t>(placement.dims[d], 1);
  }
  return strides;
}

// Arena byte offset of every element of the view, in row-major index order.
std::vector<int64_t> ByteOffsets(const Placement &placement) {
  const std::vector<int64_t> strides = StridesOf(placement);
  const int64_t count = CountOf(placement.dims);
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(std::max<int64_t>(count, 0)));
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat, element = placement.view_offset;
    for (size_t d = placement.dims.size(); d-- > 0;) {
      element += (rest % placement.dims[d]) * strides[d];
      rest /= placement.dims[d];
    }
    offsets.push_back(placement.byte_offset + element * ElementSize(placement));
  }
  return offsets;
}

std::string TakeMessage() {
  const char *message = aclGetRecentErrMsg();
  return message != nullptr ? message : "";
}

}  // namespace

int64_t CountOf(const std::vector<int64_t> &dims) {
  int64_t count = 1;
  for (const int64_t dim : dims) count *= dim;
  return count;
}

std::vector<double> ReadView(const Placement &placement, const uint8_t *arena) {
  std::vector<double> values;
  for (const int64_t at : ByteOffsets(placement)) values.push_back(DecodeAt(placement.dtype, arena + at, 0));
  return values;
}

void WriteView(const Placement &placement, const std::vector<double> &values, uint8_t *arena) {
  const std::vector<int64_t> offsets = ByteOffsets(placement);
  for (size_t i = 0; i < offsets.size(); ++i) EncodeInto(placement.dtype, {values[i]}, arena + offsets[i]);
}

bool AllModerate(const std::vector<double> &values) {
  for (const double value : values) {
    if (!(std::fabs(value) <= 1e4)) return false;
  }
  return true;
}

int64_t EndOf(const Placement &placement) {
  const int64_t size = ElementSize(placement);
  int64_t end = placement.byte_offset;
  for (const int64_t at : ByteOffsets(placement)) end = std::max(end, at + size);
  return (end + 7) / 8 * 8;  // aligned for any element type
}

std::string DescribeDims(const std::vector<int64_t> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text + "]";
}

std::string DescribePlacement(const char *name, const Placement &p) {
  if (!p.present) return std::string(name) + ": absent\n";
  return std::string(name) + ": dtype " + std::to_string(p.dtype) + " dims " + DescribeDims(p.dims) + " strides " +
         DescribeDims(StridesOf(p)) + " view_offset " + std::to_string(p.view_offset) + " byte_offset " +
         std::to_string(p.byte_offset) + (p.null_data ? " NULL data" : "") + "\n";
}

aclTensor *CreateTensorOver(const Placement &placement, uint8_t *arena, size_t arena_bytes) {
  if (!placement.present) return nullptr;
  const std::vector<int64_t> strides = StridesOf(placement);
  const int64_t element_size = ElementSize(placement);
  const int64_t storage_elements =
      element_size > 0 ? (static_cast<int64_t>(arena_bytes) - placement.byte_offset) / element_size : 0;
  const int64_t storage_dims[] = {std::max<int64_t>(storage_elements, 0)};
  return aclCreateTensor(placement.dims.data(), placement.dims.size(), placement.dtype, strides.data(),
                         placement.view_offset, ACL_FORMAT_ND, storage_dims, 1,
                         placement.null_data ? nullptr : arena + placement.byte_offset);
}

ArenaOutcome RunInArena(size_t arena_bytes, const ArenaCall &call, aclrtStream stream) {
  ArenaOutcome outcome;
  void *memory = nullptr;
  if (aclrtMalloc(&memory, std::max<size_t>(arena_bytes, 1), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    outcome.described = false;
    outcome.failure = "aclrtMalloc of the arena failed: " + TakeMessage();
    return outcome;
  }
  uint8_t *arena = static_cast<uint8_t *>(memory);
  std::memset(arena, kSentinel, arena_bytes);
  if (!call.describe(arena)) {
    outcome.described = false;
    outcome.message = TakeMessage();
    aclrtFree(memory);
    return outcome;
  }
  call.fill(arena);
  const std::vector<uint8_t> before(arena, arena + arena_bytes);
  uint64_t workspace_size = 12345;
  aclOpExecutor *const kUntouched = reinterpret_cast<aclOpExecutor *>(uintptr_t{0x1234});
  aclOpExecutor *executor = kUntouched;
  outcome.phase1 = call.phase1(&workspace_size, &executor);
  if (outcome.phase1 != ACLNN_SUCCESS) {
    outcome.message = TakeMessage();
    outcome.handles_untouched = workspace_size == 12345 && executor == kUntouched;
    outcome.arena_intact = std::equal(before.begin(), before.end(), arena);
    if (!outcome.arena_intact) outcome.failure = "a rejected call changed the arena";
    if (!outcome.handles_untouched) outcome.failure = "a rejected call wrote *workspaceSize or *executor";
  } else {
    void *workspace = nullptr;
    if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
    outcome.phase2 = call.phase2(workspace, workspace_size, executor, stream);
    outcome.synchronize = aclrtSynchronizeStream(stream);
    if (workspace != nullptr) aclrtFree(workspace);
    if (outcome.phase2 != ACLNN_SUCCESS || outcome.synchronize != ACL_SUCCESS) {
      outcome.message = TakeMessage();
      outcome.failure = "phase 2 or the synchronisation failed after phase 1 succeeded: " + outcome.message;
    }
    std::vector<bool> writable(arena_bytes, false);
    for (const Placement &output : call.outputs) {
      for (const int64_t at : ByteOffsets(output)) {
        for (int64_t b = 0; b < ElementSize(output); ++b) writable[static_cast<size_t>(at + b)] = true;
      }
    }
    for (size_t i = 0; i < arena_bytes && outcome.arena_intact; ++i) {
      outcome.arena_intact = writable[i] || arena[i] == before[i];
      if (!outcome.arena_intact) outcome.failure = "byte " + std::to_string(i) + " outside the outputs changed";
    }
    if (outcome.failure.empty()) outcome.results_match = call.check(arena, &outcome.failure);
  }
  aclrtFree(memory);
  return outcome;
}

}  // namespace testing
}  // namespace aclhost
