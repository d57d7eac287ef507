// How an operator's plan reaches an operand: the caller's view directly when the kernel can use
// it, or a dense copy in the workspace (gathered before the kernel for inputs, scattered after it
// for outputs), and the workspace layout that holds those copies.
#pragma once

#include <cstdint>

#include "aclnn/acl_meta.h"
#include "kernels/common/element_type.h"
#include "kernels/common/kernel_config.h"
#include "kernels/common/transpose.h"
#include "tensor/tensor.h"

namespace aclhost {

// kRows: moved in blocks of rows, element by element, by the backward's kernel or the forward's
// plan (PlanRows); kTransposedRows: the same, by SIMD transpositions, for a view whose
// rows are, batch by batch, the columns of a row-major matrix (TensorView::AsMatrixBatches with
// row_stride 1).
struct StagedOperand {
  enum class Staging { kDirect, kWhole, kRows, kTransposedRows };

  bool present = false;
  TensorView view;
  Staging staging = Staging::kDirect;
  uint64_t workspace_offset = 0;  // kWhole
  kernels::RowSpacing spacing;    // kDirect operands read by rows: where the rows lie
  MatrixBatches batches;          // kTransposedRows

  bool MovedByRows() const { return staging == Staging::kRows || staging == Staging::kTransposedRows; }
};

class WorkspaceLayout {
 public:
  // Offset of a new 64-byte aligned block of bytes.
  uint64_t Reserve(uint64_t bytes);
  uint64_t size() const { return size_; }

 private:
  uint64_t size_ = 0;
};

// FLOAT, FLOAT16 or BF16 (what the operators' checks admit) as the kernels' element type.
kernels::ElementType ElementTypeOf(aclDataType dtype);

// The kernel's element type of an operand that is there; float32 for one that is not (what the
// kernels' scratch sizes expect of an absent weight or bias).
kernels::ElementType KernelTypeOf(const StagedOperand &operand);

// The operand's view when wanted and present, staged nowhere yet.
StagedOperand Describe(bool wanted, const aclTensor *tensor);
// The same for an operand the kernel reads or writes where it lies: of its view only the dtype and
// the first element (offset, data), not the dims and strides, which the plan never walks then
// (copying them cost a call two heap allocations per operand: 16 of the backward's 25).
StagedOperand UsedInPlace(bool wanted, const aclTensor *tensor);
// A dense copy of the whole tensor, in its own dtype, when its view is not dense; else UsedInPlace.
StagedOperand PlanWhole(bool wanted, const aclTensor *tensor, WorkspaceLayout *layout);
// A row operand of a kernel that works in kernel_dtype: read or written in place, row by row, when
// its rows (the last row_dims dims) are dense and evenly spaced, whole or batch by batch
// (TensorView::DenseRowsInBatches; spacing set), in that dtype; else moved block by block through tiles
// (MovedByRows): by transpositions where its rows are (batches of) a matrix's columns
// (kTransposedRows), else element by element (kRows).
StagedOperand PlanRows(bool wanted, const aclTensor *tensor, size_t row_dims, aclDataType kernel_dtype);

// Rows moved through tiles at a time: about kernels::kTileBytes of rows of row_bytes (each column
// of a transposition then moves in runs that long), a whole number of cache lines per column, 32
// rows at least.
int64_t StagedBlockRows(int64_t row_bytes);

// Rows [row_begin, row_end) of a MovedByRows operand (cols elements each, the last row_dims dims)
// into `dense`, back to back in its dtype; and out of dense (rows in dense_dtype) into the
// operand, a transposition writing it as `far` says.
void GatherOperandRows(const StagedOperand &operand, size_t row_dims, int64_t cols, int64_t row_begin, int64_t row_end,
                       void *dense, kernels::Isa isa);
void ScatterOperandRows(void *dense, aclDataType dense_dtype, const StagedOperand &operand, size_t row_dims, int64_t cols,
                        int64_t row_begin, int64_t row_end, kernels::TransposeFar far, kernels::Isa isa);

// How a transposition writes an output of output_bytes in all: streamed past the caches when
// kernels::StreamsOutput says so.
kernels::TransposeFar OutputFar(int64_t output_bytes);

// How a plan's run moves staged copies: threads, all the kernel may use for large problems and
// one for small ones (their copies cost less than a thread team), and the transpositions' target.
struct StagingRun {
  int threads;
  kernels::Isa isa;
};
StagingRun StagingFor(int64_t elements, const kernels::KernelConfig &config);

// At run time: the dense pointer the kernel reads (gathering first when staged) or writes, and
// the scatter of a staged output written in kernel_dtype. NULL for an absent operand.
const void *DenseInput(const StagedOperand &operand, char *workspace, const StagingRun &run);
void *DenseOutput(const StagedOperand &operand, char *workspace);
void PublishOutput(const StagedOperand &operand, aclDataType kernel_dtype, char *workspace, const StagingRun &run);

}  // namespace aclhost
