// aclnnLayerNorm phase 1: the spec's validation order, each row with its code, a message naming
// the parameter, nothing written and the out-parameters untouched; and the calls it must accept.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "device_tensor.h"

namespace lnb_test {
namespace {

struct Operand {
  bool present = true;
  std::vector<int64_t> dims;
  aclDataType dtype = ACL_FLOAT;
  bool null_data = false;
};

// A valid call: input [2,3,4] over the last dim, with weight, bias and both statistics.
struct ForwardSpec {
  Operand input{true, {2, 3, 4}}, weight{true, {4}}, bias{true, {4}}, out{true, {2, 3, 4}};
  Operand mean{true, {2, 3, 1}}, rstd{true, {2, 3, 1}};
  bool has_normalized_shape = true;
  std::vector<int64_t> normalized_shape{4};
  int32_t impl_mode = 0;
  bool has_workspace_size = true, has_executor = true;
};

const std::vector<int64_t> kNineDims{1, 1, 1, 1, 1, 2, 3, 1, 4};

// Builds the call's tensors (random inputs) and runs phase 1 of the ImplMode variant.
class BuiltForward {
 public:
  explicit BuiltForward(const ForwardSpec &spec) : spec_(spec) {
    std::mt19937_64 random(TestSeed());
    const Operand *operands[] = {&spec.input, &spec.weight, &spec.bias, &spec.out, &spec.mean, &spec.rstd};
    for (int k = 0; k < 6; ++k) {
      const Operand &operand = *operands[k];
      if (!operand.present) continue;
      if (operand.null_data) {
        handles_[k] = aclCreateTensor(operand.dims.data(), operand.dims.size(), operand.dtype, nullptr, 0, ACL_FORMAT_ND,
                                      operand.dims.data(), operand.dims.size(), nullptr);
        bare_[k] = handles_[k];
        continue;
      }
      tensors_[k] = std::make_unique<DeviceTensor>(operand.dims, operand.dtype);
      handles_[k] = tensors_[k]->get();
      const bool floating = operand.dtype == ACL_FLOAT || operand.dtype == ACL_FLOAT16 || operand.dtype == ACL_BF16;
      if (k < 3 && floating) tensors_[k]->Write(RandomValues(static_cast<size_t>(tensors_[k]->NumElements()), random));
    }
    if (spec.has_normalized_shape) normalized_ = aclCreateIntArray(spec.normalized_shape.data(), spec.normalized_shape.size());
  }
  ~BuiltForward() {
    for (aclTensor *tensor : bare_) aclDestroyTensor(tensor);
    aclDestroyIntArray(normalized_);
  }

  aclnnStatus GetWorkspaceSize(uint64_t *workspace_size, aclOpExecutor **executor) {
    return aclnnLayerNormWithImplModeGetWorkspaceSize(handles_[0], normalized_, handles_[1], handles_[2], 1e-5, handles_[3],
                                                      handles_[4], handles_[5], spec_.impl_mode,
                                                      spec_.has_workspace_size ? workspace_size : nullptr,
                                                      spec_.has_executor ? executor : nullptr);
  }

  std::vector<std::vector<uint8_t>> OutputBytes() const {
    std::vector<std::vector<uint8_t>> bytes;
    for (int k = 3; k < 6; ++k) bytes.push_back(tensors_[k] ? tensors_[k]->StorageBytes() : std::vector<uint8_t>{});
    return bytes;
  }

