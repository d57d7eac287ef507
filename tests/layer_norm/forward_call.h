// Runs aclnnLayerNorm (or its ImplMode variant) through the public API on DeviceTensors.
#pragma once

#include <cstdint>
#include <vector>

#include "device_tensor.h"

namespace lnb_test {

struct ForwardOperands {
  DeviceTensor *input = nullptr;
  std::vector<int64_t> normalized_shape;
  DeviceTensor *weight = nullptr;  // optional
  DeviceTensor *bias = nullptr;    // optional
  double eps = 1e-5;
  DeviceTensor *out = nullptr;
  DeviceTensor *mean = nullptr;  // optional
  DeviceTensor *rstd = nullptr;  // optional
  int32_t impl_mode = -1;        // -1: aclnnLayerNorm; otherwise the ImplMode variant
};

// Phase 1; when it succeeds, phase 2 on stream with a workspace of the size asked and a
// synchronisation, both required to succeed. Returns phase 1's status.
aclnnStatus RunForward(const ForwardOperands &operands, aclrtStream stream, uint64_t *workspace_size = nullptr);

}  // namespace lnb_test
