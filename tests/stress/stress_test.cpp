// Eight threads, each with its own stream, each running a random program of at least 500 mixed
// operations (forward and backward operator calls of random shapes and dtypes, sometimes in
// place, the backward reading the statistics the forward wrote; async copies and memsets between
// buffers, events, synchronisations, a deliberately bad call) whose results depend on the order of
// the stream. Every thread's final buffers must equal, bit for bit, the same program run alone.
// Each program ends by destroying its stream with work still queued: that must wait for the work.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "test_seed.h"

namespace {

constexpr int kThreads = 8;
constexpr int kOperations = 600;
constexpr int kSlots = 4;
constexpr size_t kSlotBytes = 64 * 300 * 4;  // the largest operand: 64 x 300 FLOAT
constexpr size_t kVectorBytes = 300 * 4;

struct Buffers {
  void *slots[kSlots] = {};
  void *grad_weight = nullptr;
  void *grad_bias = nullptr;
  void *weight = nullptr;
  void *mean = nullptr;
  void *rstd = nullptr;
};

void *Malloc(size_t bytes) {
  void *memory = nullptr;
  EXPECT_EQ(aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  return memory;
}

aclTensor *Tensor(const std::vector<int64_t> &dims, aclDataType dtype, void *data) {
  int64_t count = 1;
  for (const int64_t dim : dims) count *= dim;
  return aclCreateTensor(dims.data(), dims.size(), dtype, nullptr, 0, ACL_FORMAT_ND, &count, 1, data);
}

// One program: what thread `index` does, drawn from its own seed, so it can be replayed alone.
class Program {
 public:
  Program(uint64_t seed, int index) : random_(seed * 1000003 + static_cast<uint64_t>(index)), index_(index) {}

  // Runs every operation on a new stream of the calling thread; returns the final bytes of every
  // buffer the program wrote.
  std::vector<uint8_t> Run() {
    Buffers buffers = Allocate();
    aclrtStream stream = nullptr;
    EXPECT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    aclrtEvent event = nullptr;
    EXPECT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
    for (int op = 0; op < kOperations; ++op) Step(buffers, stream, event, op);
    // Queued work is still pending here: destroying the stream must wait for it.
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
    for (void *workspace : pending_workspaces_) aclrtFree(workspace);
    pending_workspaces_.clear();
    std::vector<uint8_t> result;
    auto append = [&result](const void *memory, size_t bytes) {
      const uint8_t *begin = static_cast<const uint8_t *>(memory);
      result.insert(result.end(), begin, begin + bytes);
    };
    for (void *slot : buffers.slots) append(slot, kSlotBytes);
    append(buffers.grad_weight, kVectorBytes);
    append(buffers.grad_bias, kVectorBytes);
    Free(buffers);
    return result;
  }

  int operator_calls() const { return operator_calls_; }

 private:
  size_t Uniform(size_t low, size_t high) { return std::uniform_int_distribution<size_t>(low, high)(random_); }

  Buffers Allocate() {
    Buffers buffers;
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> values(kSlotBytes / 4);
    for (void *&slot : buffers.slots) {
      slot = Malloc(kSlotBytes);
      for (float &value : values) value = normal(random_);
      EXPECT_EQ(aclrtMemcpy(slot, kSlotBytes, values.data(), kSlotBytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    }
    buffers.grad_weight = Malloc(kVectorBytes);
    buffers.grad_bias = Malloc(kVectorBytes);
    buffers.weight = Malloc(kVectorBytes);
    buffers.mean = Malloc(64 * 4);
    buffers.rstd = Malloc(64 * 4);
    for (void *vector : {buffers.grad_weight, buffers.grad_bias, buffers.weight}) {
      for (size_t i = 0; i < kVectorBytes / 4; ++i) static_cast<float *>(vector)[i] = normal(random_);
    }
    for (int m = 0; m < 64; ++m) {
      static_cast<float *>(buffers.mean)[m] = normal(random_);
      static_cast<float *>(buffers.rstd)[m] = 0.5f + std::abs(normal(random_));
    }
    return buffers;
  }

  static void Free(Buffers &buffers) {
    for (void *slot : buffers.slots) aclrtFree(slot);
    for (void *memory : {buffers.grad_weight, buffers.grad_bias, buffers.weight, buffers.mean, buffers.rstd}) {
      aclrtFree(memory);
    }
  }

  void Step(Buffers &buffers, aclrtStream stream, aclrtEvent event, int op) {
    const size_t choice = Uniform(0, 99);
    if (choice < 15) {
      LayerNorm(buffers, stream);
    } else if (choice < 40) {
      LayerNormBackward(buffers, stream);
    } else if (choice < 60) {
      const size_t from = Uniform(0, kSlots - 1), to = (from + Uniform(1, kSlots - 1)) % kSlots;
      const size_t bytes = Uniform(1, kSlotBytes);
      EXPECT_EQ(aclrtMemcpyAsync(buffers.slots[to], kSlotBytes, buffers.slots[from], bytes,
                                 ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
                ACL_SUCCESS);
    } else if (choice < 75) {
      // Bytes that read as small numbers in every dtype, so operator results stay finite.
      const int32_t value = static_cast<int32_t>(Uniform(0x30, 0x3C));
      const size_t at = Uniform(0, kSlotBytes - 1);
      EXPECT_EQ(aclrtMemsetAsync(static_cast<char *>(buffers.slots[Uniform(0, kSlots - 1)]) + at, kSlotBytes - at, value,
                                 Uniform(0, kSlotBytes - at), stream),
                ACL_SUCCESS);
    } else if (choice < 85) {
      EXPECT_EQ(aclrtRecordEvent(event, stream), ACL_SUCCESS);
      EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
    } else if (choice < 95) {
      EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
      for (void *workspace : pending_workspaces_) aclrtFree(workspace);
      pending_workspaces_.clear();
    } else {
      BadCallLeavesThisThreadsMessage(buffers, op);
    }
  }

  // A rejected memset whose message carries numbers unique to this thread and operation: under
  // load, this thread must read back exactly its own message.
  void BadCallLeavesThisThreadsMessage(Buffers &buffers, int op) {
    const size_t max_count = 1000 + static_cast<size_t>(index_), count = 100000 + static_cast<size_t>(op);
    EXPECT_EQ(aclrtMemset(buffers.slots[0], max_count, 0, count), ACL_ERROR_RT_PARAM_INVALID);
    const char *message = aclGetRecentErrMsg();
    ASSERT_NE(message, nullptr);
    const std::string expected = "count " + std::to_string(count) + " exceeds maxCount " + std::to_string(max_count);
    EXPECT_NE(std::string(message).find(expected), std::string::npos) << message;
    EXPECT_EQ(std::string(message).find('\n'), std::string::npos) << "another message came along: " << message;
  }

  // The forward from one slot into another, its mean and rstd into the buffers the backward reads.
  void LayerNorm(Buffers &buffers, aclrtStream stream) {
    static const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    const aclDataType dtype = kDtypes[Uniform(0, 2)];
    const int64_t rows = static_cast<int64_t>(Uniform(1, 64)), cols = static_cast<int64_t>(Uniform(1, 300));
    const size_t input = Uniform(0, kSlots - 1);
    const size_t out = Uniform(0, 3) == 0 ? input : (input + Uniform(1, kSlots - 1)) % kSlots;  // sometimes in place
    aclTensor *tensors[] = {Tensor({rows, cols}, dtype, buffers.slots[input]), Tensor({rows, cols}, dtype, buffers.slots[out]),
                            Tensor({rows, 1}, ACL_FLOAT, buffers.mean), Tensor({rows, 1}, ACL_FLOAT, buffers.rstd)};
    const int64_t normalized_values[] = {cols};
    aclIntArray *normalized = aclCreateIntArray(normalized_values, 1);
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnLayerNormGetWorkspaceSize(tensors[0], normalized, nullptr, nullptr, 1e-5, tensors[1], tensors[2],
                                             tensors[3], &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    for (aclTensor *tensor : tensors) aclDestroyTensor(tensor);
    aclDestroyIntArray(normalized);
    Launch(aclnnLayerNorm, workspace_size, executor, stream);
  }

  // Phase 2 with a workspace that lives until the stream is known to be past this call.
  void Launch(aclnnStatus (*run)(void *, uint64_t, aclOpExecutor *, aclrtStream), uint64_t workspace_size,
              aclOpExecutor *executor, aclrtStream stream) {
    void *workspace = workspace_size > 0 ? Malloc(workspace_size) : nullptr;
    if (workspace != nullptr) pending_workspaces_.push_back(workspace);
    EXPECT_EQ(run(workspace, workspace_size, executor, stream), ACLNN_SUCCESS);
    ++operator_calls_;
  }

  void LayerNormBackward(Buffers &buffers, aclrtStream stream) {
    static const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    const aclDataType dtype = kDtypes[Uniform(0, 2)];
    const int64_t rows = static_cast<int64_t>(Uniform(1, 64)), cols = static_cast<int64_t>(Uniform(1, 300));
    const size_t grad_out = Uniform(0, kSlots - 1), input = (grad_out + Uniform(1, kSlots - 1)) % kSlots;
    // The output: a third slot, or in place over input.
    size_t grad_input = Uniform(0, 3) == 0 ? input : (input + 1) % kSlots;
    if (grad_input == grad_out) grad_input = (grad_input + 1) % kSlots;
    if (grad_input == grad_out) grad_input = (grad_input + 1) % kSlots;
    const bool with_weight = Uniform(0, 1) == 1;
    aclTensor *tensors[] = {
        Tensor({rows, cols}, dtype, buffers.slots[grad_out]),
        Tensor({rows, cols}, dtype, buffers.slots[input]),
        Tensor({rows, 1}, ACL_FLOAT, buffers.mean),
        Tensor({rows, 1}, ACL_FLOAT, buffers.rstd),
        with_weight ? Tensor({cols}, ACL_FLOAT, buffers.weight) : nullptr,
        Tensor({rows, cols}, dtype, buffers.slots[grad_input]),
        Tensor({cols}, ACL_FLOAT, buffers.grad_weight),
        Tensor({cols}, ACL_FLOAT, buffers.grad_bias),
    };
    const int64_t normalized_values[] = {cols};
    aclIntArray *normalized = aclCreateIntArray(normalized_values, 1);
    const bool mask_values[] = {true, Uniform(0, 1) == 1, Uniform(0, 1) == 1};
    aclBoolArray *mask = aclCreateBoolArray(mask_values, 3);
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(tensors[0], tensors[1], normalized, tensors[2], tensors[3], tensors[4],
                                                     nullptr, mask, tensors[5], tensors[6], tensors[7], &workspace_size,
                                                     &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    for (aclTensor *tensor : tensors) aclDestroyTensor(tensor);
    aclDestroyIntArray(normalized);
    aclDestroyBoolArray(mask);
    Launch(aclnnLayerNormBackward, workspace_size, executor, stream);
  }

  std::mt19937_64 random_;
  int index_;
  int operator_calls_ = 0;
  std::vector<void *> pending_workspaces_;
};

class StressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
};

TEST_F(StressTest, EightThreadsWithOwnStreamsMatchTheSerialRunBitForBit) {
  const uint64_t seed = aclhost::testing::TestSeed();
  std::vector<std::vector<uint8_t>> concurrent(kThreads);
  std::vector<int> operator_calls(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);  // every thread selects the device, as CANN requires
      Program program(seed, t);
      concurrent[t] = program.Run();
      operator_calls[t] = program.operator_calls();
      EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    });
  }
  for (std::thread &thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    EXPECT_GT(operator_calls[t], kOperations / 4);
    const std::vector<uint8_t> serial = Program(seed, t).Run();
    ASSERT_EQ(concurrent[t].size(), serial.size());
    EXPECT_TRUE(concurrent[t] == serial) << "the concurrent run differs from the serial one";
  }
}

}  // namespace
