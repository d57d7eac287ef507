#include "ops/common/staging.h"

#include "tensor/view_copy.h"

namespace aclhost {
namespace {

constexpr uint64_t kWorkspaceAlignment = 64;
constexpr int64_t kMinStagingElementsForThreads = 1 << 16;

// Gives a present operand a dense copy of the tensor, in its dtype, in the workspace.
void StageWhole(const aclTensor *tensor, StagedOperand *operand, WorkspaceLayout *layout) {
  operand->view = tensor->view;  // the gather and the scatter walk its shape
  operand->staging = StagedOperand::Staging::kWhole;
  operand->workspace_offset = layout->Reserve(operand->view.NumElements() * aclDataTypeSize(operand->view.dtype));
}

}  // namespace

uint64_t WorkspaceLayout::Reserve(uint64_t bytes) {
  const uint64_t offset = size_;
  size_ += (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
  return offset;
}

kernels::ElementType ElementTypeOf(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return kernels::ElementType::kFloat16;
    case ACL_BF16: return kernels::ElementType::kBFloat16;
    default: return kernels::ElementType::kFloat32;  // the checks admit nothing else
  }
}

kernels::ElementType KernelTypeOf(const StagedOperand &operand) {
  return operand.present ? ElementTypeOf(operand.view.dtype) : kernels::ElementType::kFloat32;
}

StagedOperand Describe(bool wanted, const aclTensor *tensor) {
  StagedOperand operand;
  operand.present = wanted && tensor != nullptr;
  if (operand.present) operand.view = tensor->view;
  return operand;
}

StagedOperand UsedInPlace(bool wanted, const aclTensor *tensor) {
  StagedOperand operand;
  operand.present = wanted && tensor != nullptr;
  if (operand.present) {
    operand.view.dtype = tensor->view.dtype;
    operand.view.offset = tensor->view.offset;
    operand.view.data = tensor->view.data;
  }
  return operand;
}

StagedOperand PlanWhole(bool wanted, const aclTensor *tensor, WorkspaceLayout *layout) {
  StagedOperand operand = UsedInPlace(wanted, tensor);
  if (operand.present && !tensor->view.IsDense()) StageWhole(tensor, &operand, layout);
  return operand;
}

StagedOperand PlanRowsInPlace(bool wanted, const aclTensor *tensor, size_t row_dims, WorkspaceLayout *layout) {
  StagedOperand operand = UsedInPlace(wanted, tensor);
  if (operand.present && tensor->view.RowsEvenlySpaced(row_dims, &operand.row_stride)) return operand;
  return PlanWhole(wanted, tensor, layout);
}

int StagingThreads(int64_t elements, const kernels::KernelConfig &config) {
  return elements >= kMinStagingElementsForThreads ? config.threads : 1;
}

const void *DenseInput(const StagedOperand &operand, char *workspace, int threads) {
  if (!operand.present || operand.MovedByRows()) return nullptr;
  if (operand.staging == StagedOperand::Staging::kDirect) return operand.view.FirstElement();
  void *dense = workspace + operand.workspace_offset;
  GatherToDense(operand.view, dense, threads);
  return dense;
}

void *DenseOutput(const StagedOperand &operand, char *workspace) {
  if (!operand.present || operand.MovedByRows()) return nullptr;
  return operand.staging == StagedOperand::Staging::kWhole ? workspace + operand.workspace_offset : operand.view.FirstElement();
}

void PublishOutput(const StagedOperand &operand, aclDataType kernel_dtype, const char *workspace, int threads) {
  if (operand.present && operand.staging == StagedOperand::Staging::kWhole) {
    ScatterFromDense(workspace + operand.workspace_offset, kernel_dtype, operand.view, threads);
  }
}

}  // namespace aclhost
