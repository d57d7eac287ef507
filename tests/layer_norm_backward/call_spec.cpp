#include "call_spec.h"

#include <gtest/gtest.h>

#include <memory>

namespace lnb_test {
namespace {

bool IsFloating(aclDataType dtype) { return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16; }

}  // namespace

void CallSpec::SetDataDtype(aclDataType dtype) {
  for (TensorSpec *spec : {&grad_out, &input, &weight, &bias, &grad_input, &grad_weight, &grad_bias}) spec->dtype = dtype;
}

BuiltCall::BuiltCall(const CallSpec &spec, uint64_t seed) : spec_(spec) {
  std::mt19937_64 random(seed);
  const TensorSpec *specs[9] = {&spec.grad_out, &spec.input,      &spec.mean,        &spec.rstd,     &spec.weight,
                                &spec.bias,     &spec.grad_input, &spec.grad_weight, &spec.grad_bias};
  tensors_.resize(9);
  for (int i = 0; i < 9; ++i) {
    const TensorSpec &tensor = *specs[i];
    if (!tensor.present) continue;
    if (tensor.null_data) {
      handles_[i] = aclCreateTensor(tensor.dims.data(), tensor.dims.size(), tensor.dtype, nullptr, 0, ACL_FORMAT_ND,
                                    tensor.dims.data(), tensor.dims.size(), nullptr);
      null_data_tensors_.push_back(handles_[i]);
      continue;
    }
    tensors_[i] = std::make_unique<DeviceTensor>(tensor.dims, tensor.dtype);
    handles_[i] = tensors_[i]->get();
    const bool is_input = i < 6;
    if (is_input && IsFloating(tensor.dtype)) {
      // rstd must be positive to look like a real forward's output; nothing here depends on it.
      tensors_[i]->Write(RandomValues(static_cast<size_t>(tensors_[i]->NumElements()), random, 1.0, i == 3 ? 2.0 : 0.0));
    }
  }
  if (spec.has_normalized_shape) normalized_shape_ = aclCreateIntArray(spec.normalized_shape.data(), spec.normalized_shape.size());
  if (spec.has_output_mask) {
    std::unique_ptr<bool[]> mask(new bool[spec.output_mask.size() + 1]);
    for (size_t i = 0; i < spec.output_mask.size(); ++i) mask[i] = spec.output_mask[i];
    output_mask_ = aclCreateBoolArray(mask.get(), spec.output_mask.size());
  }
}

BuiltCall::~BuiltCall() { DestroyDescriptors(); }

void BuiltCall::DestroyDescriptors() {
  for (aclTensor *tensor : null_data_tensors_) aclDestroyTensor(tensor);
  null_data_tensors_.clear();
  for (auto &tensor : tensors_) {
    if (tensor && tensor->get() != nullptr) tensor->DestroyDescriptor();
  }
  aclDestroyIntArray(normalized_shape_);
  aclDestroyBoolArray(output_mask_);
  normalized_shape_ = nullptr;
  output_mask_ = nullptr;
}

aclnnStatus BuiltCall::GetWorkspaceSize(uint64_t *workspace_size, aclOpExecutor **executor) {
  return aclnnLayerNormBackwardGetWorkspaceSize(handles_[0], handles_[1], normalized_shape_, handles_[2], handles_[3],
                                                handles_[4], handles_[5], output_mask_, handles_[6], handles_[7],
                                                handles_[8], spec_.has_workspace_size ? workspace_size : nullptr,
                                                spec_.has_executor ? executor : nullptr);
}

std::vector<std::vector<uint8_t>> BuiltCall::OutputBytes() const {
  std::vector<std::vector<uint8_t>> bytes;
  for (int i = 6; i < 9; ++i) {
    if (tensors_[i]) bytes.push_back(tensors_[i]->StorageBytes());
  }
  return bytes;
}

}  // namespace lnb_test
