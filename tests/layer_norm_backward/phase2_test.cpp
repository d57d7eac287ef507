// Phase 2 and the executor's lifetime: the spec's checks, single use, repeatable executors, and
// descriptors destroyed between the phases.
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>

#include "aclnn/opdev/op_errno.h"
#include "call_spec.h"
#include "dtype_codec.h"
#include "runtime/stream.h"

namespace lnb_test {
namespace {

class Phase2Test : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS); }
  void TearDown() override { EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS); }

  // Phase 1 on the valid base call, which needs workspace for the column sums.
  aclOpExecutor *Plan(BuiltCall &call, uint64_t *workspace_size) {
    aclOpExecutor *executor = nullptr;
    EXPECT_EQ(call.GetWorkspaceSize(workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    return executor;
  }

  void *Workspace(uint64_t size) {
    void *memory = nullptr;
    EXPECT_EQ(aclrtMalloc(&memory, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    return memory;
  }

  void ExpectMessageNaming(const char *what) {
    const char *message = aclGetRecentErrMsg();
    ASSERT_NE(message, nullptr);
    EXPECT_NE(std::string(message).find(what), std::string::npos) << message;
  }

  aclrtStream stream_ = nullptr;
};

TEST_F(Phase2Test, NullExecutorIsRejected) {
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, 0, nullptr, stream_), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageNaming("executor");
}

TEST_F(Phase2Test, NullWorkspaceIsRejectedAndConsumesTheExecutor) {
  BuiltCall call(CallSpec{}, TestSeed());
  uint64_t size = 0;
  aclOpExecutor *executor = Plan(call, &size);
  ASSERT_GT(size, 0u);
  const auto before = call.OutputBytes();
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, size, executor, stream_), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageNaming("workspace");
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_INNER);  // already freed
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(call.OutputBytes(), before);
}

TEST_F(Phase2Test, TooSmallWorkspaceIsRejected) {
  BuiltCall call(CallSpec{}, TestSeed());
  uint64_t size = 0;
  aclOpExecutor *executor = Plan(call, &size);
  void *workspace = Workspace(size);
  const auto before = call.OutputBytes();
  EXPECT_EQ(aclnnLayerNormBackward(workspace, size - 1, executor, stream_), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageNaming("workspaceSize");
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(call.OutputBytes(), before);
  EXPECT_EQ(aclrtFree(workspace), ACL_SUCCESS);
}

TEST_F(Phase2Test, ExecutorIsSingleUse) {
  BuiltCall call(CallSpec{}, TestSeed());
  uint64_t size = 0;
  aclOpExecutor *executor = Plan(call, &size);
  void *workspace = Workspace(size);
  ASSERT_EQ(aclnnLayerNormBackward(workspace, size, executor, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  const auto after_first = call.OutputBytes();
  EXPECT_EQ(aclnnLayerNormBackward(workspace, size, executor, stream_), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageNaming("not live");
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(call.OutputBytes(), after_first);
  EXPECT_EQ(aclrtFree(workspace), ACL_SUCCESS);
}

TEST_F(Phase2Test, ForeignHandleIsRejected) {
  int not_an_executor = 0;
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, 0, reinterpret_cast<aclOpExecutor *>(&not_an_executor), stream_),
            ACLNN_ERR_PARAM_INVALID);
  ExpectMessageNaming("executor");
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(reinterpret_cast<aclOpExecutor *>(&not_an_executor)), ACLNN_ERR_INNER);
  EXPECT_EQ(aclDestroyAclOpExecutor(reinterpret_cast<aclOpExecutor *>(&not_an_executor)), ACLNN_ERR_INNER);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_INNER_NULLPTR);
}

