// Phase-1 validation of aclnnLayerNormBackward, in the order of the spec's validation table.
#pragma once

#include <cstdint>

#include "aclnn/acl_meta.h"

namespace aclhost {

struct LayerNormBackwardOperands {
  const aclTensor *grad_out;
  const aclTensor *input;
  const aclIntArray *normalized_shape;
  const aclTensor *mean;
  const aclTensor *rstd;
  const aclTensor *weight;  // may be NULL
  const aclTensor *bias;    // may be NULL; validated, never read
  const aclBoolArray *output_mask;
  aclTensor *grad_input;
  aclTensor *grad_weight;
  aclTensor *grad_bias;
};

// What the checks establish about a valid call.
struct LayerNormBackwardShape {
  int64_t rows = 0;  // M: product of input's leading dims
  int64_t cols = 0;  // N: product of input's normalized (trailing) dims
  bool want_grad_input = false;
  bool want_grad_weight = false;
  bool want_grad_bias = false;
};

// Runs every check (steps 1-18); on failure reports a message and returns its status code.
aclnnStatus CheckLayerNormBackward(const LayerNormBackwardOperands &operands, LayerNormBackwardShape *shape);

}  // namespace aclhost
