#include "ops/layer_norm_backward/layer_norm_backward_check.h"

#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "ops/common/operand_checks.h"
#include "runtime/error_log.h"
#include "tensor/tensor.h"

namespace aclhost {
namespace {

constexpr const char *kApi = "aclnnLayerNormBackwardGetWorkspaceSize";
constexpr size_t kMaxRank = 8;

// Every message names this function first.
#define Invalid(...) InvalidParameter(kApi, __VA_ARGS__)

aclnnStatus NullParameter(const char *name, const char *why) {
  ReportError(ErrorKind::kParameter, "%s: %s is NULL; expected %s", kApi, name, why);
  return ACLNN_ERR_PARAM_NULLPTR;
}

bool IsSupportedDtype(aclDataType dtype) { return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16; }

aclnnStatus CheckDtype(const char *name, const aclTensor *tensor) {
  if (IsSupportedDtype(tensor->view.dtype)) return ACLNN_SUCCESS;
  return Invalid("%s has dtype %s (%d); expected FLOAT, FLOAT16 or BF16", name, DataTypeName(tensor->view.dtype),
                 static_cast<int>(tensor->view.dtype));
}

aclnnStatus CheckRank(const char *name, const aclTensor *tensor) {
  const size_t rank = tensor->view.dims.size();
  if (rank >= 1 && rank <= kMaxRank) return ACLNN_SUCCESS;
  return Invalid("%s has %zu dims; expected 1 to 8", name, rank);
}

aclnnStatus CheckSameShape(const char *name, const aclTensor *tensor, const char *other_name, const aclTensor *other) {
  if (tensor->view.dims == other->view.dims) return ACLNN_SUCCESS;
  return Invalid("%s has shape %s; expected the shape of %s, %s", name, DimsToString(tensor->view.dims).c_str(),
                 other_name, DimsToString(other->view.dims).c_str());
}

aclnnStatus CheckElementCount(const char *name, const aclTensor *tensor, int64_t expected, const char *what) {
  const int64_t count = tensor->view.NumElements();
  if (count == expected) return ACLNN_SUCCESS;
  return Invalid("%s has shape %s (%lld elements); expected %lld elements (%s)", name,
                 DimsToString(tensor->view.dims).c_str(), static_cast<long long>(count), static_cast<long long>(expected),
                 what);
}

// Steps 9 and 10: weight and bias must have exactly the normalized shape.
aclnnStatus CheckAffineShape(const char *name, const aclTensor *tensor, const std::vector<int64_t> &normalized) {
  if (tensor == nullptr) return ACLNN_SUCCESS;
  aclnnStatus status = CheckRank(name, tensor);
  if (status != ACLNN_SUCCESS) return status;
  if (tensor->view.dims.size() != normalized.size()) {
    return Invalid("%s has %zu dims; expected %zu, the length of normalizedShape", name, tensor->view.dims.size(),
                   normalized.size());
  }
  for (size_t k = 0; k < normalized.size(); ++k) {
    if (tensor->view.dims[k] != normalized[k]) {
      return Invalid("%s dim %zu is %lld; expected normalizedShape[%zu] = %lld", name, k,
                     static_cast<long long>(tensor->view.dims[k]), k, static_cast<long long>(normalized[k]));
    }
  }
  return ACLNN_SUCCESS;
}

// Product of dims[begin, end), or -1 when it overflows int64.
int64_t ProductOfDims(const std::vector<int64_t> &dims, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t d = begin; d < end; ++d) {
    if (__builtin_mul_overflow(product, dims[d], &product)) return -1;
  }
  return product;
}

#define RETURN_IF_FAILED(expression)                  \
  do {                                                \
    const aclnnStatus status_ = (expression);         \
    if (status_ != ACLNN_SUCCESS) return status_;     \
  } while (0)

}  // namespace

