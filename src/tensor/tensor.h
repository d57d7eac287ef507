// The aclTensor / aclIntArray / aclBoolArray objects behind the opaque handles of acl_meta.h,
// and TensorView: the plain copy of a descriptor that plans keep after the handle is gone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "common/export.h"

namespace aclhost {

// Rows of a view as batches of a matrix's rows: row m = b * batch_rows + i (b < rows / batch_rows),
// its element n at b * batch_stride + i * row_stride + n * col_stride from the first element.
struct MatrixBatches {
  int64_t batch_rows = 1, batch_stride = 0, row_stride = 0, col_stride = 1;
};

struct ACLHOST_EXPORT TensorView {
  aclDataType dtype = ACL_DT_UNDEFINED;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // in elements, one per dim
  int64_t offset = 0;            // in elements, from data
  void *data = nullptr;

  int64_t NumElements() const;
  // True when the elements sit back to back in row-major order (dims of size 1 ignored).
  bool IsDense() const;
  // True when the view's rows (the last row_dims dims) are batches of a matrix's rows, as many
  // rows to a batch as the dims allow (all of them, one batch, when the view is a matrix): an
  // [N, H*W, C] view of N channel-major [C, H*W] blocks, say, is N batches whose rows are columns
  // in memory.
  bool AsMatrixBatches(size_t row_dims, MatrixBatches *batches) const;
  // True when each row (the last row_dims dims) is dense and the rows are batches (AsMatrixBatches)
  // whose rows start a fixed number of elements apart, no fewer than a row holds: rows sliced out
  // of wider rows (one batch), or a [B, S, H] view of sequence-first [S, B, H] memory (B batches of
  // S rows B * H apart). col_stride is then 1.
  bool DenseRowsInBatches(size_t row_dims, MatrixBatches *batches) const;
  // Address of the view's first element.
  void *FirstElement() const;
};

// For messages: "FLOAT16", "[2, 3, 4]".
ACLHOST_EXPORT const char *DataTypeName(aclDataType dtype);
ACLHOST_EXPORT std::string DimsToString(const std::vector<int64_t> &dims);

}  // namespace aclhost

struct aclTensor {
  aclhost::TensorView view;
  std::vector<int64_t> storage_dims;
  aclFormat format = ACL_FORMAT_ND;
};

struct aclIntArray {
  std::vector<int64_t> values;
};

struct aclBoolArray {
  std::vector<bool> values;
};
