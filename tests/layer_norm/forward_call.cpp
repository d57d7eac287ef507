#include "forward_call.h"

#include <gtest/gtest.h>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_layer_norm.h"

namespace lnb_test {

aclnnStatus RunForward(const ForwardOperands &op, aclrtStream stream, uint64_t *workspace_size_out) {
  auto handle = [](DeviceTensor *tensor) { return tensor != nullptr ? tensor->get() : nullptr; };
  aclIntArray *normalized = aclCreateIntArray(op.normalized_shape.data(), op.normalized_shape.size());
  uint64_t workspace_size = 0;
  aclOpExecutor *executor = nullptr;
  const aclnnStatus status =
      op.impl_mode < 0
          ? aclnnLayerNormGetWorkspaceSize(handle(op.input), normalized, handle(op.weight), handle(op.bias), op.eps,
                                           handle(op.out), handle(op.mean), handle(op.rstd), &workspace_size, &executor)
          : aclnnLayerNormWithImplModeGetWorkspaceSize(handle(op.input), normalized, handle(op.weight), handle(op.bias),
                                                       op.eps, handle(op.out), handle(op.mean), handle(op.rstd),
                                                       op.impl_mode, &workspace_size, &executor);
  aclDestroyIntArray(normalized);
  if (status != ACLNN_SUCCESS) return status;
  if (workspace_size_out != nullptr) *workspace_size_out = workspace_size;
  void *workspace = nullptr;
  if (workspace_size > 0) {
    EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  const aclnnStatus launched = op.impl_mode < 0 ? aclnnLayerNorm(workspace, workspace_size, executor, stream)
                                                : aclnnLayerNormWithImplMode(workspace, workspace_size, executor, stream);
  EXPECT_EQ(launched, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  return status;
}

}  // namespace lnb_test
