// Phase 1: every row of the spec's validation table, in order, with its code and a message, and
// nothing written on failure.
#include <gtest/gtest.h>

#include <string>

#include "aclnn/opdev/op_errno.h"
#include "call_spec.h"

namespace lnb_test {
namespace {

struct ValidationCase {
  const char *name;
  std::function<void(CallSpec &)> break_call;
  aclnnStatus expected;
  const char *message_names;  // the parameter the message must name
};

const std::vector<int64_t> kNineDims{1, 1, 1, 1, 1, 2, 3, 1, 4};

std::vector<ValidationCase> Cases() {
  const aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR, kInvalid = ACLNN_ERR_PARAM_INVALID;
  return {
      // Step 0 runs before everything, even a NULL gradOut.
      {"s0_workspace_size_null", [](CallSpec &c) { c.has_workspace_size = false; c.grad_out.present = false; }, kNull, "workspaceSize"},
      {"s0_executor_null", [](CallSpec &c) { c.has_executor = false; }, kNull, "executor"},
      // Step 1, first NULL in order.
      {"s1_grad_out_null", [](CallSpec &c) { c.grad_out.present = false; c.input.present = false; }, kNull, "gradOut"},
      {"s1_input_null", [](CallSpec &c) { c.input.present = false; c.mean.present = false; }, kNull, "input"},
      {"s1_normalized_shape_null", [](CallSpec &c) { c.has_normalized_shape = false; c.mean.present = false; }, kNull, "normalizedShape"},
      {"s1_mean_null", [](CallSpec &c) { c.mean.present = false; c.rstd.present = false; }, kNull, "mean"},
      {"s1_rstd_null", [](CallSpec &c) { c.rstd.present = false; c.has_output_mask = false; }, kNull, "rstd"},
      {"s1_output_mask_null", [](CallSpec &c) { c.has_output_mask = false; c.grad_input.present = false; }, kNull, "outputMask"},
      // Step 2 before step 3.
      {"s2_mask_too_short", [](CallSpec &c) { c.output_mask = {true, true}; c.grad_input.present = false; }, kInvalid, "outputMask"},
      {"s2_mask_too_long", [](CallSpec &c) { c.output_mask = {true, true, true, true}; }, kInvalid, "outputMask"},
      // Step 3, before any dtype check.
      {"s3a_grad_input_null", [](CallSpec &c) { c.grad_input.present = false; c.grad_out.dtype = ACL_INT32; }, kNull, "gradInputOut"},
      {"s3b_grad_weight_null", [](CallSpec &c) { c.grad_weight.present = false; c.grad_bias.present = false; }, kNull, "gradWeightOut"},
      {"s3c_grad_bias_null", [](CallSpec &c) { c.grad_bias.present = false; }, kNull, "gradBiasOut"},
      // Step 4: dtypes, before any shape check.
      {"s4a_grad_out_dtype", [](CallSpec &c) { c.grad_out.dtype = ACL_INT32; c.input.dims = {9}; }, kInvalid, "gradOut"},
      {"s4b_input_dtype", [](CallSpec &c) { c.input.dtype = ACL_DOUBLE; c.mean.dtype = ACL_INT8; }, kInvalid, "input"},
      {"s4c_mean_dtype", [](CallSpec &c) { c.mean.dtype = ACL_INT8; c.rstd.dtype = ACL_INT8; }, kInvalid, "mean"},
      {"s4d_rstd_dtype", [](CallSpec &c) { c.rstd.dtype = ACL_INT64; c.grad_out.dtype = ACL_FLOAT16; }, kInvalid, "rstd"},
      {"s4e_grad_out_differs_from_input", [](CallSpec &c) { c.grad_out.dtype = ACL_FLOAT16; c.weight.dtype = ACL_INT32; }, kInvalid, "gradOut"},
      {"s4f_weight_dtype", [](CallSpec &c) { c.weight.dtype = ACL_INT32; c.bias.dtype = ACL_INT32; }, kInvalid, "weightOptional"},
      {"s4g_weight_neither_float_nor_input", [](CallSpec &c) { c.SetDataDtype(ACL_BF16); c.weight.dtype = ACL_FLOAT16; }, kInvalid, "weightOptional"},
      {"s4h_bias_dtype", [](CallSpec &c) { c.bias.dtype = ACL_UINT8; c.grad_input.dtype = ACL_INT32; }, kInvalid, "biasOptional"},
      // Output dtypes are checked even where the mask is false.
      {"s4i_grad_input_dtype_mask_false", [](CallSpec &c) { c.output_mask[0] = false; c.grad_input.dtype = ACL_INT32; }, kInvalid, "gradInputOut"},
      {"s4j_grad_weight_dtype_mask_false", [](CallSpec &c) { c.output_mask[1] = false; c.grad_weight.dtype = ACL_BOOL; }, kInvalid, "gradWeightOut"},
      {"s4k_grad_bias_dtype_mask_false", [](CallSpec &c) { c.output_mask[2] = false; c.grad_bias.dtype = ACL_DOUBLE; }, kInvalid, "gradBiasOut"},
      // Step 5: ranks.
      {"s5a_grad_out_rank_9", [](CallSpec &c) { c.grad_out.dims = kNineDims; }, kInvalid, "gradOut"},
      {"s5a_input_rank_9", [](CallSpec &c) { c.input.dims = kNineDims; c.grad_out.dims = kNineDims; c.grad_input.dims = kNineDims; }, kInvalid, "gradOut"},
      {"s5a_input_rank_9_alone", [](CallSpec &c) { c.input.dims = kNineDims; }, kInvalid, "input"},
      {"s5a_mean_rank_0", [](CallSpec &c) { c.mean.dims = {}; }, kInvalid, "mean"},
      {"s5a_rstd_rank_9", [](CallSpec &c) { c.rstd.dims = kNineDims; c.normalized_shape = {}; }, kInvalid, "rstd"},
      {"s5b_normalized_shape_9", [](CallSpec &c) { c.normalized_shape.assign(9, 1); c.grad_input.dims = kNineDims; }, kInvalid, "normalizedShape"},
      {"s5c_grad_input_rank_9", [](CallSpec &c) { c.grad_input.dims = kNineDims; c.normalized_shape = {}; }, kInvalid, "gradInputOut"},
      {"s5c_grad_weight_rank_0", [](CallSpec &c) { c.grad_weight.dims = {}; }, kInvalid, "gradWeightOut"},
      {"s5c_grad_bias_rank_9", [](CallSpec &c) { c.grad_bias.dims = kNineDims; }, kInvalid, "gradBiasOut"},
      // Steps 6-8.
      {"s6_normalized_shape_empty", [](CallSpec &c) { c.normalized_shape = {}; c.weight.dims = {5}; }, kInvalid, "normalizedShape"},
      {"s7_input_rank_below_normalized", [](CallSpec &c) { c.normalized_shape = {1, 2, 3, 4}; }, kInvalid, "normalizedShape"},
      {"s8_trailing_dim_mismatch", [](CallSpec &c) { c.normalized_shape = {5}; }, kInvalid, "normalizedShape"},
      // Upstream compares nothing here (its loop starts at rank - len); the contract compares all.
      {"s8_upstream_defect_case", [](CallSpec &c) {
         c.input.dims = c.grad_out.dims = c.grad_input.dims = {2, 3, 4};
         c.normalized_shape = {4, 4};
         c.mean.dims = c.rstd.dims = {2, 1};
         c.weight.present = c.bias.present = false;
         c.output_mask = {true, false, false};
       }, kInvalid, "normalizedShape[0]"},
      // Steps 9-10.
      {"s9a_weight_rank_9", [](CallSpec &c) { c.weight.dims = kNineDims; c.bias.dims = {5}; }, kInvalid, "weightOptional"},
      {"s9b_weight_rank_differs", [](CallSpec &c) { c.weight.dims = {1, 4}; }, kInvalid, "weightOptional"},
      {"s9c_weight_dim_differs", [](CallSpec &c) { c.weight.dims = {5}; c.bias.dims = {5}; }, kInvalid, "weightOptional"},
      {"s10a_bias_rank_9", [](CallSpec &c) { c.bias.dims = kNineDims; }, kInvalid, "biasOptional"},
      {"s10b_bias_rank_differs", [](CallSpec &c) { c.bias.dims = {4, 1}; }, kInvalid, "biasOptional"},
      {"s10c_bias_dim_differs", [](CallSpec &c) { c.bias.dims = {3}; c.grad_out.dims = {1}; }, kInvalid, "biasOptional"},
      // Steps 11-16.
      {"s11_grad_out_shape", [](CallSpec &c) { c.grad_out.dims = {3, 2, 4}; c.rstd.dims = {6, 1}; }, kInvalid, "gradOut"},
      {"s12_mean_rstd_shapes_differ", [](CallSpec &c) { c.rstd.dims = {6, 1}; c.mean.dims = {2, 3, 1}; }, kInvalid, "mean"},
      {"s13_mean_count", [](CallSpec &c) { c.mean.dims = c.rstd.dims = {3, 1}; c.grad_input.dims = {24}; }, kInvalid, "mean"},
      {"s14_grad_input_shape", [](CallSpec &c) { c.grad_input.dims = {6, 4}; c.grad_weight.dims = {5}; }, kInvalid, "gradInputOut"},
      {"s15_grad_weight_count", [](CallSpec &c) { c.grad_weight.dims = {5}; c.grad_bias.dims = {3}; }, kInvalid, "gradWeightOut"},
      {"s16_grad_bias_count", [](CallSpec &c) { c.grad_bias.dims = {2, 3}; }, kInvalid, "gradBiasOut"},
      // Step 17: addresses of tensors that will be touched.
      {"s17_grad_out_no_data", [](CallSpec &c) { c.grad_out.null_data = true; c.input.null_data = true; }, kNull, "gradOut"},
      {"s17_input_no_data", [](CallSpec &c) { c.input.null_data = true; }, kNull, "input"},
      {"s17_mean_no_data", [](CallSpec &c) { c.mean.null_data = true; }, kNull, "mean"},
      {"s17_rstd_no_data", [](CallSpec &c) { c.rstd.null_data = true; }, kNull, "rstd"},
      {"s17_weight_no_data", [](CallSpec &c) { c.weight.null_data = true; }, kNull, "weightOptional"},
      {"s17_grad_input_no_data", [](CallSpec &c) { c.grad_input.null_data = true; }, kNull, "gradInputOut"},
      {"s17_grad_weight_no_data", [](CallSpec &c) { c.grad_weight.null_data = true; }, kNull, "gradWeightOut"},
      {"s17_grad_bias_no_data", [](CallSpec &c) { c.grad_bias.null_data = true; }, kNull, "gradBiasOut"},
      {"s17_zero_rows_grad_weight_no_data", [](CallSpec &c) {
         c.input.dims = c.grad_out.dims = c.grad_input.dims = {0, 4};
         c.mean.dims = c.rstd.dims = {0, 1};
         c.input.null_data = c.grad_out.null_data = true;  // not read when M == 0
         c.grad_weight.null_data = true;
       }, kNull, "gradWeightOut"},
  };
}

class ValidationTest : public ::testing::TestWithParam<ValidationCase> {};

TEST_P(ValidationTest, ReturnsItsCodeWithAMessageAndWritesNothing) {
  CallSpec spec;
  GetParam().break_call(spec);
  BuiltCall call(spec, TestSeed());
  const auto before = call.OutputBytes();
  aclGetRecentErrMsg();  // drop anything earlier steps left
  uint64_t workspace_size = 0xDEADBEEF;
  aclOpExecutor *const untouched_executor = reinterpret_cast<aclOpExecutor *>(0x1234);
  aclOpExecutor *executor = untouched_executor;
  EXPECT_EQ(call.GetWorkspaceSize(&workspace_size, &executor), GetParam().expected);
  EXPECT_EQ(workspace_size, 0xDEADBEEFu);
  EXPECT_EQ(executor, untouched_executor);
  const char *message = aclGetRecentErrMsg();
  ASSERT_NE(message, nullptr);
  EXPECT_NE(std::string(message).find(GetParam().message_names), std::string::npos) << message;
  EXPECT_NE(std::string(message).find("aclnnLayerNormBackwardGetWorkspaceSize"), std::string::npos) << message;
  EXPECT_EQ(call.OutputBytes(), before);
}

INSTANTIATE_TEST_SUITE_P(Table, ValidationTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<ValidationCase> &info) { return std::string(info.param.name); });

// The cases the table says must succeed even though they look wrong.
struct AcceptedCase {
  const char *name;
  std::function<void(CallSpec &)> adjust;
};

std::vector<AcceptedCase> AcceptedCases() {
  return {
      {"valid_base_call", [](CallSpec &) {}},
      {"mean_rstd_shape_by_count_only", [](CallSpec &c) { c.mean.dims = c.rstd.dims = {6}; }},
      {"grad_weight_bias_by_count_only", [](CallSpec &c) { c.grad_weight.dims = {2, 2}; c.grad_bias.dims = {1, 4}; }},
      {"masked_off_outputs_not_shape_checked", [](CallSpec &c) {
         c.output_mask = {false, false, true};
         c.grad_input.dims = kNineDims;
         c.grad_weight.dims = {7};
       }},
      {"masked_off_outputs_may_be_null", [](CallSpec &c) { c.output_mask = {false, true, false}; c.grad_input.present = c.grad_bias.present = false; }},
      {"no_weight_no_bias", [](CallSpec &c) { c.weight.present = c.bias.present = false; }},
      {"bias_data_never_needed", [](CallSpec &c) { c.bias.null_data = true; }},
      {"weight_float_with_half_input", [](CallSpec &c) { c.SetDataDtype(ACL_FLOAT16); c.weight.dtype = ACL_FLOAT; }},
      {"unchecked_dtype_relations", [](CallSpec &c) {
         c.SetDataDtype(ACL_FLOAT16);
         c.mean.dtype = ACL_FLOAT16;  // narrower than documented, and different from rstd
         c.bias.dtype = ACL_BF16;
         c.grad_input.dtype = ACL_FLOAT;
         c.grad_weight.dtype = ACL_BF16;
       }},
      {"all_false_mask_with_null_outputs", [](CallSpec &c) {
         c.output_mask = {false, false, false};
         c.grad_input.present = c.grad_weight.present = c.grad_bias.present = false;
         c.input.null_data = c.grad_out.null_data = true;
       }},
      {"empty_rows", [](CallSpec &c) {
         c.input.dims = c.grad_out.dims = c.grad_input.dims = {0, 2, 4};
         c.mean.dims = c.rstd.dims = {0, 2, 1};
       }},
      {"empty_row_length", [](CallSpec &c) {
         c.input.dims = c.grad_out.dims = c.grad_input.dims = {5, 0, 3};
         c.normalized_shape = {0, 3};
         c.mean.dims = c.rstd.dims = {5, 1, 1};
         c.weight.dims = c.bias.dims = {0, 3};
         c.grad_weight.dims = c.grad_bias.dims = {0};
       }},
  };
}

class AcceptedTest : public ::testing::TestWithParam<AcceptedCase> {};

TEST_P(AcceptedTest, Succeeds) {
  CallSpec spec;
  GetParam().adjust(spec);
  BuiltCall call(spec, TestSeed());
  uint64_t workspace_size = 0;
  aclOpExecutor *executor = nullptr;
  ASSERT_EQ(call.GetWorkspaceSize(&workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_NE(executor, nullptr);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Table, AcceptedTest, ::testing::ValuesIn(AcceptedCases()),
                         [](const ::testing::TestParamInfo<AcceptedCase> &info) { return std::string(info.param.name); });

}  // namespace
}  // namespace lnb_test
