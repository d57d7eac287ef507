// The plan phase 1 builds for aclnnLayerNormBackward: copies of every descriptor it needs, what
// to do (nothing, zero-fill, compute), and which operands go through workspace staging.
#pragma once

#include <cstdint>

#include "kernels/common/kernel_config.h"
#include "ops/common/staging.h"
#include "ops/layer_norm_backward/layer_norm_backward_check.h"
#include "tensor/tensor.h"

namespace aclhost {

struct LayerNormBackwardPlan {
  enum class Mode { kNothing, kZeroGradWeightAndBias, kCompute };

  Mode mode = Mode::kNothing;
  int64_t rows = 0;
  int64_t cols = 0;
  size_t row_dims = 0;  // how many trailing dims of input make one row
  StagedOperand grad_out, input, mean, rstd, weight;
  StagedOperand grad_input, grad_weight, grad_bias;  // present only when the mask asks
  kernels::KernelConfig kernel_config;  // SIMD target and threads, read at phase 1
  int64_t staged_row_multiple = 1;  // rows the kernel's tiles hold a multiple of
  // gradOut, input and gradInput (when wanted) are all batches of a matrix's columns, alike in
  // their batches' rows: the kernel reads and writes them in that order, no row staging.
  bool in_columns = false;
  uint64_t scratch_offset = 0;  // the kernel's scratch, when it needs any
  bool uses_scratch = false;
  uint64_t workspace_size = 0;
};

LayerNormBackwardPlan MakeLayerNormBackwardPlan(const LayerNormBackwardOperands &operands,
                                                const LayerNormBackwardShape &shape);

// Executes the plan on the calling thread; workspace holds plan.workspace_size bytes.
void RunLayerNormBackwardPlan(const LayerNormBackwardPlan &plan, void *workspace);

}  // namespace aclhost
