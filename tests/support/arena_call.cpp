#include "arena_call.h"

#include <cmath>
#include <random>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "dtype_codec.h"
#include "layer_norm_backward_reference.h"
#include "tolerance.h"

namespace aclhost {
namespace testing {
namespace {

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
  // Inputs aliased across dtypes, or results, beyond AllModerate: only the bytes are judged.
  for (const int k : {kGradOut, kInput, kMean, kRstd, kWeight}) {
    if (!AllModerate(inputs[k])) return true;
  }
  const reference::LayerNormBackwardResult want = reference::LayerNormBackward(
      inputs[kGradOut], inputs[kInput], inputs[kMean], inputs[kRstd],
      has_weight ? inputs[kWeight] : std::vector<double>{}, rows, cols);
  const std::vector<double> *expected[] = {&want.grad_input, &want.grad_weight, &want.grad_bias};
  for (const std::vector<double> *values : expected) {
    if (!AllModerate(*values)) return true;
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
      *failure = error.Describe(OperandName(kGradInput + k));
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
  std::string text;
  for (int k = 0; k < kOperandCount; ++k) text += DescribePlacement(OperandName(k), spec.operands[k]);
  return text + "normalizedShape " + DescribeDims(spec.normalized_shape) + " mask " + std::to_string(spec.mask[0]) +
         std::to_string(spec.mask[1]) + std::to_string(spec.mask[2]) + " arena " + std::to_string(spec.arena_bytes) +
         " bytes\n";
}

int64_t EndOf(const ArenaCallSpec &spec, int operand) { return EndOf(spec.operands[operand]); }

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
  ArenaTensors<kOperandCount> tensors(spec.operands, spec.normalized_shape, spec.arena_bytes);
  aclBoolArray *const mask = aclCreateBoolArray(spec.mask, 3);
  std::vector<double> inputs[kOperandCount];
  ArenaCall call;
  call.describe = [&](uint8_t *arena) { return tensors.Create(arena); };
  call.fill = [&](uint8_t *arena) {
    FillInputs(spec, seed, arena);
    for (const int k : {kGradOut, kInput, kMean, kRstd, kWeight}) {
      if (spec.operands[k].present && !spec.operands[k].null_data) inputs[k] = ReadView(spec.operands[k], arena);
    }
  };
  call.phase1 = [&](uint64_t *workspace_size, aclOpExecutor **executor) {
    return aclnnLayerNormBackwardGetWorkspaceSize(tensors[kGradOut], tensors[kInput], tensors.normalized_shape(), tensors[kMean],
                                                  tensors[kRstd], tensors[kWeight], tensors[kBias], mask, tensors[kGradInput],
                                                  tensors[kGradWeight], tensors[kGradBias], workspace_size, executor);
  };
  call.phase2 = aclnnLayerNormBackward;
  for (int k = 0; k < 3; ++k) {
    if (spec.mask[k]) call.outputs.push_back(spec.operands[kGradInput + k]);
  }
  call.check = [&](const uint8_t *arena, std::string *failure) { return ResultsMatch(spec, inputs, arena, failure); };
  const ArenaOutcome outcome = RunInArena(spec.arena_bytes, call, stream);
  aclDestroyBoolArray(mask);
  return outcome;
}

}  // namespace testing
}  // namespace aclhost