TEST_F(Phase2Test, RepeatableExecutorRunsUntilDestroyedAndSeesNewData) {
  CallSpec spec;
  spec.output_mask = {true, false, false};
  BuiltCall call(spec, TestSeed());
  uint64_t size = 0;
  aclOpExecutor *executor = Plan(call, &size);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  void *workspace = size > 0 ? Workspace(size) : nullptr;
  ASSERT_EQ(aclnnLayerNormBackward(workspace, size, executor, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  const std::vector<double> first = call.grad_input()->Read();
  // Reset the output: a second run must write it again, identically.
  call.grad_input()->Write(std::vector<double>(first.size(), 0.0));
  ASSERT_EQ(aclnnLayerNormBackward(workspace, size, executor, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(call.grad_input()->Read(), first);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnLayerNormBackward(workspace, size, executor, stream_), ACLNN_ERR_PARAM_INVALID);
  if (workspace != nullptr) {
    EXPECT_EQ(aclrtFree(workspace), ACL_SUCCESS);
  }
}

TEST_F(Phase2Test, UnrunExecutorCanBeDestroyed) {
  BuiltCall call(CallSpec{}, TestSeed());
  uint64_t size = 0;
  aclOpExecutor *executor = Plan(call, &size);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_INNER);
}

TEST_F(Phase2Test, DescriptorsMayBeDestroyedAfterPhase1) {
  // The same inputs twice: once with the descriptors alive, once destroyed before phase 2.
  const uint64_t seed = TestSeed();
  std::vector<double> results[2];
  for (int destroy_early = 0; destroy_early < 2; ++destroy_early) {
    BuiltCall call(CallSpec{}, seed);
    uint64_t size = 0;
    aclOpExecutor *executor = Plan(call, &size);
    void *workspace = Workspace(size);
    if (destroy_early) call.DestroyDescriptors();
    ASSERT_EQ(aclnnLayerNormBackward(workspace, size, executor, stream_), ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    results[destroy_early] = call.grad_input()->Read();
    for (const double value : call.grad_weight()->Read()) results[destroy_early].push_back(value);
    EXPECT_EQ(aclrtFree(workspace), ACL_SUCCESS);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_NE(results[0], std::vector<double>(results[0].size(), 0.0));
}

TEST_F(Phase2Test, AllFalseMaskSucceedsWithoutWorkspaceAndWritesNothing) {
  CallSpec spec;
  spec.output_mask = {false, false, false};
  BuiltCall call(spec, TestSeed());
  const auto before = call.OutputBytes();
  uint64_t size = 99;
  aclOpExecutor *executor = Plan(call, &size);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, 0, executor, stream_), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(call.OutputBytes(), before);
}

TEST_F(Phase2Test, SmallCallOnAnIdleStreamIsDoneWhenPhase2Returns) {
  BuiltCall call(CallSpec{}, TestSeed());
  uint64_t size = 0;
  aclOpExecutor *executor = Plan(call, &size);
  void *workspace = Workspace(size);
  const auto before = call.OutputBytes();
  ASSERT_EQ(aclnnLayerNormBackward(workspace, size, executor, stream_), ACLNN_SUCCESS);
  EXPECT_NE(call.OutputBytes(), before);  // no synchronisation needed: it ran on this thread
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(workspace), ACL_SUCCESS);
}

TEST_F(Phase2Test, SmallCallWaitsItsTurnBehindQueuedWork) {
  BuiltCall call(CallSpec{}, TestSeed());
  uint64_t size = 0;
  aclOpExecutor *executor = Plan(call, &size);
  void *workspace = Workspace(size);
  auto gate = std::make_shared<std::promise<void>>();
  std::shared_future<void> opened = gate->get_future().share();
  ASSERT_EQ(aclhost::EnqueueOnStream(stream_, [opened] {
    opened.wait();
    return ACL_SUCCESS;
  }, "test"), ACL_SUCCESS);
  const auto before = call.OutputBytes();
  ASSERT_EQ(aclnnLayerNormBackward(workspace, size, executor, stream_), ACLNN_SUCCESS);
  EXPECT_EQ(call.OutputBytes(), before);  // queued behind the blocked task, in stream order
  gate->set_value();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_NE(call.OutputBytes(), before);
  EXPECT_EQ(aclrtFree(workspace), ACL_SUCCESS);
}

TEST_F(Phase2Test, DefaultStreamRunsWhenStreamIsNull) {
  BuiltCall call(CallSpec{}, TestSeed());
  uint64_t size = 0;
  aclOpExecutor *executor = Plan(call, &size);
  void *workspace = Workspace(size);
  const auto before = call.OutputBytes();
  ASSERT_EQ(aclnnLayerNormBackward(workspace, size, executor, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_NE(call.OutputBytes(), before);
  EXPECT_EQ(aclrtFree(workspace), ACL_SUCCESS);
}

}  // namespace
}  // namespace lnb_test
