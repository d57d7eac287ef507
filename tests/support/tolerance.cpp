#include "tolerance.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace aclhost {
namespace testing {

double ToleranceFor(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return 2e-3;  // half an ulp is 4.9e-4
    case ACL_BF16: return 1.6e-2;   // half an ulp is 3.9e-3
    default: return 1e-5;           // half an ulp is 6e-8
  }
}

ErrorSummary Compare(const std::vector<double> &got, const std::vector<double> &want, aclDataType dtype) {
  ErrorSummary summary;
  if (got.size() != want.size()) {
    summary.worst_ratio = std::numeric_limits<double>::infinity();
    return summary;
  }
  double scale = 0;
  for (const double value : want) scale = std::max(scale, std::fabs(value));
  const double tolerance = ToleranceFor(dtype);
  for (size_t i = 0; i < got.size(); ++i) {
    const double error = std::fabs(got[i] - want[i]);
    const double allowed = tolerance * (std::fabs(want[i]) + 1e-2 * scale) + std::numeric_limits<double>::min();
    const double ratio = std::isnan(error) ? std::numeric_limits<double>::infinity() : error / allowed;
    summary.max_abs_error = std::max(summary.max_abs_error, error);
    if (ratio > summary.worst_ratio) {
      summary.worst_ratio = ratio;
      summary.worst_index = i;
    }
  }
  return summary;
}

}  // namespace testing
}  // namespace aclhost
