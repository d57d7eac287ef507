#include "ops/layer_norm/layer_norm_check.h"

#include <utility>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "ops/common/operand_checks.h"
#include "runtime/error_log.h"
#include "tensor/tensor.h"

namespace aclhost {
namespace {

constexpr size_t kMaxRank = 8;

#define RETURN_IF_FAILED(expression)              \
  do {                                            \
    const aclnnStatus status_ = (expression);     \
    if (status_ != ACLNN_SUCCESS) return status_; \
  } while (0)

class Checker {
 public:
  explicit Checker(const char *api) : api_(api) {}

  aclnnStatus Null(const char *name) const {
    ReportError(ErrorKind::kParameter, "%s: %s is NULL; expected a valid pointer", api_, name);
    return ACLNN_ERR_PARAM_NULLPTR;
  }

  aclnnStatus Dtype(const char *name, const aclTensor *tensor) const {
    if (tensor == nullptr) return ACLNN_SUCCESS;
    const aclDataType dtype = tensor->view.dtype;
    if (dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16) return ACLNN_SUCCESS;
    return InvalidParameter(api_, "%s has dtype %s (%d); expected FLOAT, FLOAT16 or BF16", name, DataTypeName(dtype),
                            static_cast<int>(dtype));
  }

  // weight and bias: FLOAT or the dtype of input.
  aclnnStatus AffineDtype(const char *name, const aclTensor *tensor, aclDataType input_dtype) const {
    if (tensor == nullptr) return ACLNN_SUCCESS;
    RETURN_IF_FAILED(Dtype(name, tensor));
    if (tensor->view.dtype == ACL_FLOAT || tensor->view.dtype == input_dtype) return ACLNN_SUCCESS;
    return InvalidParameter(api_, "%s has dtype %s; expected FLOAT or the dtype of input, %s", name,
                            DataTypeName(tensor->view.dtype), DataTypeName(input_dtype));
  }

  aclnnStatus RankAtMost8(const char *name, const aclTensor *tensor) const {
    if (tensor == nullptr || tensor->view.dims.size() <= kMaxRank) return ACLNN_SUCCESS;
    return InvalidParameter(api_, "%s has %zu dims; expected at most 8", name, tensor->view.dims.size());
  }

  aclnnStatus AffineRank(const char *name, const aclTensor *tensor, size_t normalized_dims) const {
    if (tensor == nullptr || tensor->view.dims.size() == normalized_dims) return ACLNN_SUCCESS;
    return InvalidParameter(api_, "%s has %zu dims; expected %zu, the length of normalizedShape", name,
                            tensor->view.dims.size(), normalized_dims);
  }

  aclnnStatus AffineDim(const char *name, const aclTensor *tensor, size_t k, int64_t expected) const {
    if (tensor == nullptr || tensor->view.dims[k] == expected) return ACLNN_SUCCESS;
    return InvalidParameter(api_, "%s dim %zu is %lld; expected normalizedShape[%zu] = %lld", name, k,
                            static_cast<long long>(tensor->view.dims[k]), k, static_cast<long long>(expected));
  }

  // Our contract (upstream checks it on one chip family only): a non-empty mean/rstd output has
  // input's rank, its leading dims, and ones for the normalized dims.
  aclnnStatus StatisticsShape(const char *name, const aclTensor *tensor, const std::vector<int64_t> &input_dims,
                              size_t begin_axis) const {
    if (tensor == nullptr || tensor->view.NumElements() == 0) return ACLNN_SUCCESS;
    const std::vector<int64_t> &dims = tensor->view.dims;
    bool as_expected = dims.size() == input_dims.size();
    for (size_t d = 0; as_expected && d < dims.size(); ++d) as_expected = dims[d] == (d < begin_axis ? input_dims[d] : 1);
    if (as_expected) return ACLNN_SUCCESS;  // compared in place: a correct call allocates nothing here
    std::vector<int64_t> expected(input_dims.begin(), input_dims.begin() + static_cast<std::ptrdiff_t>(begin_axis));
    expected.resize(input_dims.size(), 1);
    return InvalidParameter(api_, "%s has shape %s; expected %s (input's leading dims, then ones)", name,
                            DimsToString(tensor->view.dims).c_str(), DimsToString(expected).c_str());
  }

 private:
  const char *api_;
};

int64_t ProductOfDims(const std::vector<int64_t> &dims, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t d = begin; d < end; ++d) {
    if (__builtin_mul_overflow(product, dims[d], &product)) return -1;
  }
  return product;
}

}  // namespace

