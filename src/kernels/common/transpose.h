// Transposing a matrix of 2- or 4-byte elements: how a transposed view's rows are gathered into
// a dense tile and written back, with SIMD shuffles instead of one element at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/kernel_config.h"

namespace aclhost {
namespace kernels {

// The side of a transposition that is in memory (a transposed view's), not in cache (a tile's):
// its lines are fetched ahead. kStreamedDestination: the destination, written with non-temporal
// stores where its rows are whole 64-byte lines apart and it has more rows than the source
// (an output larger than the caches, whose lines need not be read before they are written).
enum class TransposeFar { kSource, kDestination, kStreamedDestination };

// dst[c * dst_stride + r] = src[r * src_stride + c] for r < rows, c < cols (strides in elements);
// element_size 2 or 4. src and dst must not overlap. Pure data movement: the same bytes for
// every isa and every far side.
void Transpose(const void *src, int64_t src_stride, int64_t rows, int64_t cols, void *dst, int64_t dst_stride,
               size_t element_size, TransposeFar far, Isa isa);

}  // namespace kernels
}  // namespace aclhost
