// Phase 2 of a plan-based operator: what the executor launches. The queued task shares the plan,
// so the executor (and every aclTensor of phase 1) may be gone by the time the task runs.
#pragma once

#include <functional>
#include <memory>

#include "aclnn/opdev/op_errno.h"
#include "runtime/stream.h"

namespace aclhost {

// Problems up to this many elements take less time than a hand-off to the stream's worker.
constexpr int64_t kInlineElements = 1 << 16;

// run(plan, workspace) executes the plan; a plan with nothing to do needs no stream either. Small
// problems run at once on the caller's thread when the stream is idle, by reference (no task is
// built, so phase 2 allocates nothing); otherwise the queued task shares the plan.
template <typename Plan, typename Run>
std::function<aclnnStatus(void *, aclrtStream)> MakeLaunch(const char *api, std::shared_ptr<const Plan> plan,
                                                           bool nothing_to_do, int64_t elements, Run run) {
  return [api, plan, nothing_to_do, elements, run](void *workspace, aclrtStream stream) -> aclnnStatus {
    if (nothing_to_do) return ACLNN_SUCCESS;
    if (elements <= kInlineElements) {
      struct Call {
        const Plan *plan;
        void *workspace;
        Run run;
      } call{plan.get(), workspace, run};
      const InlineTask run_call = [](void *context) -> aclError {
        const Call &what = *static_cast<const Call *>(context);
        what.run(*what.plan, what.workspace);
        return ACL_SUCCESS;
      };
      bool ran = false;
      const aclError status = RunOnStreamIfIdle(stream, run_call, &call, api, &ran);
      if (status != ACL_SUCCESS) return ACLNN_ERR_RUNTIME_ERROR;
      if (ran) return ACLNN_SUCCESS;
    }
    const aclError status = EnqueueOnStream(stream, [plan, workspace, run] {
      run(*plan, workspace);
      return ACL_SUCCESS;
    }, api);
    return status == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_RUNTIME_ERROR;
  };
}

}  // namespace aclhost
