#include "runtime/context.h"

#include <cstdio>
#include <new>
#include <system_error>
#include <fstream>
#include <sstream>
#include <vector>

#include "acl/acl.h"
#include "acl/error_codes/rt_error_codes.h"
#include "runtime/error_log.h"

namespace aclhost {
namespace {

constexpr int32_t kDeviceCount = 1;

// The device generation this thread selected device 0 in; 0 = none.
thread_local uint64_t selected_device_generation = 0;

bool DeviceSelectedOnThisThread(const RuntimeState &state) {
  return state.device_refcount > 0 && selected_device_generation == state.device_generation;
}

// aclInit accepts no file, or a readable file holding nothing or one JSON object.
aclError CheckConfigFile(const char *path) {
  std::ifstream file(path);
  if (!file) {
    ReportError(ErrorKind::kRuntime, "aclInit: configPath \"%s\" cannot be opened; expected a readable JSON file or NULL", path);
    return ACL_ERROR_INVALID_FILE;
  }
  std::stringstream content;
  content << file.rdbuf();
  const std::string text = content.str();
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return ACL_SUCCESS;
  const size_t last = text.find_last_not_of(" \t\r\n");
  if (text[first] != '{' || text[last] != '}') {
    ReportError(ErrorKind::kRuntime, "aclInit: configPath \"%s\" does not hold a JSON object", path);
    return ACL_ERROR_PARSE_FILE;
  }
  return ACL_SUCCESS;
}

}  // namespace

RuntimeState &GetRuntimeState() {
  // Never destroyed: worker threads and atexit handlers may still reach it during shutdown.
  static RuntimeState *state = new RuntimeState;
  return *state;
}

aclError CheckInitialised(const char *caller) {
  if (GetRuntimeState().phase == RuntimeState::Phase::kInitialised) return ACL_SUCCESS;
  ReportError(ErrorKind::kRuntime, "%s: the runtime is not initialised; call aclInit first", caller);
  return ACL_ERROR_UNINITIALIZE;
}

aclError CheckDeviceSelected(const char *caller) {
  const aclError status = CheckInitialised(caller);
  if (status != ACL_SUCCESS) return status;
  if (DeviceSelectedOnThisThread(GetRuntimeState())) return ACL_SUCCESS;
  ReportError(ErrorKind::kRuntime, "%s: no device context on this thread; call aclrtSetDevice(0) first", caller);
  return ACL_ERROR_RT_CONTEXT_NULL;
}

aclError LookUpStream(aclrtStream handle, const char *caller, std::shared_ptr<Stream> *stream) {
  RuntimeState &state = GetRuntimeState();
  const aclError status = CheckInitialised(caller);
  if (status != ACL_SUCCESS) return status;
  if (handle == nullptr) {
    if (state.device_refcount == 0 || !state.default_stream) {
      ReportError(ErrorKind::kRuntime, "%s: stream is NULL (the default stream) but no device is set; call aclrtSetDevice(0) first", caller);
      return ACL_ERROR_RT_CONTEXT_NULL;
    }
    *stream = state.default_stream;
    return ACL_SUCCESS;
  }
  const auto found = state.streams.find(handle);
  if (found == state.streams.end()) {
    ReportError(ErrorKind::kRuntime, "%s: stream %p is not a live stream from aclrtCreateStream", caller, handle);
    return ACL_ERROR_RT_INVALID_HANDLE;
  }
  *stream = found->second;
  return ACL_SUCCESS;
}

void ReleaseDeviceContext(std::unique_lock<std::mutex> &lock) {
  RuntimeState &state = GetRuntimeState();
  std::vector<std::shared_ptr<Stream>> doomed;
  for (auto &entry : state.streams) doomed.push_back(std::move(entry.second));
  state.streams.clear();
  if (state.default_stream) doomed.push_back(std::move(state.default_stream));
  state.device_refcount = 0;
  ++state.device_generation;
  lock.unlock();
  doomed.clear();  // each destructor drains its queue
  lock.lock();
}

namespace {

// LookUpStream under the runtime's lock, for work about to be run or queued on the stream.
aclError StreamForWork(aclrtStream handle, const char *caller, std::shared_ptr<Stream> *stream) {
  std::lock_guard<std::mutex> lock(GetRuntimeState().mutex);
  return LookUpStream(handle, caller, stream);
}

}  // namespace

aclError EnqueueOnStream(aclrtStream handle, StreamTask task, const char *caller) {
  std::shared_ptr<Stream> stream;
  const aclError status = StreamForWork(handle, caller, &stream);
  if (status != ACL_SUCCESS) return status;
  try {
    stream->Enqueue(std::move(task));
  } catch (const std::bad_alloc &) {
    ReportError(ErrorKind::kRuntime, "%s: out of memory queueing work on stream %p", caller, handle);
    return ACL_ERROR_RT_MEMORY_ALLOCATION;
  }
  return ACL_SUCCESS;
}

aclError RunOnStreamIfIdle(aclrtStream handle, InlineTask task, void *context, const char *caller, bool *ran) {
  std::shared_ptr<Stream> stream;
  const aclError status = StreamForWork(handle, caller, &stream);
  if (status != ACL_SUCCESS) return status;
  *ran = stream->RunIfIdle(task, context);
  return ACL_SUCCESS;
}

std::shared_ptr<Stream> CreateStream(const char *caller, aclError *status) {
  try {
    return std::make_shared<Stream>();
  } catch (const std::bad_alloc &) {
    ReportError(ErrorKind::kRuntime, "%s: out of memory creating a stream", caller);
    *status = ACL_ERROR_RT_MEMORY_ALLOCATION;
  } catch (const std::system_error &error) {
    ReportError(ErrorKind::kRuntime, "%s: cannot start the stream's worker thread: %s", caller, error.what());
    *status = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
  }
  return nullptr;
}

}  // namespace aclhost

