#include "arena_call.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "dtype_codec.h"
#include "layer_norm_backward_reference.h"
#include "tolerance.h"

namespace aclhost {
namespace testing {
namespace {

constexpr uint8_t kSentinel = 0x5A;

int64_t ElementSize(const Placement &placement) { return static_cast<int64_t>(aclDataTypeSize(placement.dtype)); }

int64_t CountOf(const std::vector<int64_t> &dims) {
  int64_t count = 1;
  for (const int64_t dim : dims) count *= dim;
  return count;
}

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

std::vector<double> ReadView(const Placement &placement, const uint8_t *arena) {
  std::vector<double> values;
  for (const int64_t at : ByteOffsets(placement)) values.push_back(DecodeAt(placement.dtype, arena + at, 0));
  return values;
}

void WriteView(const Placement &placement, const std::vector<double> &values, uint8_t *arena) {
  const std::vector<int64_t> offsets = ByteOffsets(placement);
  for (size_t i = 0; i < offsets.size(); ++i) EncodeInto(placement.dtype, {values[i]}, arena + offsets[i]);
}

// The descriptors of one call; destroyed with it.
class Descriptors {
 public:
  Descriptors(const ArenaCallSpec &spec, uint8_t *arena) {
    for (int k = 0; k < kOperandCount; ++k) {
      const Placement &placement = spec.operands[k];
      if (!placement.present) continue;
      const std::vector<int64_t> strides = StridesOf(placement);
      // The storage is everything from the data address to the arena's end.
      const int64_t element_size = ElementSize(placement);
      const int64_t storage_elements =
          element_size > 0 ? (static_cast<int64_t>(spec.arena_bytes) - placement.byte_offset) / element_size : 0;
      const int64_t storage_dims[] = {std::max<int64_t>(storage_elements, 0)};
      tensors_[k] = aclCreateTensor(placement.dims.data(), placement.dims.size(), placement.dtype, strides.data(),
                                    placement.view_offset, ACL_FORMAT_ND, storage_dims, 1,
                                    placement.null_data ? nullptr : arena + placement.byte_offset);
      if (tensors_[k] == nullptr) complete_ = false;
    }
    normalized_shape_ = aclCreateIntArray(spec.normalized_shape.data(), spec.normalized_shape.size());
    mask_ = aclCreateBoolArray(spec.mask, 3);
  }
  ~Descriptors() {
    for (aclTensor *tensor : tensors_) aclDestroyTensor(tensor);
    aclDestroyIntArray(normalized_shape_);
    aclDestroyBoolArray(mask_);
  }
  Descriptors(const Descriptors &) = delete;
  Descriptors &operator=(const Descriptors &) = delete;

  bool complete() const { return complete_; }
  aclnnStatus GetWorkspaceSize(uint64_t *workspace_size, aclOpExecutor **executor) const {
    return aclnnLayerNormBackwardGetWorkspaceSize(tensors_[kGradOut], tensors_[kInput], normalized_shape_,
                                                  tensors_[kMean], tensors_[kRstd], tensors_[kWeight],
                                                  tensors_[kBias], mask_, tensors_[kGradInput],
                                                  tensors_[kGradWeight], tensors_[kGradBias], workspace_size, executor);
  }

