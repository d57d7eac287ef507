// Process-wide runtime state (initialisation, device 0, live streams, events and allocations)
// shared by the runtime's API files. Internal to libascendcl.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "acl/acl_base.h"
#include "runtime/event.h"
#include "runtime/stream.h"

namespace aclhost {

struct RuntimeState {
  enum class Phase { kNeverInitialised, kInitialised, kFinalised };

  std::mutex mutex;
  Phase phase = Phase::kNeverInitialised;
  int device_refcount = 0;
  // Bumped whenever the device context is torn down, so that threads that selected the device
  // before must select it again.
  uint64_t device_generation = 1;
  std::shared_ptr<Stream> default_stream;
  std::unordered_map<const void *, std::shared_ptr<Stream>> streams;
  std::unordered_map<const void *, std::shared_ptr<Event>> events;
  std::unordered_map<void *, size_t> device_allocations;
  std::unordered_map<void *, size_t> host_allocations;
};

RuntimeState &GetRuntimeState();

// The checks below expect GetRuntimeState().mutex to be held; on failure they report a message
// naming caller and return the error code.
aclError CheckInitialised(const char *caller);
// Initialised, device context alive, and device 0 selected on the calling thread.
aclError CheckDeviceSelected(const char *caller);
// Resolves a stream handle (NULL = default stream) to a live stream.
aclError LookUpStream(aclrtStream handle, const char *caller, std::shared_ptr<Stream> *stream);

// A new stream with its worker thread; NULL (with a message and *status set) when memory or
// threads run out.
std::shared_ptr<Stream> CreateStream(const char *caller, aclError *status);

// Waits for and drops every stream of the device context (the caller must not hold the lock).
void ReleaseDeviceContext(std::unique_lock<std::mutex> &lock);

}  // namespace aclhost