aclnnStatus CheckLayerNormBackward(const LayerNormBackwardOperands &op, LayerNormBackwardShape *shape) {
  // Step 1: required inputs.
  if (op.grad_out == nullptr) return NullParameter("gradOut", "a tensor");
  if (op.input == nullptr) return NullParameter("input", "a tensor");
  if (op.normalized_shape == nullptr) return NullParameter("normalizedShape", "an aclIntArray");
  if (op.mean == nullptr) return NullParameter("mean", "a tensor");
  if (op.rstd == nullptr) return NullParameter("rstd", "a tensor");
  if (op.output_mask == nullptr) return NullParameter("outputMask", "an aclBoolArray of 3 values");

  // Step 2.
  const std::vector<bool> &mask = op.output_mask->values;
  if (mask.size() != 3) return Invalid("outputMask has %zu values; expected 3", mask.size());

  // Step 3: an output asked for must be given.
  if (mask[0] && op.grad_input == nullptr) return NullParameter("gradInputOut", "a tensor because outputMask[0] is true");
  if (mask[1] && op.grad_weight == nullptr) return NullParameter("gradWeightOut", "a tensor because outputMask[1] is true");
  if (mask[2] && op.grad_bias == nullptr) return NullParameter("gradBiasOut", "a tensor because outputMask[2] is true");

  // Step 4: dtypes, before any shape check; outputs are checked whatever the mask says.
  RETURN_IF_FAILED(CheckDtype("gradOut", op.grad_out));
  RETURN_IF_FAILED(CheckDtype("input", op.input));
  RETURN_IF_FAILED(CheckDtype("mean", op.mean));
  RETURN_IF_FAILED(CheckDtype("rstd", op.rstd));
  const aclDataType input_dtype = op.input->view.dtype;
  if (op.grad_out->view.dtype != input_dtype) {
    return Invalid("gradOut has dtype %s; expected the dtype of input, %s", DataTypeName(op.grad_out->view.dtype),
                   DataTypeName(input_dtype));
  }
  if (op.weight != nullptr) {
    RETURN_IF_FAILED(CheckDtype("weightOptional", op.weight));
    const aclDataType weight_dtype = op.weight->view.dtype;
    if (weight_dtype != ACL_FLOAT && weight_dtype != input_dtype) {
      return Invalid("weightOptional has dtype %s; expected FLOAT or the dtype of input, %s", DataTypeName(weight_dtype),
                     DataTypeName(input_dtype));
    }
  }
  if (op.bias != nullptr) RETURN_IF_FAILED(CheckDtype("biasOptional", op.bias));
  if (op.grad_input != nullptr) RETURN_IF_FAILED(CheckDtype("gradInputOut", op.grad_input));
  if (op.grad_weight != nullptr) RETURN_IF_FAILED(CheckDtype("gradWeightOut", op.grad_weight));
  if (op.grad_bias != nullptr) RETURN_IF_FAILED(CheckDtype("gradBiasOut", op.grad_bias));

  // Step 5: ranks. (Negative dims, step 5d, cannot reach here: aclCreateTensor rejects them.)
  RETURN_IF_FAILED(CheckRank("gradOut", op.grad_out));
  RETURN_IF_FAILED(CheckRank("input", op.input));
  RETURN_IF_FAILED(CheckRank("mean", op.mean));
  RETURN_IF_FAILED(CheckRank("rstd", op.rstd));
  const std::vector<int64_t> &normalized = op.normalized_shape->values;
  if (normalized.size() > kMaxRank) return Invalid("normalizedShape has %zu values; expected 1 to 8", normalized.size());
  if (mask[0]) RETURN_IF_FAILED(CheckRank("gradInputOut", op.grad_input));
  if (mask[1]) RETURN_IF_FAILED(CheckRank("gradWeightOut", op.grad_weight));
  if (mask[2]) RETURN_IF_FAILED(CheckRank("gradBiasOut", op.grad_bias));

  // Steps 6-8: normalizedShape against input's trailing dims (all of them, unlike upstream).
  if (normalized.empty()) return Invalid("normalizedShape is empty; expected 1 to 8 values");
  const std::vector<int64_t> &input_dims = op.input->view.dims;
  if (input_dims.size() < normalized.size()) {
    return Invalid("input has %zu dims, fewer than the %zu values of normalizedShape", input_dims.size(),
                   normalized.size());
  }
  const size_t begin_axis = input_dims.size() - normalized.size();
  for (size_t k = 0; k < normalized.size(); ++k) {
    if (input_dims[begin_axis + k] != normalized[k]) {
      return Invalid("normalizedShape[%zu] is %lld but input dim %zu is %lld; expected input's trailing dims %s", k,
                     static_cast<long long>(normalized[k]), begin_axis + k,
                     static_cast<long long>(input_dims[begin_axis + k]), DimsToString(normalized).c_str());
    }
  }
  const int64_t rows = ProductOfDims(input_dims, 0, begin_axis);
  const int64_t cols = ProductOfDims(input_dims, begin_axis, input_dims.size());
  if (rows < 0 || cols < 0) {
    return Invalid("input shape %s: the row count or row length overflows int64", DimsToString(input_dims).c_str());
  }

  // Steps 9-10.
  RETURN_IF_FAILED(CheckAffineShape("weightOptional", op.weight, normalized));
  RETURN_IF_FAILED(CheckAffineShape("biasOptional", op.bias, normalized));

  // Steps 11-16.
  RETURN_IF_FAILED(CheckSameShape("gradOut", op.grad_out, "input", op.input));
  RETURN_IF_FAILED(CheckSameShape("mean", op.mean, "rstd", op.rstd));
  RETURN_IF_FAILED(CheckElementCount("mean", op.mean, rows, "one per row of input"));
  if (mask[0]) RETURN_IF_FAILED(CheckSameShape("gradInputOut", op.grad_input, "input", op.input));
  if (mask[1]) RETURN_IF_FAILED(CheckElementCount("gradWeightOut", op.grad_weight, cols, "the normalized size"));
  if (mask[2]) RETURN_IF_FAILED(CheckElementCount("gradBiasOut", op.grad_bias, cols, "the normalized size"));

  // Step 17: addresses of what will actually be touched.
  const bool any_output = mask[0] || mask[1] || mask[2];
  const bool computes = any_output && rows > 0 && cols > 0;
  if (computes) {
    RETURN_IF_FAILED(CheckAddress(kApi, "gradOut", op.grad_out));
    RETURN_IF_FAILED(CheckAddress(kApi, "input", op.input));
    RETURN_IF_FAILED(CheckAddress(kApi, "mean", op.mean));
    RETURN_IF_FAILED(CheckAddress(kApi, "rstd", op.rstd));
    RETURN_IF_FAILED(CheckAddress(kApi, "weightOptional", op.weight));
    if (mask[0]) RETURN_IF_FAILED(CheckAddress(kApi, "gradInputOut", op.grad_input));
  }
  if (computes || rows == 0) {
    if (mask[1]) RETURN_IF_FAILED(CheckAddress(kApi, "gradWeightOut", op.grad_weight));
    if (mask[2]) RETURN_IF_FAILED(CheckAddress(kApi, "gradBiasOut", op.grad_bias));
  }

  // Step 18: memory shared between what the call writes and anything else it touches.
  NamedTensors inputs;
  if (computes) {
    inputs = {{"gradOut", op.grad_out, true}, {"input", op.input, true}, {"mean", op.mean, false},
              {"rstd", op.rstd, false}, {"weightOptional", op.weight, false}};
  }
  NamedTensors outputs;
  if (computes && mask[0]) outputs.push_back({"gradInputOut", op.grad_input, false});
  if ((computes || rows == 0) && mask[1]) outputs.push_back({"gradWeightOut", op.grad_weight, false});
  if ((computes || rows == 0) && mask[2]) outputs.push_back({"gradBiasOut", op.grad_bias, false});
  RETURN_IF_FAILED(CheckOutputMemory(kApi, outputs, inputs, op.grad_input));

  shape->rows = rows;
  shape->cols = cols;
  shape->want_grad_input = mask[0];
  shape->want_grad_weight = mask[1];
  shape->want_grad_bias = mask[2];
  return ACLNN_SUCCESS;
}

}  // namespace aclhost
