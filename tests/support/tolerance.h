// How close an output must be to the reference, per output dtype.
#pragma once

#include <cstddef>
#include <vector>

#include "acl/acl_base.h"

namespace aclhost {
namespace testing {

// Relative tolerance for results stored in dtype: a few units of its rounding error, with room
// for float32 accumulation in the fast kernels.
double ToleranceFor(aclDataType dtype);

struct ErrorSummary {
  double max_abs_error = 0;
  // Largest |got - want| / allowed; <= 1 passes. allowed = tol * (|want| + 1e-2 * max|want|):
  // elements near zero after cancellation are judged against the tensor's scale.
  double worst_ratio = 0;
  size_t worst_index = 0;
  bool Passed() const { return worst_ratio <= 1.0; }
};

ErrorSummary Compare(const std::vector<double> &got, const std::vector<double> &want, aclDataType dtype);

}  // namespace testing
}  // namespace aclhost
