/* Calls made from C with enum arguments outside the enums' C++ range (see c_caller.c). */
#ifndef ACLNN_HOST_TESTS_C_CALLER_H_
#define ACLNN_HOST_TESTS_C_CALLER_H_

#include <stddef.h>

#include "acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

int CCallerMemcpyStatus(int kind);
size_t CCallerDataTypeSize(int data_type);
/* 1 when aclCreateTensor returned a tensor (then destroyed), 0 for NULL. */
int CCallerCreatesTensor(int data_type, int format);

#ifdef __cplusplus
}
#endif

#endif
