#include "layer_norm_backward_reference.h"

#include <cmath>

namespace aclhost {
namespace reference {

LayerNormBackwardResult LayerNormBackward(const std::vector<double> &grad_out, const std::vector<double> &input,
                                          const std::vector<double> &mean, const std::vector<double> &rstd,
                                          const std::vector<double> &weight, int64_t rows, int64_t cols) {
  using Wide = long double;
  LayerNormBackwardResult result;
  result.grad_input.resize(static_cast<size_t>(rows * cols));
  result.grad_input_magnitude.resize(static_cast<size_t>(rows * cols));
  std::vector<Wide> grad_weight(static_cast<size_t>(cols), 0), grad_bias(static_cast<size_t>(cols), 0);
  std::vector<Wide> weight_magnitude(static_cast<size_t>(cols), 0), bias_magnitude(static_cast<size_t>(cols), 0);
  std::vector<Wide> xhat(static_cast<size_t>(cols)), g(static_cast<size_t>(cols));
  for (int64_t m = 0; m < rows; ++m) {
    Wide sum_g = 0, sum_g_xhat = 0, sum_abs_g = 0, sum_abs_g_xhat = 0;
    for (int64_t n = 0; n < cols; ++n) {
      const size_t at = static_cast<size_t>(m * cols + n);
      xhat[n] = (static_cast<Wide>(input[at]) - mean[m]) * rstd[m];
      g[n] = static_cast<Wide>(grad_out[at]) * (weight.empty() ? 1.0 : weight[n]);
      sum_g += g[n];
      sum_g_xhat += g[n] * xhat[n];
      sum_abs_g += std::fabs(g[n]);
      sum_abs_g_xhat += std::fabs(g[n] * xhat[n]);
      grad_weight[n] += grad_out[at] * xhat[n];
      grad_bias[n] += grad_out[at];
      weight_magnitude[n] += std::fabs(grad_out[at] * xhat[n]);
      bias_magnitude[n] += std::fabs(grad_out[at]);
    }
    const Wide temp1 = sum_g / cols;
    for (int64_t n = 0; n < cols; ++n) {
      const Wide temp2 = xhat[n] * sum_g_xhat / cols;
      const size_t at = static_cast<size_t>(m * cols + n);
      result.grad_input[at] = static_cast<double>((g[n] - (temp1 + temp2)) * rstd[m]);
      result.grad_input_magnitude[at] = static_cast<double>(
          (std::fabs(g[n]) + sum_abs_g / cols + std::fabs(xhat[n]) * sum_abs_g_xhat / cols) * std::fabs(Wide(rstd[m])));
    }
  }
  result.grad_weight.assign(grad_weight.begin(), grad_weight.end());
  result.grad_bias.assign(grad_bias.begin(), grad_bias.end());
  result.grad_weight_magnitude.assign(weight_magnitude.begin(), weight_magnitude.end());
  result.grad_bias_magnitude.assign(bias_magnitude.begin(), bias_magnitude.end());
  return result;
}

void RowStatistics(const std::vector<double> &input, int64_t rows, int64_t cols, double eps, std::vector<double> *mean,
                   std::vector<double> *rstd) {
  mean->assign(static_cast<size_t>(rows), 0.0);
  rstd->assign(static_cast<size_t>(rows), 0.0);
  for (int64_t m = 0; m < rows; ++m) {
    long double sum = 0;
    for (int64_t n = 0; n < cols; ++n) sum += input[static_cast<size_t>(m * cols + n)];
    const long double row_mean = sum / cols;
    long double squares = 0;
    for (int64_t n = 0; n < cols; ++n) {
      const long double centred = input[static_cast<size_t>(m * cols + n)] - row_mean;
      squares += centred * centred;
    }
    (*mean)[m] = static_cast<double>(row_mean);
    (*rstd)[m] = static_cast<double>(1.0L / std::sqrt(squares / cols + eps));
  }
}

}  // namespace reference
}  // namespace aclhost
