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

// run(plan, workspace) executes the plan; a plan with nothing to do needs no stream either.
template <typename Plan, typename Run>
std::function<aclnnStatus(void *, aclrtStream)> MakeLaunch(const char *api, std::shared_ptr<const Plan> plan,
                                                           bool nothing_to_do, int64_t elements, Run run) {
  return [api, plan, nothing_to_do, elements, run](void *workspace, aclrtStream stream) -> aclnnStatus {
    if (nothing_to_do) return ACLNN_SUCCESS;
    const Dispatch dispatch = elements <= kInlineElements ? Dispatch::kInlineWhenIdle : Dispatch::kQueued;
    const aclError status = EnqueueOnStream(stream, [plan, workspace, run] {
      run(*plan, workspace);
      return ACL_SUCCESS;
    }, api, dispatch);
    return status == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_RUNTIME_ERROR;
  };
}

}  // namespace aclhost
