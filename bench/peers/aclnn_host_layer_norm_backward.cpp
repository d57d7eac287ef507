// aclnn-host's aclnnLayerNormBackward on one shape, timed exactly as bench/peers times oneDNN and
// PyTorch: best mean over 5 rounds of 5 calls back to back, after one call outside the timing. A
// call is the whole user sequence (phase 1, phase 2, aclrtSynchronizeStream). The operator
// benchmark (layer_norm_backward_bench) times every call cold, after a reference pass, which the
// peers' harnesses do not; side by side, all three are timed alike.
// Usage: aclnn_host_layer_norm_backward M N f32|bf16 ; prints "GB/s <value>" or "failed: <why>".
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "best_mean.h"

namespace {

// A dense tensor of `dims` over device memory (host memory here) whose every byte is `fill`;
// tensor stays nullptr when either could not be made.
struct Operand {
  void *memory = nullptr;
  aclTensor *tensor = nullptr;

  Operand(std::vector<int64_t> dims, aclDataType dtype, size_t element, int fill) {
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t d = dims.size() - 1; d > 0; --d) strides[d - 1] = strides[d] * dims[d];
    int64_t count = 1;
    for (const int64_t dim : dims) count *= dim;
    const size_t bytes = static_cast<size_t>(count) * element;
    if (aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return;
    std::memset(memory, fill, bytes);
    tensor = aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, dims.data(), dims.size(), memory);
  }
  ~Operand() {
    if (tensor != nullptr) aclDestroyTensor(tensor);
    if (memory != nullptr) aclrtFree(memory);
  }
  Operand(const Operand &) = delete;
  Operand &operator=(const Operand &) = delete;
};

// Prints the GB/s of the call sequence on (rows, cols); 0 on success, 1 when a call failed.
int Measure(int64_t rows, int64_t cols, bool bf16, aclrtStream stream) {
  const aclDataType data_type = bf16 ? ACL_BF16 : ACL_FLOAT;
  const size_t element = bf16 ? 2 : 4;
  // The oneDNN harness's values: 0x3c bytes in the row operands, statistics and weight of ones.
  Operand grad_out({rows, cols}, data_type, element, 0x3c), input({rows, cols}, data_type, element, 0x3c);
  Operand grad_input({rows, cols}, data_type, element, 0);
  Operand mean({rows, 1}, ACL_FLOAT, 4, 0), rstd({rows, 1}, ACL_FLOAT, 4, 0), weight({cols}, ACL_FLOAT, 4, 0);
  Operand grad_weight({cols}, ACL_FLOAT, 4, 0), grad_bias({cols}, ACL_FLOAT, 4, 0);
  for (const Operand *operand : {&grad_out, &input, &grad_input, &mean, &rstd, &weight, &grad_weight, &grad_bias}) {
    if (operand->tensor == nullptr) {
      std::printf("failed: %s\n", aclGetRecentErrMsg());
      return 1;
    }
  }
  for (Operand *ones : {&mean, &rstd, &weight}) {
    float *values = static_cast<float *>(ones->memory);
    std::fill(values, values + (ones == &weight ? cols : rows), 1.0f);
  }
  const int64_t normalized[1] = {cols};
  const bool mask[3] = {true, true, true};
  aclIntArray *normalized_shape = aclCreateIntArray(normalized, 1);
  aclBoolArray *output_mask = aclCreateBoolArray(mask, 3);
  void *workspace = nullptr;  // sized by the first call, the same size for every call
  auto call = [&] {
    uint64_t size = 0;
    aclOpExecutor *executor = nullptr;
    if (aclnnLayerNormBackwardGetWorkspaceSize(grad_out.tensor, input.tensor, normalized_shape, mean.tensor, rstd.tensor,
                                               weight.tensor, nullptr, output_mask, grad_input.tensor, grad_weight.tensor,
                                               grad_bias.tensor, &size, &executor) != 0) {
      return false;
    }
    if (workspace == nullptr && size > 0 && aclrtMalloc(&workspace, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return false;
    return aclnnLayerNormBackward(workspace, size, executor, stream) == 0 && aclrtSynchronizeStream(stream) == ACL_SUCCESS;
  };
  const bool called = call();
  if (called) {
    const double best = BestMeanSeconds(call);
    std::printf("GB/s %.3f\n", 3.0 * static_cast<double>(element) * static_cast<double>(rows * cols) / best / 1e9);
  } else {
    std::printf("failed: %s\n", aclGetRecentErrMsg());
  }
  if (workspace != nullptr) aclrtFree(workspace);
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
