// The LayerNorm backward kernel seam: dense row-major operands as raw pointers, the problem
// size (rows x cols) and element types. Whatever kernel sits behind it must honour this contract.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/element_type.h"

namespace aclhost {
namespace kernels {

struct LayerNormBackwardArgs {
  int64_t rows = 0;  // M: rows >= 1
  int64_t cols = 0;  // N: cols >= 1

  ElementType data_type = ElementType::kFloat32;  // grad_out, input and grad_input
  ElementType mean_type = ElementType::kFloat32;
  ElementType rstd_type = ElementType::kFloat32;
  ElementType weight_type = ElementType::kFloat32;
  ElementType grad_weight_type = ElementType::kFloat32;
  ElementType grad_bias_type = ElementType::kFloat32;

  const void *grad_out = nullptr;  // rows x cols
  const void *input = nullptr;     // rows x cols
  const void *mean = nullptr;      // rows
  const void *rstd = nullptr;      // rows
  const void *weight = nullptr;    // cols; nullptr means all ones

  void *grad_input = nullptr;   // rows x cols, or nullptr when not wanted
  void *grad_weight = nullptr;  // cols, or nullptr when not wanted
  void *grad_bias = nullptr;    // cols, or nullptr when not wanted

  // LayerNormBackwardScratchBytes(cols) bytes, 8-byte aligned, when grad_weight or grad_bias is
  // wanted. The kernel allocates nothing itself.
  void *scratch = nullptr;
};

size_t LayerNormBackwardScratchBytes(int64_t cols);

// grad_input[m,n] = (g - mean_n(g) - xhat * mean_n(g * xhat)) * rstd_m with g = grad_out * weight
// and xhat = (input - mean_m) * rstd_m; grad_weight[n] = sum_m grad_out * xhat;
// grad_bias[n] = sum_m grad_out. Each result is rounded once to its element type. Exact aliasing
// of grad_input with grad_out or input is allowed (each row is read fully before it is written).
void LayerNormBackward(const LayerNormBackwardArgs &args);

}  // namespace kernels
}  // namespace aclhost
