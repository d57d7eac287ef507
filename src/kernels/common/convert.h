// Rounding float32 arrays into an element type with the SIMD code of a given target.
#pragma once

#include <cstdint>

#include "kernels/common/element_type.h"
#include "kernels/common/kernel_config.h"

namespace aclhost {
namespace kernels {

// out[i] = in[i] rounded to nearest even in type; the same bits for every isa.
void ConvertFloats(const float *in, int64_t count, ElementType type, void *out, Isa isa);

}  // namespace kernels
}  // namespace aclhost
