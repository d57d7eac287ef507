/*
 * A LayerNorm training step in the style of CANN's operator samples: aclnnLayerNorm on a 2x4
 * FLOAT input with weight and bias keeps mean and rstd, and aclnnLayerNormBackward turns the
 * gradient of the loss into gradients for input, weight and bias.
 */
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) {
    shapeSize *= i;
  }
  return shapeSize;
}

// A FLOAT tensor in device memory holding hostData.
int CreateAclTensor(const std::vector<float>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                    aclTensor** tensor) {
  auto size = GetShapeSize(shape) * sizeof(float);
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = shape.size() - 2; i >= 0; i--) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  *tensor = aclCreateTensor(shape.data(), shape.size(), aclDataType::ACL_FLOAT, strides.data(), 0,
                            aclFormat::ACL_FORMAT_ND, shape.data(), shape.size(), *deviceAddr);
  return *tensor != nullptr ? 0 : -1;
}

int PrintResult(const char* name, const std::vector<int64_t>& shape, void* deviceAddr) {
  auto size = GetShapeSize(shape);
  std::vector<float> resultData(size, 0);
  auto ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(float), deviceAddr, size * sizeof(float),
                         ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
  LOG_PRINT("%s:", name);
  for (int64_t i = 0; i < size; i++) {
    LOG_PRINT(" %.4f", resultData[i]);
  }
  LOG_PRINT("\n");
  return 0;
}

// Phase 2 of either operator with the workspace phase 1 asked for, then the stream's end.
int Launch(aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream), uint64_t workspaceSize,
           aclOpExecutor* executor, aclrtStream stream) {
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  auto ret = run(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("phase 2 failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
  if (workspaceAddr != nullptr) {
    aclrtFree(workspaceAddr);
  }
  return 0;
}

int main() {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(0);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  aclrtStream stream = nullptr;
  ret = aclrtCreateStream(&stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);

  const std::vector<int64_t> xShape = {2, 4}, statShape = {2, 1}, wShape = {4};
  const std::vector<int64_t> normData = {4};
  const double eps = 1e-5;
  // name, shape, initial values: inputs first, then what the two operators write.
  struct Tensor {
    const char* name;
    std::vector<int64_t> shape;
    std::vector<float> data;
    void* deviceAddr;
    aclTensor* tensor;
  } t[] = {
      {"input", xShape, {1, 2, 3, 4, -1, 0, 2, 7}, nullptr, nullptr},
      {"weight", wShape, {1, 0.5, 2, 1}, nullptr, nullptr},
      {"bias", wShape, {0, 0.25, -1, 0.5}, nullptr, nullptr},
      {"gradOut", xShape, {0.5, -1, 2, 1, 1, 1, -0.5, 0.25}, nullptr, nullptr},
      {"out", xShape, std::vector<float>(8, 0), nullptr, nullptr},
      {"mean", statShape, std::vector<float>(2, 0), nullptr, nullptr},
      {"rstd", statShape, std::vector<float>(2, 0), nullptr, nullptr},
      {"gradInput", xShape, std::vector<float>(8, 0), nullptr, nullptr},
      {"gradWeight", wShape, std::vector<float>(4, 0), nullptr, nullptr},
      {"gradBias", wShape, std::vector<float>(4, 0), nullptr, nullptr},
  };
  enum { kInput, kWeight, kBias, kGradOut, kOut, kMean, kRstd, kGradInput, kGradWeight, kGradBias, kCount };
  for (int i = 0; i < kCount; ++i) {
    ret = CreateAclTensor(t[i].data, t[i].shape, &t[i].deviceAddr, &t[i].tensor);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
  }
  aclIntArray* normalizedShape = aclCreateIntArray(normData.data(), normData.size());

  // Forward: out = LayerNorm(input), keeping mean and rstd for the backward.
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnLayerNormGetWorkspaceSize(t[kInput].tensor, normalizedShape, t[kWeight].tensor, t[kBias].tensor, eps,
                                       t[kOut].tensor, t[kMean].tensor, t[kRstd].tensor, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnLayerNormGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
  ret = Launch(aclnnLayerNorm, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // Backward: the gradients of sum(gradOut * out).
  bool maskData[3] = {true, true, true};
  aclBoolArray* outputMask = aclCreateBoolArray(maskData, 3);
  ret = aclnnLayerNormBackwardGetWorkspaceSize(t[kGradOut].tensor, t[kInput].tensor, normalizedShape, t[kMean].tensor,
                                               t[kRstd].tensor, t[kWeight].tensor, t[kBias].tensor, outputMask,
                                               t[kGradInput].tensor, t[kGradWeight].tensor, t[kGradBias].tensor,
                                               &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnLayerNormBackwardGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
  ret = Launch(aclnnLayerNormBackward, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  for (int i = kOut; i < kCount; ++i) {
    PrintResult(t[i].name, t[i].shape, t[i].deviceAddr);
  }

  aclDestroyIntArray(normalizedShape);
  aclDestroyBoolArray(outputMask);
  for (int i = 0; i < kCount; ++i) {
    aclDestroyTensor(t[i].tensor);
    aclrtFree(t[i].deviceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