 private:
  aclTensor *tensors_[kOperandCount] = {};
  aclIntArray *normalized_shape_ = nullptr;
  aclBoolArray *mask_ = nullptr;
  bool complete_ = true;
};

std::string TakeMessage() {
  const char *message = aclGetRecentErrMsg();
  return message != nullptr ? message : "";
}

// Random values for every input the call can read, written in operand order (an aliased byte
// keeps the last write), and rstd kept positive as a forward pass leaves it.
void FillInputs(const ArenaCallSpec &spec, uint64_t seed, uint8_t *arena) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const int k : {kGradOut, kInput, kMean, kRstd, kWeight, kBias}) {
    const Placement &placement = spec.operands[k];
    if (!placement.present || placement.null_data) continue;
    std::vector<double> values(static_cast<size_t>(CountOf(placement.dims)));
    for (double &value : values) value = k == kRstd ? 0.5 + std::fabs(normal(random)) : normal(random);
    if (!values.empty()) values[0] = 0.75;  // never all zeros
    WriteView(placement, values, arena);
  }
}

// Checks an accepted call's outputs against the reference computed from the inputs as they were.
bool ResultsMatch(const ArenaCallSpec &spec, const std::vector<double> (&inputs)[kOperandCount],
                  const uint8_t *arena, std::string *failure) {
  const Placement &input = spec.operands[kInput];
  const size_t begin = input.dims.size() - spec.normalized_shape.size();
  const int64_t rows = CountOf(std::vector<int64_t>(input.dims.begin(), input.dims.begin() + begin));
  const int64_t cols = CountOf(spec.normalized_shape);
  if (!spec.mask[0] && !spec.mask[1] && !spec.mask[2]) return true;  // nothing computed, nothing to compare
  const bool has_weight = spec.operands[kWeight].present;
  const size_t elements = static_cast<size_t>(rows * cols);
  if (elements == 0) {  // nothing read; gradWeight and gradBias are zeros when there are no rows
    const std::vector<double> zeros(static_cast<size_t>(cols), 0.0);
    for (int k = 1; k < 3; ++k) {
      if (spec.mask[k] && ReadView(spec.operands[kGradInput + k], arena) != zeros) {
        *failure = std::string(OperandName(kGradInput + k)) + " is not all zeros for an empty input";
        return false;
      }
    }
    return true;
  }
  if (inputs[kGradOut].size() != elements || inputs[kInput].size() != elements ||
      inputs[kMean].size() != static_cast<size_t>(rows) || inputs[kRstd].size() != static_cast<size_t>(rows) ||
      (has_weight && inputs[kWeight].size() != static_cast<size_t>(cols))) {
    *failure = "the call was accepted although an input it reads has no data or another element count";
    return false;
  }
  // Inputs written over each other in different dtypes read back as arbitrary bits: NaN, Inf or
  // 1e38, where float32 and long double legitimately part ways. Only the bytes are judged then.
  for (const int k : {kGradOut, kInput, kMean, kRstd, kWeight}) {
    for (const double value : inputs[k]) {
      if (!(std::fabs(value) <= 1e4)) return true;
    }
  }
  const reference::LayerNormBackwardResult want = reference::LayerNormBackward(
      inputs[kGradOut], inputs[kInput], inputs[kMean], inputs[kRstd],
      has_weight ? inputs[kWeight] : std::vector<double>{}, rows, cols);
  const std::vector<double> *expected[] = {&want.grad_input, &want.grad_weight, &want.grad_bias};
  // So are results beyond what FLOAT16 holds comfortably (they overflow there by right).
  for (const std::vector<double> *values : expected) {
    for (const double value : *values) {
      if (!(std::fabs(value) <= 1e4)) return true;
    }
  }
  const std::vector<double> *magnitude[] = {&want.grad_input_magnitude, &want.grad_weight_magnitude,
                                            &want.grad_bias_magnitude};
  for (int k = 0; k < 3; ++k) {
    if (!spec.mask[k]) continue;
    const Placement &output = spec.operands[kGradInput + k];
    // gradInput is rounded to input's dtype inside the kernel's arithmetic, then to its own.
    const ErrorSummary error = CompareThrough(ReadView(output, arena), *expected[k], *magnitude[k],
                                              k == 0 ? input.dtype : output.dtype, output.dtype);
    if (!error.Passed()) {
      *failure = std::string(OperandName(kGradInput + k)) + " differs from the reference: worst " +
                 std::to_string(error.worst_ratio) + " of tolerance at element " + std::to_string(error.worst_index);
      return false;
    }
  }
  return true;
}

}  // namespace

const char *OperandName(int operand) {
  static const char *const kNames[kOperandCount] = {"gradOut",        "input",        "mean",
                                                    "rstd",           "weightOptional", "biasOptional",
                                                    "gradInputOut",   "gradWeightOut",  "gradBiasOut"};
  return operand >= 0 && operand < kOperandCount ? kNames[operand] : "?";
}

std::string Describe(const ArenaCallSpec &spec) {
  auto list = [](const std::vector<int64_t> &values) {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
    return text + "]";
  };
  std::string text;
  for (int k = 0; k < kOperandCount; ++k) {
    const Placement &p = spec.operands[k];
    text += std::string(OperandName(k)) + ": ";
    if (!p.present) {
      text += "absent\n";
      continue;
    }
    text += "dtype " + std::to_string(p.dtype) + " dims " + list(p.dims) + " strides " + list(StridesOf(p)) +
            " view_offset " + std::to_string(p.view_offset) + " byte_offset " + std::to_string(p.byte_offset) +
            (p.null_data ? " NULL data" : "") + "\n";
  }
  return text + "normalizedShape " + list(spec.normalized_shape) + " mask " + std::to_string(spec.mask[0]) +
         std::to_string(spec.mask[1]) + std::to_string(spec.mask[2]) + " arena " + std::to_string(spec.arena_bytes) +
         " bytes\n";
}

