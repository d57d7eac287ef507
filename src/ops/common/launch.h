// The executor of a plan-based operator: phase 1's plan and how phase 2 runs it, in one object
// (one heap allocation with its shared count). Queued work shares the executor, so the executor's
// handle (and every aclTensor of phase 1) may be gone by the time the work runs.
#pragma once

#include <memory>

#include "aclnn/opdev/op_errno.h"
#include "runtime/stream.h"
#include "tensor/executor.h"

namespace aclhost {

// Problems up to this many elements take less time than a hand-off to the stream's worker.
constexpr int64_t kInlineElements = 1 << 16;

template <typename Plan>
class PlannedExecutor final : public aclOpExecutor {
 public:
  // Executes the plan; workspace holds at least plan.workspace_size bytes.
  using Run = void (*)(const Plan &plan, void *workspace);

  // api names phase 2 in messages; make_plan() returns the plan, built in place (a plan is over
  // a kilobyte of descriptors: each move of it cost a call hundreds of instructions). A plan has
  // a mode (kNothing: it needs no stream either), rows and cols (the problem's size) and its
  // workspace_size.
  template <typename MakePlan>
  PlannedExecutor(const char *api, MakePlan make_plan, Run run) : api_(api), plan_(make_plan()), run_(run) {
    workspace_size = plan_.workspace_size;
  }

  // Small problems run at once on the caller's thread when the stream is idle, by reference (no
  // task is built, so phase 2 allocates nothing); otherwise the queued task shares the executor.
  aclnnStatus Launch(void *workspace, aclrtStream stream) override {
    if (plan_.mode == Plan::Mode::kNothing) return ACLNN_SUCCESS;
    if (plan_.rows * plan_.cols <= kInlineElements) {
      struct Call {
        const PlannedExecutor *executor;
        void *workspace;
      } call{this, workspace};
      const InlineTask run_call = [](void *context) -> aclError {
        const Call &what = *static_cast<const Call *>(context);
        what.executor->run_(what.executor->plan_, what.workspace);
        return ACL_SUCCESS;
      };
      bool ran = false;
      const aclError status = RunOnStreamIfIdle(stream, run_call, &call, api_, &ran);
      if (status != ACL_SUCCESS) return ACLNN_ERR_RUNTIME_ERROR;
      if (ran) return ACLNN_SUCCESS;
    }
    const std::shared_ptr<const Plan> plan(shared_from_this(), &plan_);
    const aclError status = EnqueueOnStream(stream, [plan, workspace, run = run_] {
      run(*plan, workspace);
      return ACL_SUCCESS;
    }, api_);
    return status == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_RUNTIME_ERROR;
  }

 private:
  const char *const api_;
  const Plan plan_;
  const Run run_;
};

// A live executor (RegisterExecutor) of the plan make_plan() returns; its handle. Throws
// std::bad_alloc.
template <typename Plan, typename MakePlan>
aclOpExecutor *MakePlannedExecutor(const char *api, MakePlan make_plan, void (*run)(const Plan &, void *)) {
  return RegisterExecutor(std::make_shared<PlannedExecutor<Plan>>(api, make_plan, run));
}

}  // namespace aclhost
