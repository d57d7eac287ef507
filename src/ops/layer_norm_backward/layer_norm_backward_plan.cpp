#include "ops/layer_norm_backward/layer_norm_backward_plan.h"

#include <algorithm>

#include "kernels/common/transpose.h"
#include "kernels/layer_norm_backward/layer_norm_backward_kernel.h"
#include "tensor/view_copy.h"

namespace aclhost {
namespace {

// A transposition moves rows best a cache line of each column at a time.
int64_t RowsAtOnce(const StagedOperand &operand) {
  constexpr int64_t kCacheLine = 64;
  return operand.staging == StagedOperand::Staging::kTransposedRows
             ? kCacheLine / static_cast<int64_t>(aclDataTypeSize(operand.view.dtype))
             : 1;
}

// What the kernel's row staging calls back: the operand, how many trailing dims make a row (cols
// elements), the dtype of the dense rows, the SIMD target for transpositions and, for an output,
// how its transpositions write it (streamed when it is larger than the caches).
struct RowMover {
  const StagedOperand *operand;
  size_t row_dims;
  int64_t cols;
  aclDataType dense_dtype;
  kernels::Isa isa;
  kernels::TransposeFar far_destination = kernels::TransposeFar::kDestination;
};

void GatherRowsOf(const void *context, int64_t row_begin, int64_t row_end, void *dense) {
  const RowMover &mover = *static_cast<const RowMover *>(context);
  GatherOperandRows(*mover.operand, mover.row_dims, mover.cols, row_begin, row_end, dense, mover.isa);
}

void ScatterRowsOf(const void *context, int64_t row_begin, int64_t row_end, void *dense) {
  const RowMover &mover = *static_cast<const RowMover *>(context);
  ScatterOperandRows(dense, mover.dense_dtype, *mover.operand, mover.row_dims, mover.cols, row_begin, row_end,
                     mover.far_destination, mover.isa);
}

// Whether the kernel can read and write the row operands in their columns' order: gradOut, input
// and gradInput (when wanted) all transposed rows, in batches of the same number of rows.
bool AllInColumns(const LayerNormBackwardPlan &plan) {
  auto transposed = [](const StagedOperand &operand) { return operand.staging == StagedOperand::Staging::kTransposedRows; };
  const int64_t batch_rows = plan.input.batches.batch_rows;
  auto alike = [&](const StagedOperand &operand) { return transposed(operand) && operand.batches.batch_rows == batch_rows; };
  return transposed(plan.input) && alike(plan.grad_out) && (!plan.grad_input.present || alike(plan.grad_input));
}

kernels::ColumnLayout ColumnLayoutOf(const StagedOperand &operand) {
  if (!operand.present) return {};
  return {operand.batches.batch_rows, operand.batches.batch_stride, operand.batches.col_stride};
}

}  // namespace

LayerNormBackwardPlan MakeLayerNormBackwardPlan(const LayerNormBackwardOperands &op,
                                                const LayerNormBackwardShape &shape) {
  LayerNormBackwardPlan plan;
  plan.rows = shape.rows;
  plan.cols = shape.cols;
  const bool any_output = shape.want_grad_input || shape.want_grad_weight || shape.want_grad_bias;
  if (!any_output || (shape.rows > 0 && shape.cols == 0)) return plan;  // nothing to touch

  if (shape.rows == 0) {
    // No rows: the column sums are empty sums.
    plan.mode = LayerNormBackwardPlan::Mode::kZeroGradWeightAndBias;
    plan.grad_weight = Describe(shape.want_grad_weight, op.grad_weight);
    plan.grad_bias = Describe(shape.want_grad_bias, op.grad_bias);
    return plan;
  }

  plan.mode = LayerNormBackwardPlan::Mode::kCompute;
  plan.kernel_config = kernels::CurrentKernelConfig();
  WorkspaceLayout layout;
  plan.row_dims = op.normalized_shape->values.size();
  const aclDataType data_dtype = op.input->view.dtype;
  // gradOut, input and gradInput in place where their rows allow, else through the kernel's tiles.
  plan.grad_out = PlanRows(true, op.grad_out, plan.row_dims, data_dtype);
  plan.input = PlanRows(true, op.input, plan.row_dims, data_dtype);
  plan.mean = PlanWhole(true, op.mean, &layout);
  plan.rstd = PlanWhole(true, op.rstd, &layout);
  plan.weight = PlanWhole(true, op.weight, &layout);
  // gradInput is rounded to input's dtype first, then converted (upstream's precision path).
  plan.grad_input = PlanRows(shape.want_grad_input, op.grad_input, plan.row_dims, data_dtype);
  plan.grad_weight = PlanWhole(shape.want_grad_weight, op.grad_weight, &layout);
  plan.grad_bias = PlanWhole(shape.want_grad_bias, op.grad_bias, &layout);
  const bool column_sums = shape.want_grad_weight || shape.want_grad_bias;
  plan.in_columns = AllInColumns(plan);
  const bool staged_rows =
      !plan.in_columns && (plan.grad_out.MovedByRows() || plan.input.MovedByRows() || plan.grad_input.MovedByRows());
  plan.staged_row_multiple = std::max({RowsAtOnce(plan.grad_out), RowsAtOnce(plan.input), RowsAtOnce(plan.grad_input)});
  const size_t scratch_bytes = kernels::LayerNormBackwardScratchBytes(shape.rows, shape.cols, ElementTypeOf(data_dtype),
                                                                      KernelTypeOf(plan.weight), column_sums,
                                                                      staged_rows ? plan.staged_row_multiple : 0,
                                                                      plan.in_columns, plan.kernel_config);
  plan.uses_scratch = scratch_bytes > 0;
  if (plan.uses_scratch) plan.scratch_offset = layout.Reserve(scratch_bytes);
  plan.workspace_size = layout.size();
  return plan;
}

void RunLayerNormBackwardPlan(const LayerNormBackwardPlan &plan, void *workspace_memory) {
  char *workspace = static_cast<char *>(workspace_memory);
  switch (plan.mode) {
    case LayerNormBackwardPlan::Mode::kNothing: return;
    case LayerNormBackwardPlan::Mode::kZeroGradWeightAndBias:
      if (plan.grad_weight.present) FillZero(plan.grad_weight.view);
      if (plan.grad_bias.present) FillZero(plan.grad_bias.view);
      return;
    case LayerNormBackwardPlan::Mode::kCompute: break;
  }
  const aclDataType data_dtype = plan.input.view.dtype;
  const StagingRun staging = StagingFor(plan.rows * plan.cols, plan.kernel_config);
  kernels::LayerNormBackwardArgs args;
  args.config = plan.kernel_config;
  args.rows = plan.rows;
  args.cols = plan.cols;
  args.data_type = ElementTypeOf(data_dtype);
  args.mean_type = ElementTypeOf(plan.mean.view.dtype);
  args.rstd_type = ElementTypeOf(plan.rstd.view.dtype);
  args.weight_type = ElementTypeOf(plan.weight.view.dtype);
  args.grad_weight_type = ElementTypeOf(plan.grad_weight.view.dtype);
  args.grad_bias_type = ElementTypeOf(plan.grad_bias.view.dtype);
  args.grad_out = DenseInput(plan.grad_out, workspace, staging);
  args.input = DenseInput(plan.input, workspace, staging);
  args.mean = DenseInput(plan.mean, workspace, staging);
  args.rstd = DenseInput(plan.rstd, workspace, staging);
  args.weight = DenseInput(plan.weight, workspace, staging);
  args.grad_input = DenseOutput(plan.grad_input, workspace);
  args.grad_out_spacing = plan.grad_out.spacing;
  args.input_spacing = plan.input.spacing;
  args.grad_input_spacing = plan.grad_input.spacing;
  args.grad_weight = DenseOutput(plan.grad_weight, workspace);
  args.grad_bias = DenseOutput(plan.grad_bias, workspace);
  // Live for the kernel call: the row staging's callbacks read them.
  const kernels::Isa isa = plan.kernel_config.isa;
  const RowMover movers[3] = {
      {&plan.grad_out, plan.row_dims, plan.cols, data_dtype, isa},
      {&plan.input, plan.row_dims, plan.cols, data_dtype, isa},
      {&plan.grad_input, plan.row_dims, plan.cols, data_dtype, isa,
       OutputFar(plan.rows * plan.cols * static_cast<int64_t>(aclDataTypeSize(data_dtype)))}};
  if (plan.in_columns) {
    args.grad_out = plan.grad_out.view.FirstElement();
    args.input = plan.input.view.FirstElement();
    if (plan.grad_input.present) args.grad_input = plan.grad_input.view.FirstElement();
    args.grad_out_columns = ColumnLayoutOf(plan.grad_out);
    args.input_columns = ColumnLayoutOf(plan.input);
    args.grad_input_columns = ColumnLayoutOf(plan.grad_input);
  } else {
    if (plan.grad_out.MovedByRows()) args.grad_out_rows = {&GatherRowsOf, &movers[0]};
    if (plan.input.MovedByRows()) args.input_rows = {&GatherRowsOf, &movers[1]};
    if (plan.grad_input.MovedByRows()) args.grad_input_rows = {&ScatterRowsOf, &movers[2]};
  }
  args.staged_row_multiple = plan.staged_row_multiple;
  if (plan.uses_scratch) args.scratch = workspace + plan.scratch_offset;
  kernels::LayerNormBackward(args);
  PublishOutput(plan.grad_weight, plan.grad_weight.view.dtype, workspace, staging);
  PublishOutput(plan.grad_bias, plan.grad_bias.view.dtype, workspace, staging);
}

}  // namespace aclhost
