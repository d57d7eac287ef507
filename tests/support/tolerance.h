// How close an output must be to the reference, per output dtype.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "acl/acl_base.h"

namespace aclhost {
namespace testing {

// Relative tolerance for results stored in dtype: a few units of its rounding error, with room
// for float32 accumulation in the fast kernels.
double ToleranceFor(aclDataType dtype);

struct ErrorSummary {
  double max_abs_error = 0;
  // Largest |got - want| / allowed; <= 1 passes. allowed = tol * (|want| + magnitude) + the
  // dtype's smallest subnormal, where magnitude is the size of the terms the result is made of:
  // a result that cancels to near zero is judged against what it cancelled.
  double worst_ratio = 0;
  size_t worst_index = 0;
  bool Passed() const { return worst_ratio <= 1.0; }
  // "<what> differs from the reference: worst <ratio> of tolerance at element <index>".
  std::string Describe(const std::string &what) const {
    return what + " differs from the reference: worst " + std::to_string(worst_ratio) + " of tolerance at element " +
           std::to_string(worst_index);
  }
};

ErrorSummary Compare(const std::vector<double> &got, const std::vector<double> &want,
                     const std::vector<double> &magnitude, aclDataType dtype);

// For results rounded to `first` and then to `second` (gradInput goes through input's dtype):
// the coarser relative tolerance and the coarser spacing below the normal range of the two.
ErrorSummary CompareThrough(const std::vector<double> &got, const std::vector<double> &want,
                            const std::vector<double> &magnitude, aclDataType first, aclDataType second);

}  // namespace testing
}  // namespace aclhost
