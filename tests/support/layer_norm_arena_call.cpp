#include "layer_norm_arena_call.h"

#include <cmath>
#include <random>

#include "aclnnop/aclnn_layer_norm.h"
#include "layer_norm_reference.h"
#include "tolerance.h"

namespace aclhost {
namespace testing {
namespace {

// An accepted call's outputs against the reference computed from the inputs as they were.
bool ResultsMatch(const ForwardArenaSpec &spec, const std::vector<double> (&inputs)[kForwardOperandCount],
                  const uint8_t *arena, std::string *failure) {
  const Placement &input = spec.operands[kForwardInput];
  const size_t begin = input.dims.size() - spec.normalized_shape.size();
  const int64_t rows = CountOf(std::vector<int64_t>(input.dims.begin(), input.dims.begin() + static_cast<std::ptrdiff_t>(begin)));
  const int64_t cols = CountOf(spec.normalized_shape);
  const Placement &mean = spec.operands[kForwardMean], &rstd = spec.operands[kForwardRstd];
  const bool has_mean = mean.present && !mean.null_data && CountOf(mean.dims) > 0;
  const bool has_rstd = rstd.present && !rstd.null_data && CountOf(rstd.dims) > 0;
  if (rows == 0) return true;  // nothing is written
  if (cols == 0) {             // the spec's rows of nothing: mean 0, rstd NaN
    for (const double value : has_mean ? ReadView(mean, arena) : std::vector<double>{}) {
      if (value != 0.0) *failure = "meanOut is not 0 for empty rows";
    }
    for (const double value : has_rstd ? ReadView(rstd, arena) : std::vector<double>{}) {
      if (!std::isnan(value)) *failure = "rstdOut is not NaN for empty rows";
    }
    return failure->empty();
  }
  // Inputs aliased across dtypes, or results (or a rstd that eps made infinite), beyond
  // AllModerate: only the bytes are judged.
  for (const int k : {kForwardInput, kForwardWeight, kForwardBias}) {
    if (!AllModerate(inputs[k])) return true;
  }
  const reference::LayerNormResult want =
      reference::LayerNorm(inputs[kForwardInput], inputs[kForwardWeight], inputs[kForwardBias], rows, cols, spec.eps);
  if (!AllModerate(want.out) || !AllModerate(want.mean) || !AllModerate(want.rstd)) return true;
  struct Checked {
    int operand;
    const std::vector<double> *want, *magnitude;
  };
  const std::vector<double> no_magnitude(want.rstd.size(), 0.0);
  const Checked checked[] = {{kForwardOut, &want.out, &want.out_magnitude},
                             {kForwardMean, &want.mean, &want.mean_magnitude},
                             {kForwardRstd, &want.rstd, &no_magnitude}};
  for (const Checked &c : checked) {
    const Placement &output = spec.operands[c.operand];
    if (!output.present || output.null_data || CountOf(output.dims) == 0) continue;
    const ErrorSummary error = Compare(ReadView(output, arena), *c.want, *c.magnitude, output.dtype);
    if (!error.Passed()) {
      *failure = error.Describe(ForwardOperandName(c.operand));
      return false;
    }
  }
  return true;
}

}  // namespace

const char *ForwardOperandName(int operand) {
  static const char *const kNames[kForwardOperandCount] = {"input", "weightOptional", "biasOptional",
                                                           "out",   "meanOutOptional", "rstdOutOptional"};
  return operand >= 0 && operand < kForwardOperandCount ? kNames[operand] : "?";
}

std::string Describe(const ForwardArenaSpec &spec) {
  std::string text;
  for (int k = 0; k < kForwardOperandCount; ++k) text += DescribePlacement(ForwardOperandName(k), spec.operands[k]);
  return text + "normalizedShape " + DescribeDims(spec.normalized_shape) + " eps " + std::to_string(spec.eps) +
         " implMode " + std::to_string(spec.impl_mode) + " arena " + std::to_string(spec.arena_bytes) + " bytes\n";
}

ArenaOutcome RunForwardArenaCall(const ForwardArenaSpec &spec, uint64_t seed, aclrtStream stream) {
  ArenaTensors<kForwardOperandCount> t(spec.operands, spec.normalized_shape, spec.arena_bytes);
  std::vector<double> inputs[kForwardOperandCount];
  ArenaCall call;
  call.describe = [&](uint8_t *arena) { return t.Create(arena); };
  call.fill = [&](uint8_t *arena) {
    // Written in operand order (an aliased byte keeps the last write), then read back as they are.
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    const int filled[] = {kForwardInput, kForwardWeight, kForwardBias};
    for (const int k : filled) {
      const Placement &placement = spec.operands[k];
      if (!placement.present || placement.null_data) continue;
      std::vector<double> values(static_cast<size_t>(CountOf(placement.dims)));
      for (double &value : values) value = normal(random);
      if (!values.empty()) values[0] = 0.75;  // never all zeros
      WriteView(placement, values, arena);
    }
    for (const int k : filled) {
      if (spec.operands[k].present && !spec.operands[k].null_data) inputs[k] = ReadView(spec.operands[k], arena);
    }
  };
  call.phase1 = [&](uint64_t *workspace_size, aclOpExecutor **executor) {
    if (spec.impl_mode < 0) {
      return aclnnLayerNormGetWorkspaceSize(t[kForwardInput], t.normalized_shape(), t[kForwardWeight], t[kForwardBias],
                                            spec.eps, t[kForwardOut], t[kForwardMean], t[kForwardRstd], workspace_size,
                                            executor);
    }
    return aclnnLayerNormWithImplModeGetWorkspaceSize(t[kForwardInput], t.normalized_shape(), t[kForwardWeight],
                                                      t[kForwardBias], spec.eps, t[kForwardOut], t[kForwardMean],
                                                      t[kForwardRstd], spec.impl_mode, workspace_size, executor);
  };
  call.phase2 = spec.impl_mode < 0 ? aclnnLayerNorm : aclnnLayerNormWithImplMode;
  for (const int k : {kForwardOut, kForwardMean, kForwardRstd}) {
    if (spec.operands[k].present) call.outputs.push_back(spec.operands[k]);
  }
  call.check = [&](const uint8_t *arena, std::string *failure) { return ResultsMatch(spec, inputs, arena, failure); };
  return RunInArena(spec.arena_bytes, call, stream);
}

}  // namespace testing
}  // namespace aclhost
