// The LayerNorm forward kernel seam: dense row-major operands as raw pointers, the problem size
// (rows x cols), element types and how to run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/element_type.h"
#include "kernels/common/kernel_config.h"

namespace aclhost {
namespace kernels {

struct LayerNormArgs {
  int64_t rows = 0;  // M >= 1
  int64_t cols = 0;  // N >= 0; empty rows get mean 0 and rstd NaN
  double eps = 0;

  ElementType input_type = ElementType::kFloat32;
  ElementType weight_type = ElementType::kFloat32;
  ElementType bias_type = ElementType::kFloat32;
  ElementType out_type = ElementType::kFloat32;
  ElementType mean_type = ElementType::kFloat32;
  ElementType rstd_type = ElementType::kFloat32;

  const void *input = nullptr;   // rows x cols
  const void *weight = nullptr;  // cols; nullptr means all ones
  const void *bias = nullptr;    // cols; nullptr means all zeros
  void *out = nullptr;           // rows x cols; may be input itself, row for row (each row is read before it is written)
  void *mean = nullptr;          // rows, or nullptr when not wanted
  void *rstd = nullptr;          // rows, or nullptr when not wanted

  // Where the rows of input / out lie (each row dense; the defaults: back to back), e.g. rows
  // sliced out of wider ones, or batches of them.
  RowSpacing input_spacing, out_spacing;

  // LayerNormForwardScratchBytes(cols, weight_type, bias_type) bytes, 64-byte aligned, when a
  // FLOAT16 or BFLOAT16 weight or bias is given: the kernel widens them there once. It allocates
  // nothing itself.
  void *scratch = nullptr;

  KernelConfig config;
};

// ElementType::kFloat32 for an absent weight or bias.
size_t LayerNormForwardScratchBytes(int64_t cols, ElementType weight_type, ElementType bias_type);

// mean_m = sum_n x / N; rstd_m = 1 / sqrt(sum_n (x - mean_m)^2 / N + eps); out = (x - mean_m) *
// rstd_m * weight + bias, in float32, the mean summed relative to the mean of the row's first 16
// values so that rows far from zero keep their digits. Sums in an order fixed by N alone (16
// interleaved partial sums, or two sets of them on long rows, combined pairwise), rows split over
// threads: the same bits for every SIMD target (config.isa) and thread count.
void LayerNormForward(const LayerNormArgs &args);

}  // namespace kernels
}  // namespace aclhost
