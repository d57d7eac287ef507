// A complete aclnnLayerNormBackward phase-1 call described as data, so that tests can break one
// argument at a time and run it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "device_tensor.h"

namespace lnb_test {

struct TensorSpec {
  bool present = true;
  std::vector<int64_t> dims;
  aclDataType dtype = ACL_FLOAT;
  bool null_data = false;  // a descriptor whose data address is NULL
};

struct CallSpec {
  // A valid call: input [2,3,4] normalised over the last dim, every output asked for.
  TensorSpec grad_out{true, {2, 3, 4}};
  TensorSpec input{true, {2, 3, 4}};
  TensorSpec mean{true, {2, 3, 1}};
  TensorSpec rstd{true, {2, 3, 1}};
  TensorSpec weight{true, {4}};
  TensorSpec bias{true, {4}};
  TensorSpec grad_input{true, {2, 3, 4}};
  TensorSpec grad_weight{true, {4}};
  TensorSpec grad_bias{true, {4}};
  bool has_normalized_shape = true;
  std::vector<int64_t> normalized_shape{4};
  bool has_output_mask = true;
  std::vector<bool> output_mask{true, true, true};
  bool has_workspace_size = true;
  bool has_executor = true;

  void SetDataDtype(aclDataType dtype);  // gradOut, input, weight, bias and outputs
};

// The tensors and arrays of one call, alive as long as this object.
class BuiltCall {
 public:
  explicit BuiltCall(const CallSpec &spec, uint64_t seed = 1);
  ~BuiltCall();

  // Phase 1. Returns its status; *workspace_size and *executor are what the call left there.
  aclnnStatus GetWorkspaceSize(uint64_t *workspace_size, aclOpExecutor **executor);
  // Destroys every aclTensor, aclIntArray and aclBoolArray of the call; the memory stays.
  void DestroyDescriptors();
  // Snapshot of every output's storage, to prove a rejected call wrote nothing.
  std::vector<std::vector<uint8_t>> OutputBytes() const;

  DeviceTensor *grad_input() const { return tensors_[6].get(); }
  DeviceTensor *grad_weight() const { return tensors_[7].get(); }
  DeviceTensor *grad_bias() const { return tensors_[8].get(); }

 private:
  const CallSpec spec_;
  std::vector<std::unique_ptr<DeviceTensor>> tensors_;  // the order of CallSpec's tensors
  std::vector<aclTensor *> null_data_tensors_;
  aclTensor *handles_[9] = {};
  aclIntArray *normalized_shape_ = nullptr;
  aclBoolArray *output_mask_ = nullptr;
};

}  // namespace lnb_test
