// Transposing a matrix of 2- or 4-byte elements: how a transposed view's rows are gathered into
// a dense tile and written back, with SIMD shuffles instead of one element at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/kernel_config.h"

namespace aclhost {
namespace kernels {

// The side of a transposition whose lines are fetched ahead: the one in memory (a transposed
// view's), not the one in cache (a tile's).
enum class TransposeFetch { kSource, kDestination };

// dst[c * dst_stride + r] = src[r * src_stride + c] for r < rows, c < cols (strides in elements);
// element_size 2 or 4. src and dst must not overlap. Pure data movement: the same bytes for
// every isa and either fetch.
void Transpose(const void *src, int64_t src_stride, int64_t rows, int64_t cols, void *dst, int64_t dst_stride,
               size_t element_size, TransposeFetch fetch, Isa isa);

}  // namespace kernels
}  // namespace aclhost