using aclhost::ErrorKind;
using aclhost::GetRuntimeState;
using aclhost::ReportError;
using aclhost::RuntimeState;

extern "C" {

aclError aclInit(const char *configPath) {
  if (configPath != nullptr) {
    const aclError status = aclhost::CheckConfigFile(configPath);
    if (status != ACL_SUCCESS) return status;
  }
  RuntimeState &state = GetRuntimeState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.phase == RuntimeState::Phase::kInitialised) {
    ReportError(ErrorKind::kRuntime, "aclInit: already initialised (harmless; aclFinalize releases everything once)");
    return ACL_ERROR_REPEAT_INITIALIZE;
  }
  state.phase = RuntimeState::Phase::kInitialised;
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  RuntimeState &state = GetRuntimeState();
  std::unique_lock<std::mutex> lock(state.mutex);
  if (state.phase == RuntimeState::Phase::kFinalised) {
    ReportError(ErrorKind::kRuntime, "aclFinalize: already finalised; call aclInit before finalising again");
    return ACL_ERROR_REPEAT_FINALIZE;
  }
  if (state.phase == RuntimeState::Phase::kNeverInitialised) return ACL_SUCCESS;
  aclhost::ReleaseDeviceContext(lock);
  state.events.clear();
  // Memory the caller forgot to free goes with the runtime.
  for (auto &entry : state.device_allocations) std::free(entry.first);
  for (auto &entry : state.host_allocations) std::free(entry.first);
  state.device_allocations.clear();
  state.host_allocations.clear();
  state.phase = RuntimeState::Phase::kFinalised;
  return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId) {
  RuntimeState &state = GetRuntimeState();
  std::lock_guard<std::mutex> lock(state.mutex);
  aclError status = aclhost::CheckInitialised("aclrtSetDevice");
  if (status != ACL_SUCCESS) return status;
  if (deviceId < 0 || deviceId >= aclhost::kDeviceCount) {
    ReportError(ErrorKind::kRuntime, "aclrtSetDevice: deviceId %d is out of range; expected 0 (aclrtGetDeviceCount reports %d)", deviceId, aclhost::kDeviceCount);
    return ACL_ERROR_RT_INVALID_DEVICEID;
  }
  if (state.device_refcount == 0) {
    state.default_stream = aclhost::CreateStream("aclrtSetDevice", &status);
    if (!state.default_stream) return status;
  }
  ++state.device_refcount;
  aclhost::selected_device_generation = state.device_generation;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  RuntimeState &state = GetRuntimeState();
  std::unique_lock<std::mutex> lock(state.mutex);
  aclError status = aclhost::CheckInitialised("aclrtResetDevice");
  if (status != ACL_SUCCESS) return status;
  if (deviceId < 0 || deviceId >= aclhost::kDeviceCount) {
    ReportError(ErrorKind::kRuntime, "aclrtResetDevice: deviceId %d is out of range; expected 0", deviceId);
    return ACL_ERROR_RT_INVALID_DEVICEID;
  }
  if (state.device_refcount == 0) return ACL_SUCCESS;  // nothing to release
  if (--state.device_refcount == 0) aclhost::ReleaseDeviceContext(lock);
  return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *deviceId) {
  if (deviceId == nullptr) {
    ReportError(ErrorKind::kRuntime, "aclrtGetDevice: deviceId is NULL; expected a pointer to an int32_t");
    return ACL_ERROR_INVALID_PARAM;
  }
  RuntimeState &state = GetRuntimeState();
  std::lock_guard<std::mutex> lock(state.mutex);
  const aclError status = aclhost::CheckDeviceSelected("aclrtGetDevice");
  if (status != ACL_SUCCESS) return status;
  *deviceId = 0;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count) {
  if (count == nullptr) {
    ReportError(ErrorKind::kRuntime, "aclrtGetDeviceCount: count is NULL; expected a pointer to a uint32_t");
    return ACL_ERROR_INVALID_PARAM;
  }
  *count = static_cast<uint32_t>(aclhost::kDeviceCount);
  return ACL_SUCCESS;
}

