#include "tensor/tensor.h"

#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <utility>

#include "common/caller_enum.h"
#include "runtime/error_log.h"

namespace aclhost {

int64_t TensorView::NumElements() const {
  int64_t count = 1;
  for (const int64_t dim : dims) count *= dim;  // creation guarantees no overflow
  return count;
}

bool TensorView::IsDense() const {
  int64_t expected = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= dims[d];
  }
  return true;
}

namespace {

// Whether dims [first, last) of the view act as one dim of *stride (dims of size 1 ignored; 0
// when all are 1), and the product of their sizes.
bool ActAsOneDim(const TensorView &view, size_t first, size_t last, int64_t *stride, int64_t *size) {
  *stride = 0;
  *size = 1;
  for (size_t d = last; d-- > first;) {
    if (view.dims[d] == 1) continue;
    if (*size == 1) {
      *stride = view.strides[d];
    } else if (view.strides[d] != *stride * *size) {
      return false;
    }
    *size *= view.dims[d];
  }
  return true;
}

}  // namespace

bool TensorView::AsMatrixBatches(size_t row_dims, MatrixBatches *batches) const {
  const size_t leading = dims.size() - row_dims;
  int64_t cols = 1;
  if (!ActAsOneDim(*this, leading, dims.size(), &batches->col_stride, &cols)) return false;
  if (cols == 1) batches->col_stride = 1;
  // The most leading dims, innermost first, that act as one dim of rows, the rest as one of batches.
  for (size_t first = 0; first <= leading; ++first) {
    int64_t rows = 1, count = 1;
    if (!ActAsOneDim(*this, first, leading, &batches->row_stride, &rows) ||
        !ActAsOneDim(*this, 0, first, &batches->batch_stride, &count)) {
      continue;
    }
    if (rows == 1) batches->row_stride = cols * batches->col_stride;
    batches->batch_rows = rows;
    return true;
  }
  return false;
}

bool TensorView::DenseRowsInBatches(size_t row_dims, MatrixBatches *batches) const {
  int64_t cols = 1;
  for (size_t d = dims.size() - row_dims; d < dims.size(); ++d) cols *= dims[d];
  MatrixBatches found;
  if (!AsMatrixBatches(row_dims, &found) || found.col_stride != 1 || found.row_stride < cols) return false;
  *batches = found;
  return true;
}

void *TensorView::FirstElement() const {
  return static_cast<char *>(data) + offset * static_cast<int64_t>(aclDataTypeSize(dtype));
}

const char *DataTypeName(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_BF16: return "BF16";
    case ACL_INT8: return "INT8";
    case ACL_INT16: return "INT16";
    case ACL_INT32: return "INT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT8: return "UINT8";
    case ACL_UINT16: return "UINT16";
    case ACL_UINT32: return "UINT32";
    case ACL_UINT64: return "UINT64";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_BOOL: return "BOOL";
    default: return "an unsupported dtype";
  }
}

std::string DimsToString(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d > 0) text += ", ";
    text += std::to_string(dims[d]);
  }
  return text + "]";
}

namespace {

bool MultiplyChecked(int64_t a, int64_t b, int64_t *product) { return !__builtin_mul_overflow(a, b, product); }
bool AddChecked(int64_t a, int64_t b, int64_t *sum) { return !__builtin_add_overflow(a, b, sum); }

aclTensor *RejectTensor(const char *format, int64_t index, int64_t value) {
  std::string message = "aclCreateTensor: ";
  message += format;
  ReportError(ErrorKind::kParameter, message.c_str(), static_cast<long long>(index), static_cast<long long>(value));
  return nullptr;
}

// Element count of dims, or -1 (with a message) when a dim is negative or the count overflows.
int64_t CountElements(const int64_t *dims, uint64_t rank, const char *name) {
  int64_t count = 1;
  for (uint64_t d = 0; d < rank; ++d) {
    if (dims[d] < 0) {
      ReportError(ErrorKind::kParameter, "aclCreateTensor: %s[%llu] is %lld; expected a non-negative size", name,
                  static_cast<unsigned long long>(d), static_cast<long long>(dims[d]));
      return -1;
    }
    if (!MultiplyChecked(count, dims[d], &count)) {
      ReportError(ErrorKind::kParameter, "aclCreateTensor: the element count of %s overflows int64 at dim %llu", name,
                  static_cast<unsigned long long>(d));
      return -1;
    }
  }
  return count;
}

}  // namespace
}  // namespace aclhost

using aclhost::ErrorKind;
using aclhost::ReportError;

