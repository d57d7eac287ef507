// The two C entry points of aclnnLayerNormBackward: phase 1 checks and plans, phase 2 enqueues.
#include <new>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnn/opdev/op_errno.h"
#include "ops/common/launch.h"
#include "ops/layer_norm_backward/layer_norm_backward_check.h"
#include "ops/layer_norm_backward/layer_norm_backward_plan.h"
#include "runtime/error_log.h"

namespace aclhost {
namespace {

constexpr const char *kPhase1 = "aclnnLayerNormBackwardGetWorkspaceSize";
constexpr const char *kPhase2 = "aclnnLayerNormBackward";
}  // namespace
}  // namespace aclhost

extern "C" {

aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(const aclTensor *gradOut, const aclTensor *input,
                                                   const aclIntArray *normalizedShape, const aclTensor *mean,
                                                   const aclTensor *rstd, const aclTensor *weightOptional,
                                                   const aclTensor *biasOptional, const aclBoolArray *outputMask,
                                                   aclTensor *gradInputOut, aclTensor *gradWeightOut,
                                                   aclTensor *gradBiasOut, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor) {
  using aclhost::ErrorKind;
  if (workspaceSize == nullptr || executor == nullptr) {
    aclhost::ReportError(ErrorKind::kParameter, "%s: %s is NULL; expected a pointer to receive the result",
                         aclhost::kPhase1, workspaceSize == nullptr ? "workspaceSize" : "executor");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  const aclhost::LayerNormBackwardOperands operands{gradOut,        input,        normalizedShape, mean,
                                                    rstd,           weightOptional, biasOptional,  outputMask,
                                                    gradInputOut,   gradWeightOut, gradBiasOut};
  aclhost::LayerNormBackwardShape shape;
  const aclnnStatus status = aclhost::CheckLayerNormBackward(operands, &shape);
  if (status != ACLNN_SUCCESS) return status;

  try {
    aclOpExecutor *created = aclhost::MakePlannedExecutor(
        aclhost::kPhase2, [&] { return aclhost::MakeLayerNormBackwardPlan(operands, shape); },
        &aclhost::RunLayerNormBackwardPlan);
    *workspaceSize = created->workspace_size;
    *executor = created;
    return ACLNN_SUCCESS;
  } catch (const std::bad_alloc &) {
    aclhost::ReportError(ErrorKind::kInternal, "%s: out of memory creating the executor", aclhost::kPhase1);
    return ACLNN_ERR_INNER_CREATE_EXECUTOR;
  }
}

aclnnStatus aclnnLayerNormBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream) {
  return aclhost::LaunchExecutor(aclhost::kPhase2, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
