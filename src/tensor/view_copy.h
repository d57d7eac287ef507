// Moving elements between a strided view and a dense row-major buffer, converting between the
// floating dtypes on the way. Used by operators for non-contiguous tensors.
#pragma once

#include "acl/acl_base.h"
#include "common/export.h"
#include "tensor/tensor.h"

namespace aclhost {

// Copies the view's elements, in row-major order of its dims, into dense (same dtype). Element
// addresses must be aligned to the element size (they are for FLOAT, FLOAT16 and BF16 tensors
// in memory from aclrtMalloc).
// threads: how many may share the work (the result does not depend on it).
ACLHOST_EXPORT void GatherToDense(const TensorView &view, void *dense, int threads);

// Writes dense elements (dense_dtype, row-major) to the view's positions, converting to the
// view's dtype with round-to-nearest-even. Both dtypes must be ACL_FLOAT, ACL_FLOAT16 or ACL_BF16.
ACLHOST_EXPORT void ScatterFromDense(const void *dense, aclDataType dense_dtype, const TensorView &view, int threads);

// The same for the rows [row_begin, row_end) of a view whose last row_dims dims make one row
// (dense holds just those rows). Single-threaded: callers run it from their own threads.
ACLHOST_EXPORT void GatherRows(const TensorView &view, size_t row_dims, int64_t row_begin, int64_t row_end, void *dense);
ACLHOST_EXPORT void ScatterRows(const void *dense, aclDataType dense_dtype, const TensorView &view, size_t row_dims,
                                int64_t row_begin, int64_t row_end);

// Sets every element of the view to +0.
ACLHOST_EXPORT void FillZero(const TensorView &view);

}  // namespace aclhost
