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
  // The size of out's terms, ((|x| + |mean|) * rstd + 1) * |w| + |b|: float32 arithmetic is
  // accurate to a few ulps of it (x - mean cancels, and a float32 mean carries a few ulps of the
  // row's spread), not of an out that cancels to near zero.
  std::vector<double> out_magnitude;
  // The size of a mean's terms, the row's largest |x|: a float32 sum is accurate to a few ulps of
  // it, not of a mean that cancels to near zero.
  std::vector<double> mean_magnitude;
};

// weight and bias may be empty (ones, zeros). Every vector is row-major.
LayerNormResult LayerNorm(const std::vector<double> &input, const std::vector<double> &weight,
                          const std::vector<double> &bias, int64_t rows, int64_t cols, double eps);

}  // namespace reference
}  // namespace aclhost
