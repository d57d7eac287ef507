// Heap allocations of a small call sequence, counted by replacing the global operator new in this
// binary (the libraries allocate through it too): what docs/PERFORMANCE.md states (Design, "No
// heap allocation in the kernels") as bounds, so that a change which adds allocations per call (a
// plan copying views, a container built per call) fails here. Not in sanitizer builds, whose
// runtime replaces operator new itself.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

namespace {

std::atomic<bool> counting{false};
std::atomic<int64_t> allocations{0};

void *Allocate(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void *memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}

}  // namespace

void *operator new(std::size_t size) { return Allocate(size); }
void *operator new[](std::size_t size) { return Allocate(size); }
void operator delete(void *memory) noexcept { std::free(memory); }
void operator delete[](void *memory) noexcept { std::free(memory); }
void operator delete(void *memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void *memory, std::size_t) noexcept { std::free(memory); }

namespace {

constexpr int kCalls = 20;

// Allocations made while `step` runs.
template <typename Step>
int64_t Count(Step step) {
  allocations = 0;
  counting = true;
  step();
  counting = false;
  return allocations.load();
}

// kCalls call sequences after two that warm up (lazily built runtime state): phase 1
// (plan(&size, &executor)) allocates at most phase1_limit times a call (2 for dense operands: the
// executor, which holds its plan, and the executor registry's entry; a plan also copies the dims
// and strides of the views it moves); phase 2 with the synchronisation (run(size, executor)) not
// at all: a small call runs on the caller's thread by reference, and views move through the
// workspace.
template <typename Plan, typename Run>
void ExpectAllocationsPerCall(uint64_t workspace_bytes, Plan plan, Run run, int64_t phase1_limit) {
  int64_t phase1 = 0, phase2 = 0;
  for (int call = 0; call < kCalls + 2; ++call) {
    uint64_t size = 0;
    aclOpExecutor *executor = nullptr;
    const int64_t planned = Count([&] { plan(&size, &executor); });
    ASSERT_LE(size, workspace_bytes);
    const int64_t ran = Count([&] { run(size, executor); });
    if (call >= 2) {
      phase1 += planned;
      phase2 += ran;
    }
  }
  EXPECT_LE(phase1, phase1_limit * kCalls) << "phase 1 allocations over " << kCalls << " calls";
  EXPECT_EQ(phase2, 0) << "phase 2 allocations over " << kCalls << " calls";
}

// Both operators' operands over rows of dims: gradOut, input, gradInput (the forward's out),
// mean and rstd (dims with the last set to 1), all laid out as `reversed` says; weight, gradWeight
// and gradBias (the forward's bias) dense over the last dim.
struct Operands {
  aclTensor *grad_out, *input, *grad_input, *mean, *rstd, *weight, *grad_weight, *grad_bias;
  int64_t cols;
};

class AllocationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&workspace_, kWorkspaceBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  void TearDown() override {
    for (aclTensor *tensor : tensors_) aclDestroyTensor(tensor);
    for (void *memory : memory_) aclrtFree(memory);
    aclrtFree(workspace_);
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
  }

  // A FLOAT tensor of `dims`, dense or with its dims stored in reverse order (no two of them
  // continuing each other: a view moved element by element), filled with values that vary (never
  // all zeros).
  aclTensor *Tensor(std::vector<int64_t> dims, bool reversed = false) {
    int64_t elements = 1;
    for (const int64_t dim : dims) elements *= dim;
    std::vector<int64_t> strides(dims.size(), 1);
    if (reversed) {
      for (size_t d = 1; d < dims.size(); ++d) strides[d] = strides[d - 1] * dims[d - 1];
    } else {
      for (size_t d = dims.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * dims[d + 1];
    }
    void *memory = nullptr;
    EXPECT_EQ(aclrtMalloc(&memory, static_cast<size_t>(elements) * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int64_t i = 0; i < elements; ++i) static_cast<float *>(memory)[i] = 0.5f + static_cast<float>(i % 97) / 97.0f;
    memory_.push_back(memory);
    tensors_.push_back(aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, &elements, 1, memory));
    return tensors_.back();
  }

  Operands Make(const std::vector<int64_t> &dims, bool reversed) {
    std::vector<int64_t> stats = dims;
    stats.back() = 1;
    const int64_t cols = dims.back();
    return {Tensor(dims, reversed), Tensor(dims, reversed), Tensor(dims, reversed), Tensor(stats, reversed),
            Tensor(stats, reversed), Tensor({cols}), Tensor({cols}), Tensor({cols}), cols};
  }

  // The backward's call sequence, every output wanted, and then the forward's (with weight, bias,
  // mean and rstd), each held to ExpectAllocationsPerCall's bounds.
  void ExpectBothOperators(const Operands &op, int64_t phase1_limit) {
    aclIntArray *normalized = aclCreateIntArray(&op.cols, 1);
    const bool mask_values[] = {true, true, true};
    aclBoolArray *mask = aclCreateBoolArray(mask_values, 3);
    auto run = [&](auto launch) {
      return [&, launch](uint64_t size, aclOpExecutor *executor) {
        ASSERT_EQ(launch(workspace_, size, executor, stream_), 0);
        ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
      };
    };
    ExpectAllocationsPerCall(
        kWorkspaceBytes,
        [&](uint64_t *size, aclOpExecutor **executor) {
          ASSERT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(op.grad_out, op.input, normalized, op.mean, op.rstd, op.weight, nullptr,
                                                           mask, op.grad_input, op.grad_weight, op.grad_bias, size, executor),
                    0);
        },
        run(&aclnnLayerNormBackward), phase1_limit);
    ExpectAllocationsPerCall(
        kWorkspaceBytes,
        [&](uint64_t *size, aclOpExecutor **executor) {
          ASSERT_EQ(aclnnLayerNormGetWorkspaceSize(op.input, normalized, op.weight, op.grad_bias, 1e-5, op.grad_input, op.mean,
                                                   op.rstd, size, executor),
                    0);
        },
        run(&aclnnLayerNorm), phase1_limit);
    aclDestroyIntArray(normalized);
    aclDestroyBoolArray(mask);
  }

  static constexpr uint64_t kWorkspaceBytes = uint64_t{1} << 20;
  aclrtStream stream_ = nullptr;
  void *workspace_ = nullptr;
  std::vector<aclTensor *> tensors_;
  std::vector<void *> memory_;
};

TEST_F(AllocationTest, SmallCallsOfBothOperators) {
  // (64, 256) FLOAT: runs on the caller's thread.
  ExpectBothOperators(Make({64, 256}, false), 2);
}

TEST_F(AllocationTest, ViewsMovedThroughTheWorkspaceAllocateNothingInPhase2) {
  // [4, 16, 256] FLOAT whose dims are stored in reverse order: gradOut, input and gradInput (the
  // forward's input and out) move through per-thread tiles element by element, row by row; mean
  // and rstd ([4, 16, 1], reversed too) are gathered whole into the workspace (and the forward's
  // scattered out of it). Phase 1 copies and analyses the views (37 allocations a backward call,
  // 63 a forward one, here): 100 is only a bound against runaway growth; phase 2 is what this test
  // holds to none.
  ExpectBothOperators(Make({4, 16, 256}, true), 100);
}

}  // namespace
