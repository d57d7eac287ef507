// aclOpExecutor: what phase 1 of any operator hands to phase 2. The registry of live executors
// turns a consumed, destroyed or foreign handle into an error code instead of a crash.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "acl/acl_base.h"
#include "aclnn/acl_meta.h"
#include "common/export.h"

struct aclOpExecutor {
  uint64_t workspace_size = 0;
  bool repeatable = false;
  // Enqueues the planned work on stream; workspace holds at least workspace_size bytes. The
  // closure owns everything the queued work needs, so the executor may go right after.
  std::function<aclnnStatus(void *workspace, aclrtStream stream)> launch;
};

namespace aclhost {

// Takes ownership and makes the executor live; returns its handle, or NULL when out of memory.
ACLHOST_EXPORT aclOpExecutor *RegisterExecutor(std::unique_ptr<aclOpExecutor> executor);

// Phase 2 shared by every operator (api names the operator for messages): validates the
// executor and workspace, launches, and frees a single-use executor.
ACLHOST_EXPORT aclnnStatus LaunchExecutor(const char *api, void *workspace, uint64_t workspace_size,
                                          aclOpExecutor *executor, aclrtStream stream);

}  // namespace aclhost