aclnnStatus CheckLayerNorm(const char *api, const LayerNormOperands &op, LayerNormShape *shape) {
  const Checker check(api);
  // Step 2: required pointers.
  if (op.input == nullptr) return check.Null("input");
  if (op.normalized_shape == nullptr) return check.Null("normalizedShape");
  if (op.out == nullptr) return check.Null("out");

  // Step 3: input dtypes.
  RETURN_IF_FAILED(check.Dtype("input", op.input));
  const aclDataType input_dtype = op.input->view.dtype;
  RETURN_IF_FAILED(check.AffineDtype("weightOptional", op.weight, input_dtype));
  RETURN_IF_FAILED(check.AffineDtype("biasOptional", op.bias, input_dtype));
  if (op.weight != nullptr && op.bias != nullptr && op.weight->view.dtype != op.bias->view.dtype) {
    return InvalidParameter(api, "weightOptional has dtype %s but biasOptional %s; expected the same dtype",
                            DataTypeName(op.weight->view.dtype), DataTypeName(op.bias->view.dtype));
  }
  // Step 4: output dtypes.
  RETURN_IF_FAILED(check.Dtype("out", op.out));
  RETURN_IF_FAILED(check.Dtype("meanOutOptional", op.mean));
  RETURN_IF_FAILED(check.Dtype("rstdOutOptional", op.rstd));

  // Step 5: ranks.
  RETURN_IF_FAILED(check.RankAtMost8("input", op.input));
  RETURN_IF_FAILED(check.RankAtMost8("out", op.out));
  RETURN_IF_FAILED(check.RankAtMost8("weightOptional", op.weight));
  RETURN_IF_FAILED(check.RankAtMost8("biasOptional", op.bias));
  RETURN_IF_FAILED(check.RankAtMost8("meanOutOptional", op.mean));
  RETURN_IF_FAILED(check.RankAtMost8("rstdOutOptional", op.rstd));
  const std::vector<int64_t> &normalized = op.normalized_shape->values;
  if (normalized.size() > kMaxRank) {
    return InvalidParameter(api, "normalizedShape has %zu values; expected 1 to 8", normalized.size());
  }
  // Steps 6-8.
  if (normalized.empty()) return InvalidParameter(api, "normalizedShape is empty; expected 1 to 8 values");
  const std::vector<int64_t> &input_dims = op.input->view.dims;
  if (input_dims.size() < normalized.size()) {
    return InvalidParameter(api, "input has %zu dims, fewer than the %zu values of normalizedShape", input_dims.size(),
                            normalized.size());
  }
  RETURN_IF_FAILED(check.AffineRank("weightOptional", op.weight, normalized.size()));
  RETURN_IF_FAILED(check.AffineRank("biasOptional", op.bias, normalized.size()));
  // Step 9: input's trailing dims, weight's and bias's dims, value by value.
  const size_t begin_axis = input_dims.size() - normalized.size();
  for (size_t k = 0; k < normalized.size(); ++k) {
    if (input_dims[begin_axis + k] != normalized[k]) {
      return InvalidParameter(api, "normalizedShape[%zu] is %lld but input dim %zu is %lld; expected input's trailing dims",
                              k, static_cast<long long>(normalized[k]), begin_axis + k,
                              static_cast<long long>(input_dims[begin_axis + k]));
    }
    RETURN_IF_FAILED(check.AffineDim("weightOptional", op.weight, k, normalized[k]));
    RETURN_IF_FAILED(check.AffineDim("biasOptional", op.bias, k, normalized[k]));
  }
  // Step 10.
  if (op.out->view.dims != input_dims) {
    return InvalidParameter(api, "out has shape %s; expected the shape of input, %s", DimsToString(op.out->view.dims).c_str(),
                            DimsToString(input_dims).c_str());
  }
  // Step 11 (our contract): the statistics' documented shape.
  RETURN_IF_FAILED(check.StatisticsShape("meanOutOptional", op.mean, input_dims, begin_axis));
  RETURN_IF_FAILED(check.StatisticsShape("rstdOutOptional", op.rstd, input_dims, begin_axis));
  if (op.mean != nullptr && op.rstd != nullptr && op.mean->view.dims != op.rstd->view.dims) {
    return InvalidParameter(api, "meanOutOptional has shape %s but rstdOutOptional %s; expected the same shape",
                            DimsToString(op.mean->view.dims).c_str(), DimsToString(op.rstd->view.dims).c_str());
  }
  // Step 12.
  if (op.impl_mode < 0 || op.impl_mode > 2) {
    return InvalidParameter(api, "implMode is %d; expected 0 (high precision), 1 (high performance) or 2 (keep FLOAT16)",
                            op.impl_mode);
  }
  if (op.impl_mode == 2) {
    for (const auto &[name, tensor] : {std::pair{"input", op.input}, std::pair{"weightOptional", op.weight},
                                       std::pair{"biasOptional", op.bias}}) {
      if (tensor != nullptr && tensor->view.dtype != ACL_FLOAT16) {
        return InvalidParameter(api, "implMode 2 keeps FLOAT16 but %s has dtype %s; expected FLOAT16", name,
                                DataTypeName(tensor->view.dtype));
      }
    }
  }
  const int64_t rows = ProductOfDims(input_dims, 0, begin_axis);
  const int64_t cols = ProductOfDims(input_dims, begin_axis, input_dims.size());
  if (rows < 0 || cols < 0) {
    return InvalidParameter(api, "input shape %s: the row count or row length overflows int64",
                            DimsToString(input_dims).c_str());
  }

  // Host-only: addresses and shared memory of what the call touches. No rows: nothing; empty
  // rows: only the statistics (mean 0, rstd NaN).
  NamedTensors inputs, outputs;
  if (rows > 0 && cols > 0) {
    inputs = {{"input", op.input, true}, {"weightOptional", op.weight, false}, {"biasOptional", op.bias, false}};
    outputs.push_back({"out", op.out, false});
  }
  if (rows > 0) {
    if (op.mean != nullptr) outputs.push_back({"meanOutOptional", op.mean, false});
    if (op.rstd != nullptr) outputs.push_back({"rstdOutOptional", op.rstd, false});
  }
  for (const NamedTensors *list : {&inputs, &outputs}) {
    for (const NamedTensor &operand : *list) RETURN_IF_FAILED(CheckAddress(api, operand.name, operand.tensor));
  }
  RETURN_IF_FAILED(CheckOutputMemory(api, outputs, inputs, op.out));

  shape->rows = rows;
  shape->cols = cols;
  return ACLNN_SUCCESS;
}

}  // namespace aclhost
