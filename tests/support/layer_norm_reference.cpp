#include "layer_norm_reference.h"

#include <algorithm>
#include <cmath>

#include "layer_norm_backward_reference.h"

namespace aclhost {
namespace reference {

LayerNormResult LayerNorm(const std::vector<double> &input, const std::vector<double> &weight,
                          const std::vector<double> &bias, int64_t rows, int64_t cols, double eps) {
  LayerNormResult result;
  RowStatistics(input, rows, cols, eps, &result.mean, &result.rstd);
  result.out.resize(static_cast<size_t>(rows * cols));
  result.out_magnitude.resize(result.out.size());
  result.mean_magnitude.assign(static_cast<size_t>(rows), 0.0);
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t n = 0; n < cols; ++n) {
      const size_t at = static_cast<size_t>(m * cols + n);
      result.mean_magnitude[m] = std::max(result.mean_magnitude[m], std::fabs(input[at]));
      const long double xhat = (static_cast<long double>(input[at]) - result.mean[m]) * result.rstd[m];
      const long double w = weight.empty() ? 1.0L : weight[n];
      const long double b = bias.empty() ? 0.0L : bias[n];
      result.out[at] = static_cast<double>(xhat * w + b);
      // x - mean cancels, and a float32 mean is itself good to a few ulps of the row's spread
      // (1 / rstd): out can be trusted to a few ulps of these terms.
      const long double terms = (std::fabs(static_cast<long double>(input[at])) + std::fabs(static_cast<long double>(result.mean[m]))) *
                                    result.rstd[m] + 1.0L;
      result.out_magnitude[at] = static_cast<double>(terms * std::fabs(w) + std::fabs(b));
    }
  }
  return result;
}

}  // namespace reference
}  // namespace aclhost
