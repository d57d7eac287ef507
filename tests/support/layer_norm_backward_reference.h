// Reference LayerNorm backward, straight from the spec's formula, in long double. Lives with the
// tests (and the CLI's self-check), never in the library.
#pragma once

#include <cstdint>
#include <vector>

namespace aclhost {
namespace reference {

struct LayerNormBackwardResult {
  std::vector<double> grad_input;   // rows x cols
  std::vector<double> grad_weight;  // cols
  std::vector<double> grad_bias;    // cols
  // The size of the terms each result is made of (sum of their absolute values): float32
  // arithmetic can be trusted to a few ulps of this, not of a result that cancels to near zero.
  std::vector<double> grad_input_magnitude;
  std::vector<double> grad_weight_magnitude;
  std::vector<double> grad_bias_magnitude;
};

// weight may be empty (all ones). Every vector is row-major.
LayerNormBackwardResult LayerNormBackward(const std::vector<double> &grad_out, const std::vector<double> &input,
                                          const std::vector<double> &mean, const std::vector<double> &rstd,
                                          const std::vector<double> &weight, int64_t rows, int64_t cols);

// Per-row mean and 1/sqrt(variance + eps), as the forward pass saves them.
void RowStatistics(const std::vector<double> &input, int64_t rows, int64_t cols, double eps, std::vector<double> *mean,
                   std::vector<double> *rstd);

}  // namespace reference
}  // namespace aclhost