 private:
  const ForwardSpec spec_;
  std::unique_ptr<DeviceTensor> tensors_[6];
  aclTensor *handles_[6] = {};
  aclTensor *bare_[6] = {};
  aclIntArray *normalized_ = nullptr;
};

struct ValidationCase {
  const char *name;
  std::function<void(ForwardSpec &)> break_call;
  aclnnStatus expected;
  const char *message_names;
};

std::vector<ValidationCase> Cases() {
  const aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR, kInvalid = ACLNN_ERR_PARAM_INVALID;
  return {
      {"s1_workspace_size_null", [](ForwardSpec &c) { c.has_workspace_size = false; c.input.present = false; }, kNull, "workspaceSize"},
      {"s1_executor_null", [](ForwardSpec &c) { c.has_executor = false; }, kNull, "executor"},
      {"s2_input_null", [](ForwardSpec &c) { c.input.present = false; c.has_normalized_shape = false; }, kNull, "input"},
      {"s2_normalized_shape_null", [](ForwardSpec &c) { c.has_normalized_shape = false; c.out.present = false; }, kNull, "normalizedShape"},
      {"s2_out_null", [](ForwardSpec &c) { c.out.present = false; c.input.dtype = ACL_INT32; }, kNull, "out"},
      {"s3_input_dtype", [](ForwardSpec &c) { c.input.dtype = ACL_DOUBLE; c.weight.dtype = ACL_INT8; }, kInvalid, "input"},
      {"s3_weight_dtype", [](ForwardSpec &c) { c.weight.dtype = ACL_INT32; c.bias.dtype = ACL_INT32; }, kInvalid, "weightOptional"},
      {"s3_weight_neither_float_nor_input", [](ForwardSpec &c) { c.input.dtype = ACL_BF16; c.weight.dtype = ACL_FLOAT16; }, kInvalid, "weightOptional"},
      {"s3_bias_dtype", [](ForwardSpec &c) { c.bias.dtype = ACL_UINT8; c.out.dtype = ACL_INT32; }, kInvalid, "biasOptional"},
      {"s3_weight_and_bias_differ", [](ForwardSpec &c) { c.input.dtype = ACL_FLOAT16; c.weight.dtype = ACL_FLOAT16; }, kInvalid, "biasOptional"},
      {"s4_out_dtype", [](ForwardSpec &c) { c.out.dtype = ACL_INT32; c.mean.dtype = ACL_INT32; }, kInvalid, "out"},
      {"s4_mean_dtype", [](ForwardSpec &c) { c.mean.dtype = ACL_INT64; c.input.dims = kNineDims; }, kInvalid, "meanOutOptional"},
      {"s4_rstd_dtype", [](ForwardSpec &c) { c.rstd.dtype = ACL_DOUBLE; }, kInvalid, "rstdOutOptional"},
      {"s5_input_rank_9", [](ForwardSpec &c) { c.input.dims = kNineDims; c.out.dims = kNineDims; c.normalized_shape = {}; }, kInvalid, "input"},
      {"s5_out_rank_9", [](ForwardSpec &c) { c.out.dims = kNineDims; c.weight.dims = kNineDims; }, kInvalid, "out"},
      {"s5_weight_rank_9", [](ForwardSpec &c) { c.weight.dims = kNineDims; c.mean.dims = kNineDims; }, kInvalid, "weightOptional"},
      {"s5_rstd_rank_9", [](ForwardSpec &c) { c.rstd.dims = kNineDims; c.normalized_shape.assign(9, 1); }, kInvalid, "rstdOutOptional"},
      {"s5_normalized_shape_9", [](ForwardSpec &c) { c.normalized_shape.assign(9, 1); }, kInvalid, "normalizedShape"},
      {"s6_normalized_shape_empty", [](ForwardSpec &c) { c.normalized_shape = {}; c.weight.dims = {1, 4}; }, kInvalid, "normalizedShape"},
      {"s7_input_rank_below_normalized", [](ForwardSpec &c) { c.normalized_shape = {1, 2, 3, 4}; c.weight.dims = {5}; }, kInvalid, "normalizedShape"},
      {"s8_weight_rank", [](ForwardSpec &c) { c.weight.dims = {1, 4}; c.input.dims = {2, 3, 5}; }, kInvalid, "weightOptional"},
      {"s8_bias_rank", [](ForwardSpec &c) { c.bias.dims = {1, 4}; }, kInvalid, "biasOptional"},
      {"s9_trailing_dim", [](ForwardSpec &c) { c.input.dims = {2, 3, 5}; c.weight.dims = {5}; }, kInvalid, "normalizedShape[0]"},
      {"s9_weight_dim", [](ForwardSpec &c) { c.weight.dims = {5}; c.bias.dims = {5}; }, kInvalid, "weightOptional"},
      {"s9_bias_dim", [](ForwardSpec &c) { c.bias.dims = {5}; c.out.dims = {2, 3, 5}; }, kInvalid, "biasOptional"},
      {"s10_out_shape", [](ForwardSpec &c) { c.out.dims = {6, 4}; c.mean.dims = {6, 1}; }, kInvalid, "out"},
      {"s11_mean_shape", [](ForwardSpec &c) { c.mean.dims = {6, 1}; c.rstd.dims = {6, 1}; }, kInvalid, "meanOutOptional"},
      {"s11_mean_and_rstd_differ", [](ForwardSpec &c) { c.rstd.dims = {0}; c.mean.dims = {2, 3, 1}; }, kInvalid, "rstdOutOptional"},
      {"s12_impl_mode_3", [](ForwardSpec &c) { c.impl_mode = 3; }, kInvalid, "implMode"},
      {"s12_impl_mode_negative", [](ForwardSpec &c) { c.impl_mode = -1; }, kInvalid, "implMode"},
      {"s12_keep_fp16_needs_fp16", [](ForwardSpec &c) { c.impl_mode = 2; c.input.dtype = ACL_FLOAT16; }, kInvalid, "weightOptional"},
      {"s13_input_null_data", [](ForwardSpec &c) { c.input.null_data = true; }, kNull, "input"},
      {"s13_rstd_null_data", [](ForwardSpec &c) { c.rstd.null_data = true; }, kNull, "rstdOutOptional"},
  };
}

class ForwardValidationTest : public ::testing::TestWithParam<ValidationCase> {};

TEST_P(ForwardValidationTest, ReturnsItsCodeWithAMessageAndWritesNothing) {
  const ValidationCase &c = GetParam();
  ForwardSpec spec;
  c.break_call(spec);
  BuiltForward call(spec);
  const auto before = call.OutputBytes();
  uint64_t workspace_size = 777;
  aclOpExecutor *const kUntouched = reinterpret_cast<aclOpExecutor *>(uintptr_t{0x99});
  aclOpExecutor *executor = kUntouched;
  EXPECT_EQ(call.GetWorkspaceSize(&workspace_size, &executor), c.expected);
  const char *message = aclGetRecentErrMsg();
  ASSERT_NE(message, nullptr);
  EXPECT_NE(std::string(message).find(c.message_names), std::string::npos) << message;
  EXPECT_NE(std::string(message).find("aclnnLayerNormWithImplModeGetWorkspaceSize"), std::string::npos) << message;
  EXPECT_EQ(workspace_size, 777u);
  EXPECT_EQ(executor, kUntouched);
  EXPECT_EQ(call.OutputBytes(), before);
}

INSTANTIATE_TEST_SUITE_P(Table, ForwardValidationTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<ValidationCase> &info) { return std::string(info.param.name); });

struct AcceptedCase {
  const char *name;
  std::function<void(ForwardSpec &)> change;
};

class ForwardAcceptedTest : public ::testing::TestWithParam<AcceptedCase> {};

TEST_P(ForwardAcceptedTest, Succeeds) {
  ForwardSpec spec;
  GetParam().change(spec);
  BuiltForward call(spec);
  uint64_t workspace_size = 0;
  aclOpExecutor *executor = nullptr;
  ASSERT_EQ(call.GetWorkspaceSize(&workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ForwardAcceptedTest,
    ::testing::Values(AcceptedCase{"no_weight_no_bias_no_statistics", [](ForwardSpec &c) {
                        c.weight.present = c.bias.present = c.mean.present = c.rstd.present = false;
                      }},
                      AcceptedCase{"keep_fp16_with_fp16_operands", [](ForwardSpec &c) {
                        c.impl_mode = 2;
                        c.input.dtype = c.weight.dtype = c.bias.dtype = ACL_FLOAT16;
                      }},
                      AcceptedCase{"normalize_over_every_dim", [](ForwardSpec &c) {
                        c.normalized_shape = {2, 3, 4};
                        c.weight.dims = c.bias.dims = {2, 3, 4};
                        c.mean.dims = c.rstd.dims = {1, 1, 1};
                      }},
                      AcceptedCase{"statistics_of_other_dtypes", [](ForwardSpec &c) {
                        c.mean.dtype = ACL_BF16;
                        c.rstd.dtype = ACL_FLOAT16;
                        c.out.dtype = ACL_BF16;
                      }},
                      AcceptedCase{"empty_statistics_shape_unchecked", [](ForwardSpec &c) {
                        c.input.dims = c.out.dims = {0, 3, 4};
                        c.mean.dims = c.rstd.dims = {0};
                      }}),
    [](const ::testing::TestParamInfo<AcceptedCase> &info) { return std::string(info.param.name); });

}  // namespace
}  // namespace lnb_test
