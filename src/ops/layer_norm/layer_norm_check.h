// Phase-1 validation of aclnnLayerNorm / aclnnLayerNormWithImplMode, in the spec's order.
#pragma once

#include <cstdint>

#include "aclnn/acl_meta.h"

namespace aclhost {

struct LayerNormOperands {
  const aclTensor *input;
  const aclIntArray *normalized_shape;
  const aclTensor *weight;  // may be NULL
  const aclTensor *bias;    // may be NULL
  double eps;
  aclTensor *out;
  aclTensor *mean;  // may be NULL
  aclTensor *rstd;  // may be NULL
  int32_t impl_mode;
};

struct LayerNormShape {
  int64_t rows = 0;  // M: product of input's leading dims
  int64_t cols = 0;  // N: product of input's normalized (trailing) dims
};

// Runs every check; on failure reports a message naming api and returns its status code.
aclnnStatus CheckLayerNorm(const char *api, const LayerNormOperands &operands, LayerNormShape *shape);

}  // namespace aclhost
