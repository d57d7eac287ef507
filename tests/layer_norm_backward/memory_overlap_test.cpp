// Operands that share memory: in-place use and disjoint views of one buffer are computed
// correctly; outputs that overlap an input, another output or themselves are rejected with
// 161002 before anything is written (step 18 of our validation order).
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "arena_call.h"
#include "device_tensor.h"

namespace lnb_test {
namespace {

using aclhost::testing::ArenaCallSpec;
using aclhost::testing::ArenaOutcome;
using aclhost::testing::Placement;
using namespace aclhost::testing;  // operand indices

constexpr int64_t kRows = 6, kCols = 40;

// Room for a new buffer of bytes at the end of the arena; returns its offset.
int64_t Append(ArenaCallSpec &spec, int64_t bytes) {
  const int64_t offset = static_cast<int64_t>(spec.arena_bytes);
  spec.arena_bytes += static_cast<size_t>((bytes + 7) / 8 * 8);
  return offset;
}

void SetDataDtype(ArenaCallSpec &spec, aclDataType dtype) {
  for (const int k : {kGradOut, kInput, kWeight, kBias, kGradInput, kGradWeight, kGradBias}) spec.operands[k].dtype = dtype;
}

// gradInputOut described exactly as operand `source`.
void AliasGradInputTo(ArenaCallSpec &spec, int source) { spec.operands[kGradInput] = spec.operands[source]; }

struct OverlapCase {
  const char *name;
  std::function<void(ArenaCallSpec &)> arrange;
  aclnnStatus expected;
  std::vector<const char *> message_names;  // for rejected calls: what the message must name
};

std::vector<OverlapCase> Cases() {
  const aclnnStatus kOk = ACLNN_SUCCESS, kInvalid = ACLNN_ERR_PARAM_INVALID;
  return {
      {"separate_operands", [](ArenaCallSpec &) {}, kOk, {}},
      {"in_place_on_input", [](ArenaCallSpec &s) { AliasGradInputTo(s, kInput); }, kOk, {}},
      {"in_place_on_grad_out", [](ArenaCallSpec &s) { AliasGradInputTo(s, kGradOut); }, kOk, {}},
      {"in_place_fp16", [](ArenaCallSpec &s) { SetDataDtype(s, ACL_FLOAT16); AliasGradInputTo(s, kInput); }, kOk, {}},
      {"in_place_bf16", [](ArenaCallSpec &s) { SetDataDtype(s, ACL_BF16); AliasGradInputTo(s, kGradOut); }, kOk, {}},
      {"in_place_on_a_padded_view", [](ArenaCallSpec &s) {
         Placement &input = s.operands[kInput];
         input.byte_offset = Append(s, (kRows * (kCols + 3) + 2) * 4);
         input.strides = {kCols + 3, 1};
         input.view_offset = 2;
         AliasGradInputTo(s, kInput);
       }, kOk, {}},
      {"grad_out_is_input", [](ArenaCallSpec &s) { s.operands[kGradOut] = s.operands[kInput]; }, kOk, {}},
      {"column_halves_of_one_buffer", [](ArenaCallSpec &s) {
         const int64_t buffer = Append(s, kRows * 2 * kCols * 4);
         for (const int k : {kInput, kGradInput}) s.operands[k].strides = {2 * kCols, 1};
         s.operands[kInput].byte_offset = buffer;
         s.operands[kGradInput].byte_offset = buffer + kCols * 4;
       }, kOk, {}},
      {"interleaved_elements_of_one_buffer", [](ArenaCallSpec &s) {
         const int64_t buffer = Append(s, kRows * 2 * kCols * 4);
         for (const int k : {kGradOut, kGradInput}) {
           s.operands[k].strides = {2 * kCols, 2};
           s.operands[k].byte_offset = buffer;
         }
         s.operands[kGradInput].view_offset = 1;
       }, kOk, {}},
      {"broadcast_input_rows", [](ArenaCallSpec &s) { s.operands[kInput].strides = {0, 1}; }, kOk, {}},
      {"masked_off_output_may_overlap", [](ArenaCallSpec &s) {
         s.mask[0] = false;
         s.operands[kGradInput] = s.operands[kMean];
         s.operands[kGradInput].dims = {kRows, kCols};
       }, kOk, {}},

      {"grad_input_broadcast_rows", [](ArenaCallSpec &s) { s.operands[kGradInput].strides = {0, 1}; }, kInvalid,
       {"gradInputOut", "distinct"}},
      {"grad_input_one_element_past_input", [](ArenaCallSpec &s) {
         s.operands[kGradInput] = s.operands[kInput];
         s.operands[kGradInput].view_offset = 1;
         s.arena_bytes += 8;
       }, kInvalid, {"gradInputOut", "input"}},
      {"in_place_with_another_element_size", [](ArenaCallSpec &s) {
         AliasGradInputTo(s, kInput);
         s.operands[kGradInput].dtype = ACL_FLOAT16;
       }, kInvalid, {"gradInputOut", "input"}},
      {"grad_input_is_input_transposed", [](ArenaCallSpec &s) {
         for (const int k : {kGradOut, kInput, kGradInput}) s.operands[k].dims = {kCols, kCols};
         for (const int k : {kMean, kRstd}) s.operands[k].dims = {kCols, 1};
         const int64_t square = Append(s, kCols * kCols * 4);
         s.operands[kInput].byte_offset = s.operands[kGradInput].byte_offset = square;
         s.operands[kGradInput].strides = {1, kCols};
         s.operands[kGradOut].byte_offset = Append(s, kCols * kCols * 4);
         s.operands[kMean].byte_offset = Append(s, kCols * 4);
         s.operands[kRstd].byte_offset = Append(s, kCols * 4);
       }, kInvalid, {"gradInputOut", "input"}},
      {"grad_input_over_mean", [](ArenaCallSpec &s) { s.operands[kGradInput].byte_offset = s.operands[kMean].byte_offset; },
       kInvalid, {"gradInputOut", "mean"}},
      {"grad_weight_is_grad_bias", [](ArenaCallSpec &s) { s.operands[kGradBias] = s.operands[kGradWeight]; }, kInvalid,
       {"gradBiasOut", "gradWeightOut"}},
      {"grad_weight_over_weight", [](ArenaCallSpec &s) { s.operands[kGradWeight] = s.operands[kWeight]; }, kInvalid,
       {"gradWeightOut", "weightOptional"}},
      {"grad_bias_inside_grad_input", [](ArenaCallSpec &s) {
         s.operands[kGradBias].byte_offset = s.operands[kGradInput].byte_offset + 8;
       }, kInvalid, {"gradBiasOut", "gradInputOut"}},
      {"no_rows_grad_weight_is_grad_bias", [](ArenaCallSpec &s) {
         for (const int k : {kGradOut, kInput, kGradInput}) s.operands[k].dims = {0, kCols};
         for (const int k : {kMean, kRstd}) s.operands[k].dims = {0, 1};
         s.operands[kGradBias] = s.operands[kGradWeight];
       }, kInvalid, {"gradBiasOut", "gradWeightOut"}},
      {"misaligned_input", [](ArenaCallSpec &s) {
         s.operands[kInput].byte_offset = Append(s, kRows * kCols * 4 + 8) + 2;
       }, kInvalid, {"input", "aligned"}},
  };
}

// A call that phase 1 accepted: phase 2 and the synchronisation succeeded, the results are right.
void ExpectComputed(const ArenaOutcome &outcome) {
  EXPECT_EQ(outcome.phase2, ACLNN_SUCCESS) << outcome.message;
  EXPECT_EQ(outcome.synchronize, ACL_SUCCESS) << outcome.message;
  EXPECT_TRUE(outcome.results_match) << outcome.failure;
}

class MemoryOverlapTest : public ::testing::TestWithParam<OverlapCase> {
 protected:
  void SetUp() override { ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS); }
  void TearDown() override { EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS); }
  aclrtStream stream_ = nullptr;
};

