// Device memory is host memory: 64-byte aligned blocks tracked in a registry, so that a pointer
// that did not come from aclrtMalloc is an error code rather than a crash.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

#include "acl/acl.h"
#include "common/caller_enum.h"
#include "runtime/context.h"
#include "runtime/error_log.h"

namespace aclhost {
namespace {

constexpr size_t kAlignment = 64;
// Blocks of at least this size under a huge-page policy are aligned to it and offered to the
// kernel's transparent huge pages: strided and transposed views touch a page per element
// otherwise, and every TLB miss costs a page walk.
constexpr size_t kHugePage = size_t{2} << 20;
constexpr int kLastAcceptedMemcpyKind = ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;

aclError Allocate(const char *caller, const char *parameter, void **pointer, size_t size, bool device, bool huge_pages) {
  if (pointer == nullptr) {
    ReportError(ErrorKind::kRuntime, "%s: %s is NULL; expected a pointer to receive the address", caller, parameter);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (size == 0) {
    ReportError(ErrorKind::kRuntime, "%s: size is 0; expected a positive byte count", caller);
    return ACL_ERROR_INVALID_PARAM;
  }
  RuntimeState &state = GetRuntimeState();
  std::lock_guard<std::mutex> lock(state.mutex);
  const aclError status = device ? CheckDeviceSelected(caller) : CheckInitialised(caller);
  if (status != ACL_SUCCESS) return status;
  if (size > SIZE_MAX - kAlignment) {
    ReportError(ErrorKind::kRuntime, "%s: size %zu is larger than any allocation can be", caller, size);
    return ACL_ERROR_RT_MEMORY_ALLOCATION;
  }
  const size_t alignment = huge_pages && size >= kHugePage && size <= SIZE_MAX - kHugePage ? kHugePage : kAlignment;
  const size_t rounded = (size + alignment - 1) / alignment * alignment;
  void *block = std::aligned_alloc(alignment, rounded);
  if (block != nullptr && alignment == kHugePage) madvise(block, rounded, MADV_HUGEPAGE);  // advice only: may be refused
  if (block == nullptr) {
    ReportError(ErrorKind::kRuntime, "%s: out of memory allocating %zu bytes", caller, size);
    return ACL_ERROR_RT_MEMORY_ALLOCATION;
  }
  (device ? state.device_allocations : state.host_allocations).emplace(block, size);
  *pointer = block;
  return ACL_SUCCESS;
}

aclError Release(const char *caller, void *pointer, bool device) {
  const char *origin = device ? "aclrtMalloc" : "aclrtMallocHost";
  if (pointer == nullptr) {
    ReportError(ErrorKind::kRuntime, "%s: pointer is NULL; expected an address from %s", caller, origin);
    return ACL_ERROR_INVALID_PARAM;
  }
  RuntimeState &state = GetRuntimeState();
  std::lock_guard<std::mutex> lock(state.mutex);
  const aclError status = CheckInitialised(caller);
  if (status != ACL_SUCCESS) return status;
  auto &registry = device ? state.device_allocations : state.host_allocations;
  if (registry.erase(pointer) == 0) {
    ReportError(ErrorKind::kRuntime, "%s: %p is not a live address from %s (freed twice, or foreign memory)", caller, pointer, origin);
    return ACL_ERROR_RT_PARAM_INVALID;
  }
  std::free(pointer);
  return ACL_SUCCESS;
}

// The checks aclrtMemcpy and aclrtMemcpyAsync share, in upstream order (count 0 wins).
aclError CheckMemcpy(const char *caller, void *dst, size_t destMax, const void *src, size_t count, int kind) {
  if (dst == nullptr) {
    ReportError(ErrorKind::kRuntime, "%s: dst is NULL; expected a destination address", caller);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (src == nullptr) {
    ReportError(ErrorKind::kRuntime, "%s: src is NULL; expected a source address", caller);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > kLastAcceptedMemcpyKind) {
    ReportError(ErrorKind::kRuntime, "%s: kind %d is not a supported aclrtMemcpyKind; expected 0..%d", caller, kind, kLastAcceptedMemcpyKind);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count > destMax) {
    ReportError(ErrorKind::kRuntime, "%s: count %zu exceeds destMax %zu; expected count <= destMax", caller, count, destMax);
    return ACL_ERROR_RT_PARAM_INVALID;
  }
  return ACL_SUCCESS;
}

aclError CheckMemset(const char *caller, void *devPtr, size_t maxCount, size_t count) {
  if (devPtr == nullptr) {
    ReportError(ErrorKind::kRuntime, "%s: devPtr is NULL; expected a destination address", caller);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count > maxCount) {
    ReportError(ErrorKind::kRuntime, "%s: count %zu exceeds maxCount %zu; expected count <= maxCount", caller, count, maxCount);
    return ACL_ERROR_RT_PARAM_INVALID;
  }
  return ACL_SUCCESS;
}

aclError CheckRuntimeInitialised(const char *caller) {
  std::lock_guard<std::mutex> lock(GetRuntimeState().mutex);
  return CheckInitialised(caller);
}

}  // namespace
}  // namespace aclhost

using aclhost::ErrorKind;
using aclhost::ReportError;

extern "C" {

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  const int requested = aclhost::CallerInt(policy);
  const bool huge_pages = requested != ACL_MEM_MALLOC_NORMAL_ONLY && requested != ACL_MEM_MALLOC_NORMAL_ONLY_P2P;
  return aclhost::Allocate("aclrtMalloc", "devPtr", devPtr, size, true, huge_pages);
}

aclError aclrtFree(void *devPtr) { return aclhost::Release("aclrtFree", devPtr, true); }

aclError aclrtMallocHost(void **hostPtr, size_t size) {
  return aclhost::Allocate("aclrtMallocHost", "hostPtr", hostPtr, size, false, false);
}

aclError aclrtFreeHost(void *hostPtr) { return aclhost::Release("aclrtFreeHost", hostPtr, false); }

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
  if (count == 0) return ACL_SUCCESS;
  aclError status = aclhost::CheckMemcpy("aclrtMemcpy", dst, destMax, src, count, aclhost::CallerInt(kind));
  if (status != ACL_SUCCESS) return status;
  status = aclhost::CheckRuntimeInitialised("aclrtMemcpy");
  if (status != ACL_SUCCESS) return status;
  if (dst != src) std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  if (count == 0) return ACL_SUCCESS;
  const aclError status = aclhost::CheckMemcpy("aclrtMemcpyAsync", dst, destMax, src, count, aclhost::CallerInt(kind));
  if (status != ACL_SUCCESS) return status;
  return aclhost::EnqueueOnStream(stream, [dst, src, count] {
    if (dst != src) std::memmove(dst, src, count);
    return ACL_SUCCESS;
  }, "aclrtMemcpyAsync");
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
  if (count == 0) return ACL_SUCCESS;
  aclError status = aclhost::CheckMemset("aclrtMemset", devPtr, maxCount, count);
  if (status != ACL_SUCCESS) return status;
  status = aclhost::CheckRuntimeInitialised("aclrtMemset");
  if (status != ACL_SUCCESS) return status;
  std::memset(devPtr, static_cast<uint8_t>(value), count);
  return ACL_SUCCESS;
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
  if (count == 0) return ACL_SUCCESS;
  const aclError status = aclhost::CheckMemset("aclrtMemsetAsync", devPtr, maxCount, count);
  if (status != ACL_SUCCESS) return status;
  return aclhost::EnqueueOnStream(stream, [devPtr, value, count] {
    std::memset(devPtr, static_cast<uint8_t>(value), count);
    return ACL_SUCCESS;
  }, "aclrtMemsetAsync");
}

}  // extern "C"
