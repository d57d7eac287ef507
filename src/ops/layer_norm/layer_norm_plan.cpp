#include "ops/layer_norm/layer_norm_plan.h"

#include <algorithm>

#include "common/parallel_for.h"
#include "kernels/layer_norm/layer_norm_kernel.h"

namespace aclhost {
namespace {

uint64_t AlignedBytes(uint64_t bytes) { return (bytes + 63) / 64 * 64; }

// An operand's rows (cols elements each, placed as spacing says) from row `first` on; nullptr
// for an absent one.
char *RowsFrom(const void *rows, const kernels::RowSpacing &spacing, int64_t first, int64_t cols, aclDataType dtype) {
  if (rows == nullptr) return nullptr;
  const int64_t offset = kernels::RowOffsetBytes(spacing, first, cols, ElementTypeOf(dtype));
  return const_cast<char *>(static_cast<const char *>(rows)) + offset;
}

// The kernel over blocks of plan.block_rows rows, the blocks shared among the threads: a block's
// input gathered into its worker's tile (by transpositions or element by element), the kernel on
// the block alone (one thread), its out scattered from the tile while the block is still in
// cache. Rows are independent, so the bits are those of one call over all rows.
void RunInBlocks(const LayerNormPlan &plan, const kernels::LayerNormArgs &args, char *workspace, const StagingRun &staging) {
  const int64_t blocks = (plan.rows + plan.block_rows - 1) / plan.block_rows;
  const uint64_t input_tile = plan.input_tile_bytes, out_tile = plan.out_tile_bytes;
  const int threads = kernels::ThreadsForWork(plan.kernel_config, blocks, plan.rows * plan.cols);
  const kernels::TransposeFar out_far = OutputFar(plan.rows * plan.cols * static_cast<int64_t>(aclDataTypeSize(plan.out.view.dtype)));
  ParallelFor(blocks, threads, [&](int64_t block, int worker) {
    char *const tiles = workspace + plan.blocks_offset + static_cast<uint64_t>(worker) * plan.block_bytes;
    const int64_t begin = block * plan.block_rows, end = std::min(plan.rows, begin + plan.block_rows);
    kernels::LayerNormArgs part = args;
    part.rows = end - begin;
    part.config.threads = 1;
    part.scratch = tiles + input_tile + out_tile;
    if (plan.input.MovedByRows()) {
      GatherOperandRows(plan.input, plan.row_dims, plan.cols, begin, end, tiles, staging.isa);
      part.input = tiles;
      part.input_spacing = kernels::RowSpacing();
    } else {
      part.input = RowsFrom(args.input, args.input_spacing, begin, plan.cols, plan.input.view.dtype);
      part.input_spacing = kernels::RowSpacingFrom(args.input_spacing, begin);
    }
    if (plan.out.MovedByRows()) {
      part.out = tiles + input_tile;
      part.out_spacing = kernels::RowSpacing();
    } else {
      part.out = RowsFrom(args.out, args.out_spacing, begin, plan.cols, plan.out.view.dtype);
      part.out_spacing = kernels::RowSpacingFrom(args.out_spacing, begin);
    }
    part.mean = RowsFrom(args.mean, kernels::RowSpacing(), begin, 1, plan.mean.view.dtype);
    part.rstd = RowsFrom(args.rstd, kernels::RowSpacing(), begin, 1, plan.rstd.view.dtype);
    kernels::LayerNormForward(part);
    if (plan.out.MovedByRows()) {
      ScatterOperandRows(tiles + input_tile, plan.out.view.dtype, plan.out, plan.row_dims, plan.cols, begin, end, out_far,
                         staging.isa);
    }
  });
}

}  // namespace

LayerNormPlan MakeLayerNormPlan(const LayerNormOperands &op, const LayerNormShape &shape) {
  LayerNormPlan plan;
  plan.rows = shape.rows;
  plan.cols = shape.cols;
  plan.eps = op.eps;
  if (shape.rows == 0) return plan;  // nothing to touch
  plan.mode = LayerNormPlan::Mode::kCompute;
  plan.kernel_config = kernels::CurrentKernelConfig();
  WorkspaceLayout layout;
  const bool has_elements = shape.cols > 0;  // empty rows: only the statistics are written
  // input and out row by row in place where their rows are dense and evenly spaced, batch by
  // batch (a slice of wider rows, sequence-first memory), else block by block through tiles; the
  // kernel reads and writes each in its own dtype.
  plan.row_dims = op.normalized_shape->values.size();
  plan.input = PlanRows(has_elements, op.input, plan.row_dims, op.input->view.dtype);
  plan.weight = PlanWhole(has_elements, op.weight, &layout);
  plan.bias = PlanWhole(has_elements, op.bias, &layout);
  plan.out = PlanRows(has_elements, op.out, plan.row_dims, op.out->view.dtype);
  // An empty meanOut or rstdOut is accepted unchecked, as upstream does (StatisticsShape), and
  // has nothing to write: with rows to compute, writing a value a row would land outside it.
  plan.mean = PlanWhole(op.mean != nullptr && op.mean->view.NumElements() > 0, op.mean, &layout);
  plan.rstd = PlanWhole(op.rstd != nullptr && op.rstd->view.NumElements() > 0, op.rstd, &layout);
  const size_t scratch_bytes = kernels::LayerNormForwardScratchBytes(shape.cols, KernelTypeOf(plan.weight), KernelTypeOf(plan.bias));
  if (plan.input.MovedByRows() || plan.out.MovedByRows()) {
    // Block by block: each worker's input and out tiles (whole cache lines of every column of a
    // transposition), then its own kernel scratch.
    const size_t widest = std::max(aclDataTypeSize(op.input->view.dtype), aclDataTypeSize(op.out->view.dtype));
    plan.block_rows = std::min(StagedBlockRows(shape.cols * static_cast<int64_t>(widest)), shape.rows);
    const auto tile_bytes = [&](const StagedOperand &operand) -> uint64_t {
      if (!operand.MovedByRows()) return 0;
      return AlignedBytes(static_cast<uint64_t>(plan.block_rows * shape.cols) * aclDataTypeSize(operand.view.dtype));
    };
    plan.input_tile_bytes = tile_bytes(plan.input);
    plan.out_tile_bytes = tile_bytes(plan.out);
    plan.block_bytes = plan.input_tile_bytes + plan.out_tile_bytes + AlignedBytes(scratch_bytes);
    plan.blocks_offset = layout.Reserve(plan.block_bytes * static_cast<uint64_t>(plan.kernel_config.threads));
  } else {
    plan.uses_scratch = scratch_bytes > 0;
    if (plan.uses_scratch) plan.scratch_offset = layout.Reserve(scratch_bytes);
  }
  plan.workspace_size = layout.size();
  return plan;
}

void RunLayerNormPlan(const LayerNormPlan &plan, void *workspace_memory) {
  if (plan.mode == LayerNormPlan::Mode::kNothing) return;
  char *workspace = static_cast<char *>(workspace_memory);
  const StagingRun staging = StagingFor(plan.rows * plan.cols, plan.kernel_config);
  kernels::LayerNormArgs args;
  args.config = plan.kernel_config;
  args.rows = plan.rows;
  args.cols = plan.cols;
  args.eps = plan.eps;
  args.input_type = ElementTypeOf(plan.input.view.dtype);
  args.weight_type = ElementTypeOf(plan.weight.view.dtype);
  args.bias_type = ElementTypeOf(plan.bias.view.dtype);
  args.out_type = ElementTypeOf(plan.out.view.dtype);
  args.mean_type = ElementTypeOf(plan.mean.view.dtype);
  args.rstd_type = ElementTypeOf(plan.rstd.view.dtype);
  args.input = DenseInput(plan.input, workspace, staging);
  args.weight = DenseInput(plan.weight, workspace, staging);
  args.bias = DenseInput(plan.bias, workspace, staging);
  args.out = DenseOutput(plan.out, workspace);
  args.input_spacing = plan.input.spacing;
  args.out_spacing = plan.out.spacing;
  args.mean = DenseOutput(plan.mean, workspace);
  args.rstd = DenseOutput(plan.rstd, workspace);
  if (plan.block_rows > 0) {
    RunInBlocks(plan, args, workspace, staging);
  } else {
    if (plan.uses_scratch) args.scratch = workspace + plan.scratch_offset;
    kernels::LayerNormForward(args);
  }
  for (const StagedOperand *output : {&plan.out, &plan.mean, &plan.rstd}) {
    PublishOutput(*output, output->view.dtype, workspace, staging);
  }
}

}  // namespace aclhost
