// The two C entry points of aclnnLayerNormBackward: phase 1 checks and plans, phase 2 enqueues.
#include <memory>
#include <new>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnn/opdev/op_errno.h"
#include "ops/layer_norm_backward/layer_norm_backward_check.h"
#include "ops/layer_norm_backward/layer_norm_backward_plan.h"
#include "runtime/error_log.h"
#include "runtime/stream.h"
#include "tensor/executor.h"

namespace aclhost {
namespace {

constexpr const char *kPhase1 = "aclnnLayerNormBackwardGetWorkspaceSize";
constexpr const char *kPhase2 = "aclnnLayerNormBackward";
// Problems up to this many elements take less time than a hand-off to the stream's worker.
constexpr int64_t kInlineElements = 1 << 16;

// What the executor launches: the queued task shares the plan, so the executor (and every
// aclTensor of phase 1) may be gone by the time the task runs.
std::function<aclnnStatus(void *, aclrtStream)> MakeLaunch(std::shared_ptr<const LayerNormBackwardPlan> plan) {
  return [plan](void *workspace, aclrtStream stream) -> aclnnStatus {
    // An all-false mask or an empty problem touches nothing, so it needs no stream either.
    if (plan->mode == LayerNormBackwardPlan::Mode::kNothing) return ACLNN_SUCCESS;
    const Dispatch dispatch = plan->rows * plan->cols <= kInlineElements ? Dispatch::kInlineWhenIdle : Dispatch::kQueued;
    const aclError status = EnqueueOnStream(stream, [plan, workspace] {
      RunLayerNormBackwardPlan(*plan, workspace);
      return ACL_SUCCESS;
    }, kPhase2, dispatch);
    return status == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_RUNTIME_ERROR;
  };
}

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
    auto created = std::make_unique<aclOpExecutor>();
    auto plan = std::make_shared<const aclhost::LayerNormBackwardPlan>(aclhost::MakeLayerNormBackwardPlan(operands, shape));
    created->workspace_size = plan->workspace_size;
    created->launch = aclhost::MakeLaunch(std::move(plan));
    const uint64_t size = created->workspace_size;
    *executor = aclhost::RegisterExecutor(std::move(created));
    *workspaceSize = size;
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