aclError aclrtGetRunMode(aclrtRunMode *runMode) {
  if (runMode == nullptr) {
    ReportError(ErrorKind::kRuntime, "aclrtGetRunMode: runMode is NULL; expected a pointer to an aclrtRunMode");
    return ACL_ERROR_INVALID_PARAM;
  }
  *runMode = ACL_HOST;
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream) {
  if (stream == nullptr) {
    ReportError(ErrorKind::kRuntime, "aclrtCreateStream: stream is NULL; expected a pointer to an aclrtStream");
    return ACL_ERROR_INVALID_PARAM;
  }
  RuntimeState &state = GetRuntimeState();
  std::lock_guard<std::mutex> lock(state.mutex);
  aclError status = aclhost::CheckDeviceSelected("aclrtCreateStream");
  if (status != ACL_SUCCESS) return status;
  std::shared_ptr<aclhost::Stream> created = aclhost::CreateStream("aclrtCreateStream", &status);
  if (!created) return status;
  *stream = created.get();
  state.streams.emplace(created.get(), std::move(created));
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  if (stream == nullptr) {
    ReportError(ErrorKind::kRuntime, "aclrtDestroyStream: stream is NULL; expected a stream from aclrtCreateStream");
    return ACL_ERROR_INVALID_PARAM;
  }
  std::shared_ptr<aclhost::Stream> doomed;
  {
    RuntimeState &state = GetRuntimeState();
    std::lock_guard<std::mutex> lock(state.mutex);
    const aclError status = aclhost::LookUpStream(stream, "aclrtDestroyStream", &doomed);
    if (status != ACL_SUCCESS) return status;
    state.streams.erase(stream);
  }
  doomed.reset();  // drains the queue unless a queued task still holds the stream
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  std::shared_ptr<aclhost::Stream> target;
  {
    std::lock_guard<std::mutex> lock(GetRuntimeState().mutex);
    const aclError status = aclhost::LookUpStream(stream, "aclrtSynchronizeStream", &target);
    if (status != ACL_SUCCESS) return status;
  }
  return target->Synchronize();
}

}  // extern "C"
