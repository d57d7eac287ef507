// The host runtime: initialisation, device 0, streams (order, asynchrony, failures), events,
// memory and memcpy rules, and per-thread error messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <cstdint>
#include <cstdio>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "c_caller.h"
#include "runtime/stream.h"

namespace {

std::string TakeMessage() {
  const char *message = aclGetRecentErrMsg();
  return message != nullptr ? message : "";
}

// The runtime initialised with device 0 selected, as every CANN program starts.
class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    }
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }

  // Queues a task that blocks the stream until the returned promise is fulfilled: a way to
  // observe the queue while work is provably still pending, without sleeping.
  std::shared_ptr<std::promise<void>> BlockStream(aclrtStream stream) {
    auto gate = std::make_shared<std::promise<void>>();
    std::shared_future<void> opened = gate->get_future().share();
    const aclError queued = aclhost::EnqueueOnStream(stream, [opened] {
      opened.wait();
      return ACL_SUCCESS;
    }, "test");
    EXPECT_EQ(queued, ACL_SUCCESS);
    return gate;
  }

  void *Malloc(size_t size) {
    void *memory = nullptr;
    EXPECT_EQ(aclrtMalloc(&memory, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    return memory;
  }

  aclrtStream stream_ = nullptr;
};

TEST(RuntimeInit, ReferenceCountingAndRepeatedFinalize) {
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);  // never initialised: nothing to do
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_NE(TakeMessage().find("aclInit"), std::string::npos);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);  // one finalize releases everything
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  EXPECT_NE(TakeMessage().find("aclFinalize"), std::string::npos);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);  // re-initialising is allowed
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(RuntimeInit, ConfigFile) {
  EXPECT_EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
  EXPECT_NE(TakeMessage().find("configPath"), std::string::npos);
  const std::string good = ::testing::TempDir() + "acl_good.json";
  const std::string bad = ::testing::TempDir() + "acl_bad.json";
  std::FILE *file = std::fopen(good.c_str(), "w");
  std::fputs("{}\n", file);
  std::fclose(file);
  file = std::fopen(bad.c_str(), "w");
  std::fputs("not json", file);
  std::fclose(file);
  EXPECT_EQ(aclInit(bad.c_str()), ACL_ERROR_PARSE_FILE);
  ASSERT_EQ(aclInit(good.c_str()), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(RuntimeInit, CallsBeforeInitAndAfterFinalizeFail) {
  void *memory = nullptr;
  aclrtStream stream = nullptr;
  EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtMalloc(&memory, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);
  EXPECT_NE(TakeMessage().find("aclInit"), std::string::npos);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&memory, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  void *host_memory = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host_memory, 64), ACL_SUCCESS);
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event, stream), ACL_SUCCESS);
  // The caller forgets stream, event and memory: aclFinalize releases them all (LeakSanitizer
  // checks this in the asan build).
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtFree(memory), ACL_ERROR_UNINITIALIZE);
}