TEST_P(MemoryOverlapTest, ComputesOrRejectsWithoutStrayWrites) {
  const OverlapCase &c = GetParam();
  ArenaCallSpec spec = SeparateOperands(kRows, kCols);
  c.arrange(spec);
  const ArenaOutcome outcome = RunArenaCall(spec, TestSeed(), stream_);
  ASSERT_TRUE(outcome.described) << outcome.message;
  ASSERT_EQ(outcome.phase1, c.expected) << outcome.message;
  EXPECT_TRUE(outcome.arena_intact) << outcome.failure;
  if (c.expected == ACLNN_SUCCESS) {
    ExpectComputed(outcome);
  } else {
    EXPECT_TRUE(outcome.handles_untouched) << outcome.failure;
    for (const char *name : c.message_names) EXPECT_NE(outcome.message.find(name), std::string::npos) << outcome.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, MemoryOverlapTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<OverlapCase> &info) { return std::string(info.param.name); });

// spec with gradInputOut over operand source, run: computed right, nothing written outside.
void ExpectRightInPlace(ArenaCallSpec spec, int source, aclrtStream stream) {
  AliasGradInputTo(spec, source);
  const ArenaOutcome outcome = RunArenaCall(spec, TestSeed(), stream);
  ASSERT_TRUE(outcome.described) << outcome.message;
  EXPECT_EQ(outcome.phase1, ACLNN_SUCCESS) << outcome.message;
  EXPECT_TRUE(outcome.arena_intact) << outcome.failure;
  ExpectComputed(outcome);
}

TEST(MemoryOverlapLongRowsTest, InPlaceRowsWhoseSegmentsThreadsShare) {
  // Three rows of nine segments in one chunk: threads share each row's segments, and one writes
  // its segments of a row in place while another reads the next row, on 2 and 4 threads.
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  for (const char *threads : {"2", "4"}) {
    for (const int source : {kInput, kGradOut}) {
      SCOPED_TRACE(std::string("ACLNN_HOST_NUM_THREADS=") + threads + (source == kInput ? ", on input" : ", on gradOut"));
      setenv("ACLNN_HOST_NUM_THREADS", threads, 1);
      ExpectRightInPlace(SeparateOperands(3, 131089), source, stream);
      unsetenv("ACLNN_HOST_NUM_THREADS");
    }
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST(MemoryOverlapLongRowsTest, InPlaceRowsInGroups) {
  // Nine rows of 4,096 columns, too long for L1 apiece: pass 1 takes them in groups (of 4 on
  // AVX-512, 2 on AVX2 and for Zen 5's 16-bit rows) and pass 2 reads every row's line of a group
  // before writing any (RowPasses::GradInput), over gradOut or input itself.
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  for (const aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    for (const int source : {kInput, kGradOut}) {
      SCOPED_TRACE(std::string(dtype == ACL_FLOAT ? "FLOAT" : "BF16") + (source == kInput ? ", on input" : ", on gradOut"));
      ArenaCallSpec spec = SeparateOperands(9, 4096);
      SetDataDtype(spec, dtype);
      ExpectRightInPlace(spec, source, stream);
    }
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

}  // namespace
}  // namespace lnb_test
