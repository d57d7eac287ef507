// The kernels' fused multiply-add (fused_mul_add-inl.h) over arrays, with the SIMD code of a
// given target: where tests check it against the C library's fma.
#pragma once

#include <cstdint>

#include "kernels/common/kernel_config.h"

namespace aclhost {
namespace kernels {

// out[i] = a[i] * b[i] + c[i] rounded once to nearest even, for i < count; the same bits for
// every isa.
void FusedMulAddArrays(const float *a, const float *b, const float *c, int64_t count, float *out, Isa isa);

}  // namespace kernels
}  // namespace aclhost
