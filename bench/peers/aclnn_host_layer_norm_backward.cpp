// aclnn-host's aclnnLayerNormBackward on one shape, timed exactly as bench/peers times oneDNN and
// PyTorch: best mean over 5 rounds of 5 calls back to back, after one call outside the timing. A
// call is the whole user sequence (phase 1, phase 2, aclrtSynchronizeStream). The operator
// benchmark (layer_norm_backward_bench) times every call cold, after a reference pass, which the
// peers' harnesses do not; side by side, all three are timed alike.
// Usage: aclnn_host_layer_norm_backward M N f32|bf16 ; prints "GB/s <value>" or "failed: <why>".
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "bench_case.h"
#include "best_mean.h"

namespace {

using aclhost::bench::DeviceTensors;
using aclhost::bench::Layout;

// Prints the GB/s of the call sequence on (rows, cols); 0 on success, 1 when a call failed.
int Measure(int64_t rows, int64_t cols, bool bf16, aclrtStream stream) {
  const aclDataType data_type = bf16 ? ACL_BF16 : ACL_FLOAT;
  // The oneDNN harness's values: row operands of 0x3c bytes (about 0.0115), statistics and weight
  // of ones.
  const std::vector<double> row_values(static_cast<size_t>(rows * cols), 0.0115), row_ones(static_cast<size_t>(rows), 1.0);
  DeviceTensors tensors;
  aclTensor *grad_out = tensors.Make({rows, cols}, data_type, Layout::kContiguous, row_values);
  aclTensor *input = tensors.Make({rows, cols}, data_type, Layout::kContiguous, row_values);
  aclTensor *grad_input = tensors.Make({rows, cols}, data_type, Layout::kContiguous, row_values);
  aclTensor *mean = tensors.Make({rows, 1}, ACL_FLOAT, Layout::kContiguous, row_ones);
  aclTensor *rstd = tensors.Make({rows, 1}, ACL_FLOAT, Layout::kContiguous, row_ones);
  const std::vector<double> column_ones(static_cast<size_t>(cols), 1.0);
  aclTensor *weight = tensors.Make({cols}, ACL_FLOAT, Layout::kContiguous, column_ones);
  aclTensor *grad_weight = tensors.Make({cols}, ACL_FLOAT, Layout::kContiguous, column_ones);
  aclTensor *grad_bias = tensors.Make({cols}, ACL_FLOAT, Layout::kContiguous, column_ones);
  const int64_t normalized[1] = {cols};
  const bool mask[3] = {true, true, true};
  aclIntArray *normalized_shape = aclCreateIntArray(normalized, 1);
  aclBoolArray *output_mask = aclCreateBoolArray(mask, 3);
  aclhost::bench::GrowingWorkspace workspace;
  auto call = [&] {
    uint64_t size = 0;
    aclOpExecutor *executor = nullptr;
    return aclnnLayerNormBackwardGetWorkspaceSize(grad_out, input, normalized_shape, mean, rstd, weight, nullptr, output_mask,
                                                  grad_input, grad_weight, grad_bias, &size, &executor) == 0 &&
           aclnnLayerNormBackward(workspace.Get(size), size, executor, stream) == 0 && aclrtSynchronizeStream(stream) == ACL_SUCCESS;
  };
  const bool called = call();
  if (called) {
    const double element = bf16 ? 2.0 : 4.0;
    std::printf("GB/s %.3f\n", 3.0 * element * static_cast<double>(rows * cols) / BestMeanSeconds(call) / 1e9);
  } else {
    std::printf("failed: %s\n", aclGetRecentErrMsg());
  }
  aclDestroyIntArray(normalized_shape);
  aclDestroyBoolArray(output_mask);
  return called ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s M N f32|bf16\n", argv[0]);
    return 2;
  }
  aclrtStream stream = nullptr;
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS) {
    std::printf("failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  const int status = Measure(std::atoll(argv[1]), std::atoll(argv[2]), std::strcmp(argv[3], "bf16") == 0, stream);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return status;
}
