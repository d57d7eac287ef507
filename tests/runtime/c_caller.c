/* What a C program may legally pass: any int where the API takes an enum. Compiled as C, so the
 * values below are well-defined here; the library must cope with them without undefined
 * behaviour (the asan build's UndefinedBehaviorSanitizer would stop it). */
#include "c_caller.h"

#include "aclnn/acl_meta.h"

int CCallerMemcpyStatus(int kind) {
  char source[4] = {1, 2, 3, 4}, target[4] = {0};
  return aclrtMemcpy(target, sizeof target, source, sizeof source, (aclrtMemcpyKind)kind);
}

size_t CCallerDataTypeSize(int data_type) { return aclDataTypeSize((aclDataType)data_type); }

int CCallerCreatesTensor(int data_type, int format) {
  static float storage[4];
  const int64_t dims[1] = {4};
  aclTensor *tensor = aclCreateTensor(dims, 1, (aclDataType)data_type, 0, 0, (aclFormat)format, dims, 1, storage);
  aclDestroyTensor(tensor);
  return tensor != 0;
}
