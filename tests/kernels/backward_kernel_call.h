// The kernels called directly, as the kernel-level tests do: the backward's arguments from the
// operands' pointers and a run with the scratch it asks for; the forward's arguments.
#pragma once

#include "acl/acl_base.h"
#include "kernels/layer_norm/layer_norm_kernel.h"
#include "kernels/layer_norm_backward/layer_norm_backward_kernel.h"

namespace aclhost {
namespace testing {

// Dense row operands of `type`; mean, rstd and weight float32 (weight may be null: all ones);
// gradWeight and gradBias float32, either may be null when not wanted.
struct BackwardOperands {
  const void *grad_out = nullptr, *input = nullptr;
  const float *mean = nullptr, *rstd = nullptr, *weight = nullptr;
  void *grad_input = nullptr, *grad_weight = nullptr, *grad_bias = nullptr;
};

kernels::LayerNormBackwardArgs BackwardArgs(int64_t rows, int64_t cols, kernels::ElementType type,
                                            const BackwardOperands &operands, const kernels::KernelConfig &config);

// The operator's dtype for a kernel element type.
aclDataType DtypeOf(kernels::ElementType type);

// Runs the kernel on args (no operand staged by rows) with a scratch of the size it asks for.
void RunBackward(kernels::LayerNormBackwardArgs args);

// The forward over dense rows of `type`, in and out, eps 1e-5, a float32 weight and no bias: it
// then needs no scratch (kernels::LayerNormForward runs it as is).
kernels::LayerNormArgs ForwardArgs(int64_t rows, int64_t cols, kernels::ElementType type, const void *input, const float *weight,
                                   void *out, float *mean, float *rstd, kernels::Isa isa);

}  // namespace testing
}  // namespace aclhost
