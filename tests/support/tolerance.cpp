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

namespace {

// Below the normal range the spacing of the dtype is absolute: its smallest subnormal (BF16 has
// float32's exponent range but 7 fraction bits, so its subnormals are 2^-133 apart, not 2^-149).
double Spacing(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return 0x1p-24;
    case ACL_BF16: return 0x1p-133;
    default: return static_cast<double>(std::numeric_limits<float>::denorm_min());
  }
}

ErrorSummary CompareWith(const std::vector<double> &got, const std::vector<double> &want,
                         const std::vector<double> &magnitude, double tolerance, double spacing) {
  ErrorSummary summary;
  if (got.size() != want.size() || magnitude.size() != want.size()) {
    summary.worst_ratio = std::numeric_limits<double>::infinity();
    return summary;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const double error = std::fabs(got[i] - want[i]);
    const double allowed = tolerance * (std::fabs(want[i]) + magnitude[i]) + spacing;
    const double ratio = std::isnan(error) ? std::numeric_limits<double>::infinity() : error / allowed;
    summary.max_abs_error = std::max(summary.max_abs_error, error);
    if (ratio > summary.worst_ratio) {
      summary.worst_ratio = ratio;
      summary.worst_index = i;
    }
  }
  return summary;
}

}  // namespace

ErrorSummary Compare(const std::vector<double> &got, const std::vector<double> &want,
                     const std::vector<double> &magnitude, aclDataType dtype) {
  return CompareWith(got, want, magnitude, ToleranceFor(dtype), Spacing(dtype));
}

ErrorSummary CompareThrough(const std::vector<double> &got, const std::vector<double> &want,
                            const std::vector<double> &magnitude, aclDataType first, aclDataType second) {
  return CompareWith(got, want, magnitude, std::max(ToleranceFor(first), ToleranceFor(second)),
                     std::max(Spacing(first), Spacing(second)));
}

}  // namespace testing
}  // namespace aclhost
