// Transposition within each 128-bit block of a vector (4 x 4 of 32-bit elements, 8 x 8 of 16-bit
// ones), per target: transpose.cpp's squares, and kernels that transpose in registers. Included
// once per target from a foreach_target translation unit.
#if defined(ACLNN_HOST_TRANSPOSE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_HOST_TRANSPOSE_INL_H_
#undef ACLNN_HOST_TRANSPOSE_INL_H_
#else
#define ACLNN_HOST_TRANSPOSE_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// Transposes, within each 128-bit block, the square of the 16 / sizeof(element) rows at `a`
// (4 x 4 of 32-bit elements, 8 x 8 of 16-bit ones): out[j] holds, block by block, column j of
// the rows. Each step interleaves pairs of vectors at twice the width of the step before, until
// a block holds a whole column.
template <class D>
HWY_INLINE void TransposeWithinBlocks(D d, const hn::Vec<D> *a, hn::Vec<D> *out) {
  const hn::Repartition<uint64_t, D> d64;
  if constexpr (sizeof(hn::TFromD<D>) == 4) {
    // b0 = a00 a10 a01 a11, b1 = a20 a30 a21 a31, b2 = a02 a12 a03 a13, b3 = a22 a32 a23 a33
    const auto b0 = hn::BitCast(d64, hn::InterleaveLower(d, a[0], a[1])), b1 = hn::BitCast(d64, hn::InterleaveLower(d, a[2], a[3]));
    const auto b2 = hn::BitCast(d64, hn::InterleaveUpper(d, a[0], a[1])), b3 = hn::BitCast(d64, hn::InterleaveUpper(d, a[2], a[3]));
    out[0] = hn::BitCast(d, hn::InterleaveLower(d64, b0, b1));
    out[1] = hn::BitCast(d, hn::InterleaveUpper(d64, b0, b1));
    out[2] = hn::BitCast(d, hn::InterleaveLower(d64, b2, b3));
    out[3] = hn::BitCast(d, hn::InterleaveUpper(d64, b2, b3));
  } else {
    const hn::Repartition<uint32_t, D> d32;
    hn::Vec<decltype(d32)> b[8];
    for (int p = 0; p < 4; ++p) {
      b[2 * p] = hn::BitCast(d32, hn::InterleaveLower(d, a[2 * p], a[2 * p + 1]));      // columns 0-3 of rows 2p, 2p + 1
      b[2 * p + 1] = hn::BitCast(d32, hn::InterleaveUpper(d, a[2 * p], a[2 * p + 1]));  // columns 4-7
    }
    hn::Vec<decltype(d64)> c[8];
    for (int half = 0; half < 2; ++half) {  // rows 0-3, then rows 4-7
      const hn::Vec<decltype(d32)> *rows = b + 4 * half;
      c[4 * half + 0] = hn::BitCast(d64, hn::InterleaveLower(d32, rows[0], rows[2]));  // columns 0-1
      c[4 * half + 1] = hn::BitCast(d64, hn::InterleaveUpper(d32, rows[0], rows[2]));  // columns 2-3
      c[4 * half + 2] = hn::BitCast(d64, hn::InterleaveLower(d32, rows[1], rows[3]));  // columns 4-5
      c[4 * half + 3] = hn::BitCast(d64, hn::InterleaveUpper(d32, rows[1], rows[3]));  // columns 6-7
    }
    for (int q = 0; q < 4; ++q) {
      out[2 * q] = hn::BitCast(d, hn::InterleaveLower(d64, c[q], c[4 + q]));
      out[2 * q + 1] = hn::BitCast(d, hn::InterleaveUpper(d64, c[q], c[4 + q]));
    }
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclhost
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_HOST_TRANSPOSE_INL_H_
