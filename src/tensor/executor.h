// aclOpExecutor: what phase 1 of any operator hands to phase 2. The registry of live executors
// turns a consumed, destroyed or foreign handle into an error code instead of a crash.
#pragma once

#include <cstdint>
#include <memory>

#include "acl/acl_base.h"
#include "aclnn/acl_meta.h"
#include "common/export.h"

struct aclOpExecutor : std::enable_shared_from_this<aclOpExecutor> {
  aclOpExecutor() = default;
  virtual ~aclOpExecutor() = default;
  aclOpExecutor(const aclOpExecutor &) = delete;
  aclOpExecutor &operator=(const aclOpExecutor &) = delete;

  // Enqueues the planned work on stream; workspace holds at least workspace_size bytes. Queued
  // work shares the executor (shared_from_this), so the handle may be destroyed right after.
  virtual aclnnStatus Launch(void *workspace, aclrtStream stream) = 0;

  uint64_t workspace_size = 0;  // set by the operator once planned
  bool repeatable = false;
};

namespace aclhost {

// Makes the executor live, the registry sharing it until it is run once (unless repeatable) or
// destroyed; returns its handle. Throws std::bad_alloc.
ACLHOST_EXPORT aclOpExecutor *RegisterExecutor(std::shared_ptr<aclOpExecutor> executor);

// Phase 2 shared by every operator (api names the operator for messages): validates the
// executor and workspace, launches, and frees a single-use executor.
ACLHOST_EXPORT aclnnStatus LaunchExecutor(const char *api, void *workspace, uint64_t workspace_size,
                                          aclOpExecutor *executor, aclrtStream stream);

}  // namespace aclhost
