// Rounding float32 arrays into an element type, and widening them back, with the SIMD code of a
// given target.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/element_type.h"
#include "kernels/common/kernel_config.h"

namespace aclhost {
namespace kernels {

// out[i] = in[i] rounded to nearest even in type, a NaN as the one quiet NaN (CanonicalNaN); the
// same bits for every isa.
void ConvertFloats(const float *in, int64_t count, ElementType type, void *out, Isa isa);

// Bytes for WidenToFloats' output of count elements (whole 16-float blocks, 64-byte multiple).
inline size_t WidenedBytes(int64_t count) { return static_cast<size_t>((count + 15) / 16 * 16) * sizeof(float); }

// out[i] = in[i] as float32 (exact), for i < count; out holds WidenedBytes(count) bytes. Kernels
// widen a 16-bit weight or bias once per call rather than once per row.
void WidenToFloats(const void *in, ElementType type, int64_t count, float *out, Isa isa);

// The scratch WidenNarrow needs for a vector of this type: none for float32.
inline size_t WidenedBytesFor(ElementType type, int64_t count) { return type == ElementType::kFloat32 ? 0 : WidenedBytes(count); }

// A FLOAT16/BFLOAT16 *vector (count elements) widened into `into` (WidenedBytesFor bytes), and
// *vector and *type pointed at the float32 copy; a NULL or float32 vector is left as it is.
void WidenNarrow(const void **vector, ElementType *type, int64_t count, float *into, Isa isa);

}  // namespace kernels
}  // namespace aclhost
