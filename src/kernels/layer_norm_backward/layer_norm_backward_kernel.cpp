// The clear reference-quality kernel: one row at a time, every sum in double in a fixed
// sequential order, so results are bitwise reproducible. The fast kernels replace this file.
#include "kernels/layer_norm_backward/layer_norm_backward_kernel.h"

namespace aclhost {
namespace kernels {

size_t LayerNormBackwardScratchBytes(int64_t cols) { return 2 * static_cast<size_t>(cols) * sizeof(double); }

void LayerNormBackward(const LayerNormBackwardArgs &args) {
  const int64_t cols = args.cols;
  const bool want_column_sums = args.grad_weight != nullptr || args.grad_bias != nullptr;
  double *weight_sums = static_cast<double *>(args.scratch);
  double *bias_sums = want_column_sums ? weight_sums + cols : nullptr;
  if (want_column_sums) {
    for (int64_t n = 0; n < 2 * cols; ++n) weight_sums[n] = 0.0;
  }
  auto weight_at = [&](int64_t n) { return args.weight ? LoadElement(args.weight, args.weight_type, n) : 1.0; };

  for (int64_t m = 0; m < args.rows; ++m) {
    const double mean = LoadElement(args.mean, args.mean_type, m);
    const double rstd = LoadElement(args.rstd, args.rstd_type, m);
    const int64_t row = m * cols;
    double sum_g = 0.0;
    double sum_g_xhat = 0.0;
    for (int64_t n = 0; n < cols; ++n) {
      const double grad_out = LoadElement(args.grad_out, args.data_type, row + n);
      const double xhat = (LoadElement(args.input, args.data_type, row + n) - mean) * rstd;
      const double g = grad_out * weight_at(n);
      sum_g += g;
      sum_g_xhat += g * xhat;
      if (want_column_sums) {
        weight_sums[n] += grad_out * xhat;
        bias_sums[n] += grad_out;
      }
    }
    if (args.grad_input == nullptr) continue;
    const double mean_g = sum_g / static_cast<double>(cols);
    const double mean_g_xhat = sum_g_xhat / static_cast<double>(cols);
    for (int64_t n = 0; n < cols; ++n) {
      const double grad_out = LoadElement(args.grad_out, args.data_type, row + n);
      const double xhat = (LoadElement(args.input, args.data_type, row + n) - mean) * rstd;
      const double g = grad_out * weight_at(n);
      StoreElement((g - (mean_g + xhat * mean_g_xhat)) * rstd, args.grad_input, args.data_type, row + n);
    }
  }

  for (int64_t n = 0; n < cols; ++n) {
    if (args.grad_weight) StoreElement(weight_sums[n], args.grad_weight, args.grad_weight_type, n);
    if (args.grad_bias) StoreElement(bias_sums[n], args.grad_bias, args.grad_bias_type, n);
  }
}

}  // namespace kernels
}  // namespace aclhost
