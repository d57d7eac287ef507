#include "tensor/executor.h"

#include <mutex>
#include <unordered_map>

#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"
#include "runtime/error_log.h"

namespace aclhost {
namespace {

struct ExecutorRegistry {
  std::mutex mutex;
  std::unordered_map<const aclOpExecutor *, std::shared_ptr<aclOpExecutor>> live;
};

ExecutorRegistry &Registry() {
  static ExecutorRegistry *registry = new ExecutorRegistry;  // outlives static destructors
  return *registry;
}

std::shared_ptr<aclOpExecutor> FindLive(const aclOpExecutor *handle) {
  const auto found = Registry().live.find(handle);
  return found == Registry().live.end() ? nullptr : found->second;
}

}  // namespace

aclOpExecutor *RegisterExecutor(std::shared_ptr<aclOpExecutor> executor) {
  aclOpExecutor *handle = executor.get();
  std::lock_guard<std::mutex> lock(Registry().mutex);
  Registry().live.emplace(handle, std::move(executor));
  return handle;
}

aclnnStatus LaunchExecutor(const char *api, void *workspace, uint64_t workspace_size, aclOpExecutor *handle,
                           aclrtStream stream) {
  if (handle == nullptr) {
    ReportError(ErrorKind::kParameter, "%s: executor is NULL; expected the executor from %sGetWorkspaceSize", api, api);
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  std::shared_ptr<aclOpExecutor> executor;
  {
    std::lock_guard<std::mutex> lock(Registry().mutex);
    const auto found = Registry().live.find(handle);
    if (found == Registry().live.end()) {
      ReportError(ErrorKind::kParameter,
                  "%s: executor %p is not live (already run, destroyed, or never created by %sGetWorkspaceSize)", api,
                  static_cast<const void *>(handle), api);
      return ACLNN_ERR_PARAM_INVALID;
    }
    // A single-use executor is consumed by this call whatever its outcome.
    if (found->second->repeatable) {
      executor = found->second;
    } else {
      executor = std::move(found->second);
      Registry().live.erase(found);
    }
  }
  if (workspace_size > 0 && workspace == nullptr) {
    ReportError(ErrorKind::kParameter, "%s: workspace is NULL but workspaceSize is %llu; expected a buffer of that size", api,
                static_cast<unsigned long long>(workspace_size));
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  if (workspace_size < executor->workspace_size) {
    ReportError(ErrorKind::kParameter, "%s: workspaceSize is %llu; expected at least the %llu bytes phase 1 asked for", api,
                static_cast<unsigned long long>(workspace_size), static_cast<unsigned long long>(executor->workspace_size));
    return ACLNN_ERR_PARAM_INVALID;
  }
  return executor->Launch(workspace, stream);
}

}  // namespace aclhost

using aclhost::ErrorKind;
using aclhost::ReportError;

extern "C" {

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
  if (executor == nullptr) {
    ReportError(ErrorKind::kInternal, "aclSetAclOpExecutorRepeatable: executor is NULL; expected an executor from phase 1");
    return ACLNN_ERR_INNER_NULLPTR;
  }
  std::lock_guard<std::mutex> lock(aclhost::Registry().mutex);
  const std::shared_ptr<aclOpExecutor> live = aclhost::FindLive(executor);
  if (live == nullptr) {
    ReportError(ErrorKind::kInternal, "aclSetAclOpExecutorRepeatable: executor %p is not live", static_cast<void *>(executor));
    return ACLNN_ERR_INNER;
  }
  live->repeatable = true;
  return OK;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
  if (executor == nullptr) {
    ReportError(ErrorKind::kInternal, "aclDestroyAclOpExecutor: executor is NULL; expected an executor from phase 1");
    return ACLNN_ERR_INNER_NULLPTR;
  }
  std::lock_guard<std::mutex> lock(aclhost::Registry().mutex);
  if (aclhost::Registry().live.erase(executor) == 0) {
    ReportError(ErrorKind::kInternal, "aclDestroyAclOpExecutor: executor %p is not live (destroyed twice or already run)",
                static_cast<void *>(executor));
    return ACLNN_ERR_INNER;
  }
  return OK;
}

aclnnStatus aclnnInit(const char * /*configPath: nothing to configure on the host*/) { return OK; }

aclnnStatus aclnnFinalize(void) { return OK; }

}  // extern "C"
