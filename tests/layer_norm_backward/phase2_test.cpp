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

// A call after phase 1, with a workspace of the size phase 1 asked for (none when 0). The valid
// base call needs workspace for the column sums.
struct PlannedCall {
  explicit PlannedCall(const CallSpec &spec, uint64_t seed) : call(spec, seed) {
    EXPECT_EQ(call.GetWorkspaceSize(&size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    if (size > 0) {
      EXPECT_EQ(aclrtMalloc(&workspace, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
  }
  ~PlannedCall() {
    if (workspace != nullptr) {
      EXPECT_EQ(aclrtFree(workspace), ACL_SUCCESS);
    }
  }

  // Phase 2 with the planned workspace.
  aclnnStatus Launch(aclrtStream stream) { return aclnnLayerNormBackward(workspace, size, executor, stream); }

  BuiltCall call;
  uint64_t size = 0;
  aclOpExecutor *executor = nullptr;
  void *workspace = nullptr;
};

class Phase2Test : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS); }
  void TearDown() override { EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS); }


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
  PlannedCall planned(CallSpec{}, TestSeed());
  ASSERT_GT(planned.size, 0u);
  const auto before = planned.call.OutputBytes();
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, planned.size, planned.executor, stream_), ACLNN_ERR_PARAM_NULLPTR);
  ExpectMessageNaming("workspace");
  EXPECT_EQ(aclDestroyAclOpExecutor(planned.executor), ACLNN_ERR_INNER);  // already freed
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(planned.call.OutputBytes(), before);
}

TEST_F(Phase2Test, TooSmallWorkspaceIsRejected) {
  PlannedCall planned(CallSpec{}, TestSeed());
  const auto before = planned.call.OutputBytes();
  EXPECT_EQ(aclnnLayerNormBackward(planned.workspace, planned.size - 1, planned.executor, stream_), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageNaming("workspaceSize");
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(planned.call.OutputBytes(), before);
}

TEST_F(Phase2Test, ExecutorIsSingleUse) {
  PlannedCall planned(CallSpec{}, TestSeed());
  ASSERT_EQ(planned.Launch(stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  const auto after_first = planned.call.OutputBytes();
  EXPECT_EQ(planned.Launch(stream_), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageNaming("not live");
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(planned.call.OutputBytes(), after_first);
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
  PlannedCall planned(spec, TestSeed());
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(planned.executor), ACLNN_SUCCESS);
  ASSERT_EQ(planned.Launch(stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  const std::vector<double> first = planned.call.grad_input()->Read();
  // Reset the output: a second run must write it again, identically.
  planned.call.grad_input()->Write(std::vector<double>(first.size(), 0.0));
  ASSERT_EQ(planned.Launch(stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(planned.call.grad_input()->Read(), first);
  EXPECT_EQ(aclDestroyAclOpExecutor(planned.executor), ACLNN_SUCCESS);
  EXPECT_EQ(planned.Launch(stream_), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(Phase2Test, UnrunExecutorCanBeDestroyed) {
  PlannedCall planned(CallSpec{}, TestSeed());
  EXPECT_EQ(aclDestroyAclOpExecutor(planned.executor), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(planned.executor), ACLNN_ERR_INNER);
}

TEST_F(Phase2Test, DestroyedExecutorIsRejectedAndWritesNothing) {
  PlannedCall planned(CallSpec{}, TestSeed());
  const auto before = planned.call.OutputBytes();
  ASSERT_EQ(aclDestroyAclOpExecutor(planned.executor), ACLNN_SUCCESS);
  EXPECT_EQ(planned.Launch(stream_), ACLNN_ERR_PARAM_INVALID);
  ExpectMessageNaming("not live");
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(planned.call.OutputBytes(), before);
}

TEST_F(Phase2Test, DescriptorsMayBeDestroyedAfterPhase1) {
  // The same inputs twice: once with the descriptors alive, once destroyed before phase 2.
  const uint64_t seed = TestSeed();
  std::vector<double> results[2];
  for (int destroy_early = 0; destroy_early < 2; ++destroy_early) {
    PlannedCall planned(CallSpec{}, seed);
    if (destroy_early) planned.call.DestroyDescriptors();
    ASSERT_EQ(planned.Launch(stream_), ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    results[destroy_early] = planned.call.grad_input()->Read();
    for (const double value : planned.call.grad_weight()->Read()) results[destroy_early].push_back(value);
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
  aclOpExecutor *executor = nullptr;
  ASSERT_EQ(call.GetWorkspaceSize(&size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, 0, executor, stream_), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(call.OutputBytes(), before);
}

TEST_F(Phase2Test, SmallCallOnAnIdleStreamIsDoneWhenPhase2Returns) {
  PlannedCall planned(CallSpec{}, TestSeed());
  const auto before = planned.call.OutputBytes();
  ASSERT_EQ(planned.Launch(stream_), ACLNN_SUCCESS);
  EXPECT_NE(planned.call.OutputBytes(), before);  // no synchronisation needed: it ran on this thread
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
}

TEST_F(Phase2Test, SmallCallWaitsItsTurnBehindQueuedWork) {
  PlannedCall planned(CallSpec{}, TestSeed());
  auto gate = std::make_shared<std::promise<void>>();
  std::shared_future<void> opened = gate->get_future().share();
  ASSERT_EQ(aclhost::EnqueueOnStream(stream_, [opened] {
    opened.wait();
    return ACL_SUCCESS;
  }, "test"), ACL_SUCCESS);
  const auto before = planned.call.OutputBytes();
  ASSERT_EQ(planned.Launch(stream_), ACLNN_SUCCESS);
  EXPECT_EQ(planned.call.OutputBytes(), before);  // queued behind the blocked task, in stream order
  gate->set_value();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_NE(planned.call.OutputBytes(), before);
}

TEST_F(Phase2Test, DefaultStreamRunsWhenStreamIsNull) {
  PlannedCall planned(CallSpec{}, TestSeed());
  const auto before = planned.call.OutputBytes();
  ASSERT_EQ(planned.Launch(nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_NE(planned.call.OutputBytes(), before);
}

}  // namespace
}  // namespace lnb_test
