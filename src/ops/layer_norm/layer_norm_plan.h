// The plan phase 1 builds for aclnnLayerNorm: copies of every descriptor it needs, what to do
// (nothing, statistics of empty rows, compute), and which operands go through the workspace.
#pragma once

#include <cstdint>

#include "kernels/common/kernel_config.h"
#include "ops/common/staging.h"
#include "ops/layer_norm/layer_norm_check.h"

namespace aclhost {

struct LayerNormPlan {
  enum class Mode { kNothing, kCompute };

  Mode mode = Mode::kNothing;
  int64_t rows = 0;
  int64_t cols = 0;
  size_t row_dims = 0;  // how many trailing dims of input make one row
  double eps = 0;
  StagedOperand input, weight, bias, out, mean, rstd;
  kernels::KernelConfig kernel_config;  // threads, read at phase 1
  uint64_t scratch_offset = 0;          // the kernel's scratch, when it needs any
  bool uses_scratch = false;
  // input or out moved by rows (MovedByRows): the kernel runs block by block of block_rows rows,
  // each worker with its input tile, its out tile (0 bytes for an operand not moved so) and its
  // kernel scratch, block_bytes in all, at blocks_offset + worker * block_bytes.
  int64_t block_rows = 0;
  uint64_t input_tile_bytes = 0, out_tile_bytes = 0;
  uint64_t blocks_offset = 0, block_bytes = 0;
  uint64_t workspace_size = 0;
};

LayerNormPlan MakeLayerNormPlan(const LayerNormOperands &operands, const LayerNormShape &shape);

// Executes the plan on the calling thread; workspace holds plan.workspace_size bytes.
void RunLayerNormPlan(const LayerNormPlan &plan, void *workspace);

}  // namespace aclhost
