// Reference LayerNorm forward, straight from the spec's formula (two passes), in long double.
#pragma once

#include <cstdint>
#include <vector>

namespace aclhost {
namespace reference {

struct LayerNormResult {
  std::vector<double> out;   // rows x cols
  std::vector<double> mean;  // rows
  std::vector<double> rstd;  // rows
  // |xhat * w| + |b| per element: the size float32 arithmetic is accurate to a few ulps of.
  std::vector<double> out_magnitude;
};

// weight and bias may be empty (ones, zeros). Every vector is row-major.
LayerNormResult LayerNorm(const std::vector<double> &input, const std::vector<double> &weight,
                          const std::vector<double> &bias, int64_t rows, int64_t cols, double eps);

}  // namespace reference
}  // namespace aclhost