extern "C" {

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData) {
  if (viewDims == nullptr && viewDimsNum > 0) {
    ReportError(ErrorKind::kParameter, "aclCreateTensor: viewDims is NULL but viewDimsNum is %llu", static_cast<unsigned long long>(viewDimsNum));
    return nullptr;
  }
  if (storageDims == nullptr && storageDimsNum > 0) {
    ReportError(ErrorKind::kParameter, "aclCreateTensor: storageDims is NULL but storageDimsNum is %llu", static_cast<unsigned long long>(storageDimsNum));
    return nullptr;
  }
  for (const auto &[name, value] : {std::pair{"dataType", aclhost::CallerInt(dataType)},
                                    std::pair{"format", aclhost::CallerInt(format)}}) {
    if (value < aclhost::kLowestAclEnumValue || value > aclhost::kHighestAclEnumValue) {
      ReportError(ErrorKind::kParameter, "aclCreateTensor: %s is %d; expected a value of its enum", name, value);
      return nullptr;
    }
  }
  const int64_t view_count = aclhost::CountElements(viewDims, viewDimsNum, "viewDims");
  if (view_count < 0) return nullptr;
  const int64_t storage_count = aclhost::CountElements(storageDims, storageDimsNum, "storageDims");
  if (storage_count < 0) return nullptr;
  const int64_t element_size = static_cast<int64_t>(aclDataTypeSize(dataType));
  int64_t storage_bytes = 0;
  if (!aclhost::MultiplyChecked(storage_count, element_size, &storage_bytes)) {
    return aclhost::RejectTensor("the storage of %lld elements of %lld bytes overflows int64", storage_count, element_size);
  }
  if (offset < 0) {
    ReportError(ErrorKind::kParameter, "aclCreateTensor: offset is %lld; expected a non-negative element offset", static_cast<long long>(offset));
    return nullptr;
  }

  // Copies of caller arrays: an absurd viewDimsNum must fail, not throw through the C API.
  try {
    std::vector<int64_t> strides(viewDims, viewDims + viewDimsNum);
    if (stride != nullptr) {
      for (uint64_t d = 0; d < viewDimsNum; ++d) {
        if (stride[d] < 0) return aclhost::RejectTensor("stride[%lld] is %lld; expected a non-negative element stride", static_cast<int64_t>(d), stride[d]);
        strides[d] = stride[d];
      }
    } else {
      int64_t running = 1;
      for (uint64_t d = viewDimsNum; d-- > 0;) {
        strides[d] = running;
        if (!aclhost::MultiplyChecked(running, viewDims[d] > 0 ? viewDims[d] : 1, &running)) {
          return aclhost::RejectTensor("contiguous strides overflow int64 at dim %lld (size %lld)", static_cast<int64_t>(d), viewDims[d]);
        }
      }
    }

    // The last element the view can address must lie inside the storage.
    if (view_count > 0) {
      int64_t last = offset;
      for (uint64_t d = 0; d < viewDimsNum; ++d) {
        int64_t reach = 0;
        if (!aclhost::MultiplyChecked(viewDims[d] - 1, strides[d], &reach) || !aclhost::AddChecked(last, reach, &last)) {
          return aclhost::RejectTensor("the view overflows int64 at dim %lld (stride %lld)", static_cast<int64_t>(d), strides[d]);
        }
      }
      if (last >= storage_count) {
        ReportError(ErrorKind::kParameter,
                    "aclCreateTensor: the view reaches element %lld but the storage holds %lld elements; expected offset "
                    "and strides to stay inside storageDims",
                    static_cast<long long>(last), static_cast<long long>(storage_count));
        return nullptr;
      }
    } else if (offset > storage_count) {
      return aclhost::RejectTensor("the empty view starts at offset %lld past a storage of %lld elements", offset, storage_count);
    }

    auto tensor = std::make_unique<aclTensor>();
    tensor->view.dtype = dataType;
    tensor->view.dims.assign(viewDims, viewDims + viewDimsNum);
    tensor->view.strides = std::move(strides);
    tensor->view.offset = offset;
    tensor->view.data = tensorData;
    tensor->storage_dims.assign(storageDims, storageDims + storageDimsNum);
    tensor->format = format;
    return tensor.release();
  } catch (const std::exception &) {  // bad_alloc, or length_error for an absurd viewDimsNum
    ReportError(ErrorKind::kInternal, "aclCreateTensor: out of memory for %llu dims",
                static_cast<unsigned long long>(viewDimsNum));
    return nullptr;
  }
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
  delete tensor;
  return OK;
}

}  // extern "C"