int64_t EndOf(const ArenaCallSpec &spec, int operand) {
  const Placement &placement = spec.operands[operand];
  const int64_t size = ElementSize(placement);
  int64_t end = placement.byte_offset;
  for (const int64_t at : ByteOffsets(placement)) end = std::max(end, at + size);
  return (end + 7) / 8 * 8;  // aligned for any element type
}

ArenaCallSpec SeparateOperands(int64_t rows, int64_t cols) {
  ArenaCallSpec spec;
  const std::vector<int64_t> matrix{rows, cols}, stats{rows, 1}, vector{cols};
  const std::vector<int64_t> *dims[kOperandCount] = {&matrix, &matrix, &stats,  &stats, &vector,
                                                     &vector, &matrix, &vector, &vector};
  int64_t next = 0;
  for (int k = 0; k < kOperandCount; ++k) {
    spec.operands[k].dims = *dims[k];
    spec.operands[k].byte_offset = next;
    next = EndOf(spec, k);
  }
  spec.normalized_shape = {cols};
  spec.arena_bytes = static_cast<size_t>(next);
  return spec;
}

ArenaOutcome RunArenaCall(const ArenaCallSpec &spec, uint64_t seed, aclrtStream stream) {
  ArenaOutcome outcome;
  void *memory = nullptr;
  if (aclrtMalloc(&memory, std::max<size_t>(spec.arena_bytes, 1), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    outcome.described = false;
    outcome.failure = "aclrtMalloc of the arena failed: " + TakeMessage();
    return outcome;
  }
  uint8_t *arena = static_cast<uint8_t *>(memory);
  std::memset(arena, kSentinel, spec.arena_bytes);
  {
    Descriptors descriptors(spec, arena);
    if (!descriptors.complete()) {
      outcome.described = false;
      outcome.message = TakeMessage();
    } else {
      FillInputs(spec, seed, arena);
      std::vector<double> inputs[kOperandCount];
      for (const int k : {kGradOut, kInput, kMean, kRstd, kWeight}) {
        if (spec.operands[k].present && !spec.operands[k].null_data) inputs[k] = ReadView(spec.operands[k], arena);
      }
      const std::vector<uint8_t> before(arena, arena + spec.arena_bytes);
      uint64_t workspace_size = 12345;
      aclOpExecutor *const kUntouched = reinterpret_cast<aclOpExecutor *>(uintptr_t{0x1234});
      aclOpExecutor *executor = kUntouched;
      outcome.phase1 = descriptors.GetWorkspaceSize(&workspace_size, &executor);
      if (outcome.phase1 != ACLNN_SUCCESS) {
        outcome.message = TakeMessage();
        outcome.handles_untouched = workspace_size == 12345 && executor == kUntouched;
        outcome.arena_intact = std::equal(before.begin(), before.end(), arena);
        if (!outcome.arena_intact) outcome.failure = "a rejected call changed the arena";
        if (!outcome.handles_untouched) outcome.failure = "a rejected call wrote *workspaceSize or *executor";
      } else {
        void *workspace = nullptr;
        if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
        outcome.phase2 = aclnnLayerNormBackward(workspace, workspace_size, executor, stream);
        outcome.synchronize = aclrtSynchronizeStream(stream);
        if (workspace != nullptr) aclrtFree(workspace);
        if (outcome.phase2 != ACLNN_SUCCESS || outcome.synchronize != ACL_SUCCESS) {
          outcome.message = TakeMessage();
          outcome.failure = "phase 2 or the synchronisation failed after phase 1 succeeded: " + outcome.message;
        }
        std::vector<bool> writable(spec.arena_bytes, false);
        for (int k = 0; k < 3; ++k) {
          if (!spec.mask[k]) continue;
          const Placement &output = spec.operands[kGradInput + k];
          for (const int64_t at : ByteOffsets(output)) {
            for (int64_t b = 0; b < ElementSize(output); ++b) writable[static_cast<size_t>(at + b)] = true;
          }
        }
        for (size_t i = 0; i < spec.arena_bytes && outcome.arena_intact; ++i) {
          outcome.arena_intact = writable[i] || arena[i] == before[i];
          if (!outcome.arena_intact) outcome.failure = "byte " + std::to_string(i) + " outside the outputs changed";
        }
        if (outcome.failure.empty()) outcome.results_match = ResultsMatch(spec, inputs, arena, &outcome.failure);
      }
    }
  }
  aclrtFree(memory);
  return outcome;
}

}  // namespace testing
}  // namespace aclhost
