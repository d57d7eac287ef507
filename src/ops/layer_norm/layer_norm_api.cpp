// The C entry points of aclnnLayerNorm and aclnnLayerNormWithImplMode: phase 1 checks and plans,
// phase 2 enqueues. Every implMode computes the same (most precise) results here.
#include <new>

#include "aclnnop/aclnn_layer_norm.h"
#include "aclnn/opdev/op_errno.h"
#include "ops/common/launch.h"
#include "ops/layer_norm/layer_norm_check.h"
#include "ops/layer_norm/layer_norm_plan.h"
#include "runtime/error_log.h"

namespace aclhost {
namespace {

aclnnStatus PlanLayerNorm(const char *api, const char *phase2, const LayerNormOperands &operands,
                          uint64_t *workspace_size, aclOpExecutor **executor) {
  if (workspace_size == nullptr || executor == nullptr) {
    ReportError(ErrorKind::kParameter, "%s: %s is NULL; expected a pointer to receive the result", api,
                workspace_size == nullptr ? "workspaceSize" : "executor");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  LayerNormShape shape;
  const aclnnStatus status = CheckLayerNorm(api, operands, &shape);
  if (status != ACLNN_SUCCESS) return status;
  try {
    aclOpExecutor *created =
        MakePlannedExecutor(phase2, [&] { return MakeLayerNormPlan(operands, shape); }, &RunLayerNormPlan);
    *workspace_size = created->workspace_size;
    *executor = created;
    return ACLNN_SUCCESS;
  } catch (const std::bad_alloc &) {
    ReportError(ErrorKind::kInternal, "%s: out of memory creating the executor", api);
    return ACLNN_ERR_INNER_CREATE_EXECUTOR;
  }
}

}  // namespace
}  // namespace aclhost

extern "C" {

aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                           const aclTensor *weightOptional, const aclTensor *biasOptional, double eps,
                                           aclTensor *out, aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
                                           uint64_t *workspaceSize, aclOpExecutor **executor) {
  const aclhost::LayerNormOperands operands{input, normalizedShape, weightOptional, biasOptional, eps,
                                            out,   meanOutOptional, rstdOutOptional, 0};
  return aclhost::PlanLayerNorm("aclnnLayerNormGetWorkspaceSize", "aclnnLayerNorm", operands, workspaceSize, executor);
}

aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
  return aclhost::LaunchExecutor("aclnnLayerNorm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLayerNormWithImplModeGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                                       const aclTensor *weightOptional, const aclTensor *biasOptional,
                                                       double eps, aclTensor *out, aclTensor *meanOutOptional,
                                                       aclTensor *rstdOutOptional, int32_t implMode,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor) {
  const aclhost::LayerNormOperands operands{input, normalizedShape, weightOptional, biasOptional, eps,
                                            out,   meanOutOptional, rstdOutOptional, implMode};
  return aclhost::PlanLayerNorm("aclnnLayerNormWithImplModeGetWorkspaceSize", "aclnnLayerNormWithImplMode", operands,
                                workspaceSize, executor);
}

aclnnStatus aclnnLayerNormWithImplMode(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream) {
  return aclhost::LaunchExecutor("aclnnLayerNormWithImplMode", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
