// Getters and array objects of acl_meta.h.
#include <exception>
#include <memory>
#include <new>

#include "aclnn/opdev/op_errno.h"
#include "runtime/error_log.h"
#include "tensor/tensor.h"

namespace aclhost {
namespace {

aclnnStatus RejectNull(const char *caller, const char *parameter) {
  ReportError(ErrorKind::kParameter, "%s: %s is NULL; expected a valid pointer", caller, parameter);
  return ACLNN_ERR_PARAM_NULLPTR;
}

// Hands out a copy allocated with new[], as the API promises callers (they delete[] it).
aclnnStatus CopyArrayOut(const char *caller, const std::vector<int64_t> &values, int64_t **out, uint64_t *count) {
  int64_t *copy = new (std::nothrow) int64_t[values.empty() ? 1 : values.size()];
  if (copy == nullptr) {
    ReportError(ErrorKind::kInternal, "%s: out of memory", caller);
    return ACLNN_ERR_INNER;
  }
  for (size_t i = 0; i < values.size(); ++i) copy[i] = values[i];
  *out = copy;
  *count = values.size();
  return OK;
}

// Copies size values (none when value is NULL) into a new array object.
template <typename Array, typename Value>
Array *CreateArray(const char *caller, const Value *value, uint64_t size) {
  try {
    auto array = std::make_unique<Array>();
    if (value != nullptr) array->values.assign(value, value + size);
    return array.release();
  } catch (const std::exception &) {  // bad_alloc, or length_error for an absurd size
    ReportError(ErrorKind::kInternal, "%s: cannot hold %llu values: out of memory", caller,
                static_cast<unsigned long long>(size));
    return nullptr;
  }
}

template <typename Array>
aclnnStatus GetArraySize(const char *caller, const Array *array, uint64_t *size) {
  if (array == nullptr) return RejectNull(caller, "array");
  if (size == nullptr) return RejectNull(caller, "size");
  *size = array->values.size();
  return OK;
}

}  // namespace
}  // namespace aclhost

using aclhost::RejectNull;

extern "C" {

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
  if (tensor == nullptr) return RejectNull("aclGetViewShape", "tensor");
  if (viewDims == nullptr) return RejectNull("aclGetViewShape", "viewDims");
  if (viewDimsNum == nullptr) return RejectNull("aclGetViewShape", "viewDimsNum");
  return aclhost::CopyArrayOut("aclGetViewShape", tensor->view.dims, viewDims, viewDimsNum);
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum) {
  if (tensor == nullptr) return RejectNull("aclGetViewStrides", "tensor");
  if (stridesValue == nullptr) return RejectNull("aclGetViewStrides", "stridesValue");
  if (stridesNum == nullptr) return RejectNull("aclGetViewStrides", "stridesNum");
  return aclhost::CopyArrayOut("aclGetViewStrides", tensor->view.strides, stridesValue, stridesNum);
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum) {
  if (tensor == nullptr) return RejectNull("aclGetStorageShape", "tensor");
  if (storageDims == nullptr) return RejectNull("aclGetStorageShape", "storageDims");
  if (storageDimsNum == nullptr) return RejectNull("aclGetStorageShape", "storageDimsNum");
  return aclhost::CopyArrayOut("aclGetStorageShape", tensor->storage_dims, storageDims, storageDimsNum);
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
  if (tensor == nullptr) return RejectNull("aclGetViewOffset", "tensor");
  if (offset == nullptr) return RejectNull("aclGetViewOffset", "offset");
  *offset = tensor->view.offset;
  return OK;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
  if (tensor == nullptr) return RejectNull("aclGetFormat", "tensor");
  if (format == nullptr) return RejectNull("aclGetFormat", "format");
  *format = tensor->format;
  return OK;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
  if (tensor == nullptr) return RejectNull("aclGetDataType", "tensor");
  if (dataType == nullptr) return RejectNull("aclGetDataType", "dataType");
  *dataType = tensor->view.dtype;
  return OK;
}

aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr) {
  if (tensor == nullptr) return RejectNull("aclSetRawTensorAddr", "tensor");
  if (addr == nullptr) return RejectNull("aclSetRawTensorAddr", "addr");
  tensor->view.data = addr;
  return OK;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr) {
  if (tensor == nullptr) return RejectNull("aclGetRawTensorAddr", "tensor");
  if (addr == nullptr) return RejectNull("aclGetRawTensorAddr", "addr");
  *addr = tensor->view.data;
  return OK;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
  return aclhost::CreateArray<aclIntArray>("aclCreateIntArray", value, size);
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
  delete array;
  return OK;
}

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) {
  return aclhost::GetArraySize("aclGetIntArraySize", array, size);
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
  return aclhost::CreateArray<aclBoolArray>("aclCreateBoolArray", value, size);
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
  delete array;
  return OK;
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size) {
  return aclhost::GetArraySize("aclGetBoolArraySize", array, size);
}

}  // extern "C"