TEST(RuntimeDevice, OneDeviceSelectedPerThread) {
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  aclrtStream stream = nullptr;
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_NE(TakeMessage().find("aclrtSetDevice"), std::string::npos);
  EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
  // Another thread must select the device itself.
  std::thread([] {
    int32_t other = -1;
    EXPECT_EQ(aclrtGetDevice(&other), ACL_ERROR_RT_CONTEXT_NULL);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtGetDevice(&other), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  }).join();
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  // The last reset releases the context and its streams.
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST_F(RuntimeTest, MallocAlignsAndRejectsBadArguments) {
  void *memory = nullptr;
  EXPECT_EQ(aclrtMalloc(&memory, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeMessage().find("size"), std::string::npos);
  EXPECT_EQ(aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(&memory, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
  for (const size_t size : {1, 3, 64, 1000, 1 << 20}) {
    ASSERT_EQ(aclrtMalloc(&memory, size, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(memory) % 64, 0u);
    EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
  }
}

TEST_F(RuntimeTest, LargeBlocksUnderHugePagePoliciesStartOnAHugePage) {
  constexpr size_t kHugePage = size_t{2} << 20;
  for (const aclrtMemMallocPolicy policy : {ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY}) {
    void *memory = nullptr;
    const size_t size = 3 * kHugePage + 5;
    ASSERT_EQ(aclrtMalloc(&memory, size, policy), ACL_SUCCESS);
    const uintptr_t address = reinterpret_cast<uintptr_t>(memory);
    EXPECT_EQ(address % (policy == ACL_MEM_MALLOC_NORMAL_ONLY ? 64 : kHugePage), 0u) << "policy " << policy;
    std::memset(memory, 0x5A, size);  // every byte asked for is usable
    EXPECT_EQ(static_cast<unsigned char *>(memory)[size - 1], 0x5A);
    EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
  }
}

TEST_F(RuntimeTest, FreeRejectsUnknownAndRepeatedPointers) {
  void *memory = Malloc(128);
  int local = 0;
  EXPECT_EQ(aclrtFree(&local), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(TakeMessage().find("aclrtFree"), std::string::npos);
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(memory), ACL_ERROR_RT_PARAM_INVALID);  // device memory is not host memory
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(memory), ACL_ERROR_RT_PARAM_INVALID);
  void *host = nullptr;
  EXPECT_EQ(aclrtMallocHost(&host, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMallocHost(nullptr, 8), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtMallocHost(&host, 256), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(host), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtFreeHost(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(RuntimeTest, MemcpyRulesInUpstreamOrder) {
  char source[16] = "0123456789abcde";
  char target[16] = {};
  EXPECT_EQ(aclrtMemcpy(nullptr, 0, nullptr, 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);  // count 0 wins
  EXPECT_EQ(aclrtMemcpy(nullptr, 16, source, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeMessage().find("dst"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(target, 16, nullptr, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(target, 16, source, 16, static_cast<aclrtMemcpyKind>(6)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(target, 16, source, 16, static_cast<aclrtMemcpyKind>(-1)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(target, 0, source, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemcpy(target, 15, source, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(TakeMessage().find("destMax"), std::string::npos);
  EXPECT_EQ(std::string(target, 16), std::string(16, '\0'));  // no failed call copied anything
  for (int kind = ACL_MEMCPY_HOST_TO_HOST; kind <= ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE; ++kind) {
    std::fill(target, target + 16, '\0');
    EXPECT_EQ(aclrtMemcpy(target, 16, source, 16, static_cast<aclrtMemcpyKind>(kind)), ACL_SUCCESS);
    EXPECT_EQ(std::string(target, 16), std::string(source, 16));
  }
  EXPECT_EQ(aclrtMemcpy(source, 16, source, 16, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
}

TEST_F(RuntimeTest, MemsetRules) {
  unsigned char bytes[32] = {};
  EXPECT_EQ(aclrtMemset(nullptr, 0, 1, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemset(nullptr, 32, 1, 32), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(bytes, 16, 1, 32), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(TakeMessage().find("maxCount"), std::string::npos);
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(aclrtMemset(bytes, 32, 0x1A7, 20), ACL_SUCCESS);  // only the low byte counts
  EXPECT_EQ(bytes[0], 0xA7);
  EXPECT_EQ(bytes[19], 0xA7);
  EXPECT_EQ(bytes[20], 0);
  EXPECT_EQ(aclrtMemsetAsync(bytes, 16, 1, 32, stream_), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemcpyAsync(bytes, 8, bytes + 16, 16, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemcpyAsync(bytes, 32, bytes, 32, static_cast<aclrtMemcpyKind>(7), stream_), ACL_ERROR_INVALID_PARAM);
}

TEST_F(RuntimeTest, StreamRunsWorkInSubmissionOrder) {
  const size_t size = 1 << 16;
  char *a = static_cast<char *>(Malloc(size));
  std::vector<char *> copies;
  for (int round = 0; round < 50; ++round) {
    copies.push_back(static_cast<char *>(Malloc(size)));
    ASSERT_EQ(aclrtMemsetAsync(a, size, round, size, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpyAsync(copies.back(), size, a, size, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_), ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (int round = 0; round < 50; ++round) {
    EXPECT_EQ(copies[round][0], static_cast<char>(round));
    EXPECT_EQ(copies[round][size - 1], static_cast<char>(round));
    aclrtFree(copies[round]);
  }
  aclrtFree(a);
}

TEST_F(RuntimeTest, StreamWorkIsAsynchronousAndOffTheCallersThread) {
  char *memory = static_cast<char *>(Malloc(64));
  std::memset(memory, 0, 64);
  std::promise<std::thread::id> worker_id;
  ASSERT_EQ(aclhost::EnqueueOnStream(stream_, [&worker_id] {
    worker_id.set_value(std::this_thread::get_id());
    return ACL_SUCCESS;
  }, "test"), ACL_SUCCESS);
  EXPECT_NE(worker_id.get_future().get(), std::this_thread::get_id());

  auto gate = BlockStream(stream_);
  ASSERT_EQ(aclrtMemsetAsync(memory, 64, 7, 64, stream_), ACL_SUCCESS);  // returns while blocked
  EXPECT_EQ(memory[0], 0);
  gate->set_value();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(memory[63], 7);
  aclrtFree(memory);
}

TEST_F(RuntimeTest, SynchronizeReportsQueuedFailureOnceAndTheStreamGoesOn) {
  ASSERT_EQ(aclhost::EnqueueOnStream(stream_, [] { return ACL_ERROR_RT_MEMORY_ALLOCATION; }, "test"), ACL_SUCCESS);
  char byte = 0;
  ASSERT_EQ(aclrtMemsetAsync(&byte, 1, 3, 1, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_NE(TakeMessage().find("aclrtSynchronizeStream"), std::string::npos);
  EXPECT_EQ(byte, 3);  // later work still ran
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
}

// The fault path: queued work whose allocation fails (a task that throws std::bad_alloc, as
// operator new does) or that throws anything else fails with a code at the next
// synchronisation; the worker survives and the stream keeps working.
TEST_F(RuntimeTest, QueuedWorkThatThrowsFailsAtSynchronizeAndTheStreamGoesOn) {
  ASSERT_EQ(aclhost::EnqueueOnStream(stream_, []() -> aclError { throw std::bad_alloc(); }, "test"), ACL_SUCCESS);
  char byte = 0;
  ASSERT_EQ(aclrtMemsetAsync(&byte, 1, 4, 1, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_NE(TakeMessage().find("out of memory"), std::string::npos);
  EXPECT_EQ(byte, 4);

  ASSERT_EQ(aclhost::EnqueueOnStream(stream_, []() -> aclError { throw std::runtime_error("disk on fire"); }, "test"),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_INTERNAL_ERROR);
  EXPECT_NE(TakeMessage().find("disk on fire"), std::string::npos);

  ASSERT_EQ(aclrtMemsetAsync(&byte, 1, 5, 1, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(byte, 5);
  EXPECT_EQ(TakeMessage(), "");
}

TEST_F(RuntimeTest, DefaultStreamIsNull) {
  char bytes[8] = {};
  ASSERT_EQ(aclrtMemsetAsync(bytes, 8, 5, 8, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(bytes[7], 5);
}

TEST_F(RuntimeTest, StreamHandlesAreValidated) {
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
  int not_a_stream = 0;
  EXPECT_EQ(aclrtSynchronizeStream(&not_a_stream), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_NE(TakeMessage().find("aclrtSynchronizeStream"), std::string::npos);
  char byte = 0;
  EXPECT_EQ(aclrtMemsetAsync(&byte, 1, 1, 1, &not_a_stream), ACL_ERROR_RT_INVALID_HANDLE);
  aclrtStream extra = nullptr;
  ASSERT_EQ(aclrtCreateStream(&extra), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(extra), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(extra), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtSynchronizeStream(extra), ACL_ERROR_RT_INVALID_HANDLE);
}

TEST_F(RuntimeTest, DestroyingAStreamWaitsForItsWork) {
  aclrtStream extra = nullptr;
  ASSERT_EQ(aclrtCreateStream(&extra), ACL_SUCCESS);
  auto gate = BlockStream(extra);
  std::atomic<bool> ran{false};
  ASSERT_EQ(aclhost::EnqueueOnStream(extra, [&ran] {
    ran = true;
    return ACL_SUCCESS;
  }, "test"), ACL_SUCCESS);
  std::thread opener([gate] { gate->set_value(); });
  EXPECT_EQ(aclrtDestroyStream(extra), ACL_SUCCESS);
  opener.join();
  EXPECT_TRUE(ran);
}

TEST_F(RuntimeTest, EventsMarkStreamPositions) {
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&end), ACL_SUCCESS);
  float ms = -1;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);  // never recorded
  ASSERT_EQ(aclrtRecordEvent(start, stream_), ACL_SUCCESS);
  auto gate = BlockStream(stream_);
  ASSERT_EQ(aclrtRecordEvent(end, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_NOT_COMPLETE);  // end is behind the gate
  EXPECT_NE(TakeMessage().find("endEvent"), std::string::npos);
  gate->set_value();
  EXPECT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(aclrtEventElapsedTime(nullptr, start, end), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, nullptr, end), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtRecordEvent(nullptr, stream_), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtSynchronizeEvent(start), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(RuntimeTest, RecordOnDefaultStreamAndOnBadStream) {
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  EXPECT_EQ(aclrtRecordEvent(event, nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
  int not_a_stream = 0;
  EXPECT_EQ(aclrtRecordEvent(event, &not_a_stream), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);  // the failed record leaves no waiter hanging
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(RuntimeTest, ErrorMessagesArePerThreadAndDrainOnRead) {
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  std::thread([] {
    EXPECT_EQ(aclGetRecentErrMsg(), nullptr);  // this thread has not failed yet
    EXPECT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(TakeMessage().find("aclrtGetDeviceCount"), std::string::npos);
  }).join();
  const std::string message = TakeMessage();
  EXPECT_NE(message.find("aclrtFree"), std::string::npos);
  EXPECT_EQ(message.find("aclrtGetDeviceCount"), std::string::npos);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);  // nothing new since the last read
}

// A synchronising caller may run the queued work itself (rather than wait for the worker): the
// work's messages still reach it only through the synchronisation's failure, and messages the
// caller had pending before stay its own, in their place. Rounds, since who runs the task races.
TEST_F(RuntimeTest, QueuedWorkKeepsItsMessagesApartFromTheSynchronisingCallers) {
  for (int round = 0; round < 20; ++round) {
    EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);  // a message pending on this thread
    ASSERT_EQ(aclhost::EnqueueOnStream(stream_, []() -> aclError { throw std::runtime_error("disk on fire"); }, "test"),
              ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_INTERNAL_ERROR);
    const std::string message = TakeMessage();
    const size_t own = message.find("aclrtFree"), sync = message.find("aclrtSynchronizeStream"),
                 work = message.find("disk on fire");
    ASSERT_NE(own, std::string::npos) << message;
    ASSERT_NE(sync, std::string::npos) << message;
    ASSERT_NE(work, std::string::npos) << message;
    EXPECT_LT(own, sync) << message;  // its own line, before the synchronisation's
    EXPECT_LT(sync, work) << message;
    EXPECT_EQ(message.find("aclrtFree", own + 1), std::string::npos) << message;
  }
}

// A C caller may pass any int as an enum: refused with a code and a message, never undefined
// behaviour inside the library.
TEST(CCallers, EnumArgumentsOutsideTheirRange) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  for (const int kind : {-1, 6, 1000, -70000}) {
    EXPECT_EQ(CCallerMemcpyStatus(kind), ACL_ERROR_INVALID_PARAM) << kind;
    EXPECT_NE(TakeMessage().find("kind"), std::string::npos);
  }
  EXPECT_EQ(CCallerMemcpyStatus(ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(CCallerDataTypeSize(1000), 8u);  // the runtime's table: 8 for values it does not know
  EXPECT_EQ(CCallerDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(CCallerCreatesTensor(1000, ACL_FORMAT_ND), 0);
  EXPECT_NE(TakeMessage().find("dataType"), std::string::npos);
  EXPECT_EQ(CCallerCreatesTensor(ACL_FLOAT, -5000), 0);
  EXPECT_NE(TakeMessage().find("format"), std::string::npos);
  EXPECT_EQ(CCallerCreatesTensor(5, 63), 1);  // no enumerator, but within the enums' range
}

TEST(RuntimeHelpers, DataTypeSizesAndHalfConversions) {
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX128), 16u);
  EXPECT_EQ(aclDataTypeSize(ACL_STRING), 0u);
  EXPECT_EQ(aclDataTypeSize(ACL_DT_UNDEFINED), 0u);
  EXPECT_EQ(aclFloat16ToFloat(0x3C00), 1.0f);
  EXPECT_EQ(aclFloat16ToFloat(0xC000), -2.0f);
  EXPECT_EQ(aclFloat16ToFloat(0x7C00), 65536.0f);  // CANN saturates Inf
  EXPECT_EQ(aclFloat16ToFloat(0x7E00), 98304.0f);
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3C00);
  EXPECT_EQ(aclFloatToFloat16(1.0f + 0x1p-11f), 0x3C00);  // a tie rounds to even
  EXPECT_EQ(aclFloatToFloat16(1.0f + 3 * 0x1p-11f), 0x3C02);
  EXPECT_EQ(aclFloatToFloat16(1e9f), 0x7BFF);  // finite overflow saturates as well
  EXPECT_EQ(aclFloatToFloat16(-1e9f), 0xFBFF);
  EXPECT_EQ(aclFloatToFloat16(-INFINITY), 0xFBFF);
  EXPECT_EQ(aclFloatToFloat16(NAN), 0x7BFF);
}

}  // namespace
