#include "ops/common/staging.h"

#include <algorithm>

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

// Whether the view's rows (the last row_dims dims) are dense and evenly spaced, whole or batch by
// batch, which the kernels read and write in place: then where they lie.
bool DenseRowsInPlace(const TensorView &view, size_t row_dims, kernels::RowSpacing *spacing) {
  MatrixBatches batches;
  if (!view.DenseRowsInBatches(row_dims, &batches)) return false;
  int64_t rows = 1;
  for (size_t d = 0; d + row_dims < view.dims.size(); ++d) rows *= view.dims[d];
  spacing->row_stride = batches.row_stride;
  // One batch of all the rows is RowSpacing's default (batch_rows 0): the kernels then skip the
  // batch arithmetic.
  spacing->batch_rows = batches.batch_rows == rows ? 0 : batches.batch_rows;
  spacing->batch_stride = batches.batch_stride;
  return true;
}

// Whether the view's rows are, batch by batch, the columns of a row-major matrix (a transpose, or
// NCHW memory seen as [N, H*W, C]): MatrixBatches with row_stride 1.
bool TransposedBatches(const TensorView &view, size_t row_dims, MatrixBatches *batches) {
  MatrixBatches found;
  if (!view.AsMatrixBatches(row_dims, &found) || found.row_stride != 1) return false;
  *batches = found;
  return true;
}

// Rows [row_begin, row_end) of a kTransposedRows operand (cols elements each) transposed between
// its view and `dense`, which holds those rows back to back, run by run within a batch: into
// dense when far is kSource, out of it otherwise.
void TransposeRows(const StagedOperand &operand, int64_t cols, int64_t row_begin, int64_t row_end, void *dense,
                   kernels::TransposeFar far, kernels::Isa isa) {
  const MatrixBatches &batches = operand.batches;
  char *const first_element = static_cast<char *>(operand.view.FirstElement());
  const size_t element_size = aclDataTypeSize(operand.view.dtype);
  const int64_t size = static_cast<int64_t>(element_size);
  // Memory holds a run's rows as columns: cols rows of `count` elements, col_stride apart.
  for (int64_t m = row_begin; m < row_end;) {
    const int64_t batch = m / batches.batch_rows, in_batch = m % batches.batch_rows;
    const int64_t count = std::min(row_end - m, batches.batch_rows - in_batch);
    char *const run = first_element + (batch * batches.batch_stride + in_batch) * size;
    char *const dense_rows = static_cast<char *>(dense) + (m - row_begin) * cols * size;
    if (far == kernels::TransposeFar::kSource) {
      kernels::Transpose(run, batches.col_stride, cols, count, dense_rows, cols, element_size, far, isa);
    } else {
      kernels::Transpose(dense_rows, cols, count, cols, run, batches.col_stride, element_size, far, isa);
    }
    m += count;
  }
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

StagedOperand PlanRows(bool wanted, const aclTensor *tensor, size_t row_dims, aclDataType kernel_dtype) {
  StagedOperand operand = UsedInPlace(wanted, tensor);
  if (!operand.present) return operand;
  const bool same_dtype = operand.view.dtype == kernel_dtype;
  if (same_dtype && DenseRowsInPlace(tensor->view, row_dims, &operand.spacing)) return operand;
  const bool transposed = same_dtype && TransposedBatches(tensor->view, row_dims, &operand.batches);
  operand.staging = transposed ? StagedOperand::Staging::kTransposedRows : StagedOperand::Staging::kRows;
  operand.view = tensor->view;  // the row movers walk its shape
  return operand;
}

int64_t StagedBlockRows(int64_t row_bytes) {
  constexpr int64_t kLineRows = 32;  // a cache line of a 16-bit column, two of a FLOAT one
  const int64_t by_size = kernels::kTileBytes / row_bytes;
  return std::max(kLineRows, by_size / kLineRows * kLineRows);
}

void GatherOperandRows(const StagedOperand &operand, size_t row_dims, int64_t cols, int64_t row_begin, int64_t row_end,
                       void *dense, kernels::Isa isa) {
  if (operand.staging == StagedOperand::Staging::kTransposedRows) {
    TransposeRows(operand, cols, row_begin, row_end, dense, kernels::TransposeFar::kSource, isa);
  } else {
    GatherRows(operand.view, row_dims, row_begin, row_end, dense);
  }
}

void ScatterOperandRows(void *dense, aclDataType dense_dtype, const StagedOperand &operand, size_t row_dims, int64_t cols,
                        int64_t row_begin, int64_t row_end, kernels::TransposeFar far, kernels::Isa isa) {
  if (operand.staging == StagedOperand::Staging::kTransposedRows) {
    TransposeRows(operand, cols, row_begin, row_end, dense, far, isa);
  } else {
    ScatterRows(dense, dense_dtype, operand.view, row_dims, row_begin, row_end);
  }
}

kernels::TransposeFar OutputFar(int64_t output_bytes) {
  return kernels::StreamsOutput(output_bytes) ? kernels::TransposeFar::kStreamedDestination : kernels::TransposeFar::kDestination;
}

StagingRun StagingFor(int64_t elements, const kernels::KernelConfig &config) {
  return {elements >= kMinStagingElementsForThreads ? config.threads : 1, config.isa};
}

const void *DenseInput(const StagedOperand &operand, char *workspace, const StagingRun &run) {
  if (!operand.present || operand.MovedByRows()) return nullptr;
  if (operand.staging == StagedOperand::Staging::kDirect) return operand.view.FirstElement();
  void *dense = workspace + operand.workspace_offset;
  GatherToDense(operand.view, dense, run.threads);
  return dense;
}

void *DenseOutput(const StagedOperand &operand, char *workspace) {
  if (!operand.present || operand.MovedByRows()) return nullptr;
  return operand.staging == StagedOperand::Staging::kWhole ? workspace + operand.workspace_offset : operand.view.FirstElement();
}

void PublishOutput(const StagedOperand &operand, aclDataType kernel_dtype, char *workspace, const StagingRun &run) {
  if (operand.present && operand.staging == StagedOperand::Staging::kWhole) {
    ScatterFromDense(workspace + operand.workspace_offset, kernel_dtype, operand.view, run.threads);
  }
}

}  // namespace aclhost
