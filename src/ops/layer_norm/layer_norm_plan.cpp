#include "ops/layer_norm/layer_norm_plan.h"

#include "kernels/layer_norm/layer_norm_kernel.h"

namespace aclhost {

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
  // input and out row by row in place where their rows are evenly spaced (a slice of wider rows).
  const size_t row_dims = op.normalized_shape->values.size();
  plan.input = PlanRowsInPlace(has_elements, op.input, row_dims, &layout);
  plan.weight = PlanWhole(has_elements, op.weight, &layout);
  plan.bias = PlanWhole(has_elements, op.bias, &layout);
  plan.out = PlanRowsInPlace(has_elements, op.out, row_dims, &layout);
  plan.mean = PlanWhole(true, op.mean, &layout);
  plan.rstd = PlanWhole(true, op.rstd, &layout);
  const size_t scratch_bytes = kernels::LayerNormForwardScratchBytes(shape.cols, KernelTypeOf(plan.weight), KernelTypeOf(plan.bias));
  plan.uses_scratch = scratch_bytes > 0;
  if (plan.uses_scratch) plan.scratch_offset = layout.Reserve(scratch_bytes);
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
  args.input_row_stride = plan.input.row_stride;
  args.out_row_stride = plan.out.row_stride;
  args.mean = DenseOutput(plan.mean, workspace);
  args.rstd = DenseOutput(plan.rstd, workspace);
  if (plan.uses_scratch) args.scratch = workspace + plan.scratch_offset;
  kernels::LayerNormForward(args);
  for (const StagedOperand *output : {&plan.out, &plan.mean, &plan.rstd}) {
    PublishOutput(*output, output->view.dtype, workspace, staging);
  }
}

}  // namespace aclhost
