// Matrix transposition in squares of one 128-bit vector per row (4 x 4 of 32-bit elements, 8 x 8
// of 16-bit ones), one source for every SIMD target (Highway dynamic dispatch).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/common/transpose.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "kernels/common/dispatch.h"
#include "kernels/common/transpose.h"

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The square at src (rows src_stride apart) written transposed at dst (rows dst_stride apart).
#if HWY_TARGET != HWY_SCALAR
HWY_INLINE void TransposeSquare(const uint32_t *src, int64_t src_stride, uint32_t *dst, int64_t dst_stride) {
  const hn::FixedTag<uint32_t, 4> d;
  const hn::Repartition<uint64_t, decltype(d)> d64;
  const auto a0 = hn::LoadU(d, src), a1 = hn::LoadU(d, src + src_stride);
  const auto a2 = hn::LoadU(d, src + 2 * src_stride), a3 = hn::LoadU(d, src + 3 * src_stride);
  // Pairs of columns, then whole columns: b0 = a00 a10 a01 a11, b1 = a20 a30 a21 a31, ...
  const auto b0 = hn::BitCast(d64, hn::InterleaveLower(d, a0, a1)), b1 = hn::BitCast(d64, hn::InterleaveLower(d, a2, a3));
  const auto b2 = hn::BitCast(d64, hn::InterleaveUpper(d, a0, a1)), b3 = hn::BitCast(d64, hn::InterleaveUpper(d, a2, a3));
  hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, b0, b1)), d, dst);
  hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, b0, b1)), d, dst + dst_stride);
  hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, b2, b3)), d, dst + 2 * dst_stride);
  hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, b2, b3)), d, dst + 3 * dst_stride);
}

HWY_INLINE void TransposeSquare(const uint16_t *src, int64_t src_stride, uint16_t *dst, int64_t dst_stride) {
  const hn::FixedTag<uint16_t, 8> d;
  const hn::Repartition<uint32_t, decltype(d)> d32;
  const hn::Repartition<uint64_t, decltype(d)> d64;
  hn::Vec<decltype(d)> a[8];
  for (int r = 0; r < 8; ++r) a[r] = hn::LoadU(d, src + r * src_stride);
  // Pairs of rows interleaved by element, then by pair, then by quad: each step doubles the run of
  // one column's elements, until a vector holds a whole column.
  hn::Vec<decltype(d32)> b[8];
  for (int p = 0; p < 4; ++p) {
    b[2 * p] = hn::BitCast(d32, hn::InterleaveLower(d, a[2 * p], a[2 * p + 1]));  // columns 0-3 of rows 2p, 2p + 1
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
    hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, c[q], c[4 + q])), d, dst + 2 * q * dst_stride);
    hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, c[q], c[4 + q])), d, dst + (2 * q + 1) * dst_stride);
  }
}
#endif

template <typename Element>
void TransposeElements(const Element *src, int64_t src_stride, int64_t rows, int64_t cols, Element *dst, int64_t dst_stride) {
  // Elements one at a time over [r0, r1) x [c0, c1): the edges that no whole square covers.
  auto one_by_one = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t c = c0; c < c1; ++c) dst[c * dst_stride + r] = src[r * src_stride + c];
    }
  };
#if HWY_TARGET == HWY_SCALAR
  one_by_one(0, rows, 0, cols);
#else
  constexpr int64_t kSide = 16 / sizeof(Element);
  const int64_t whole_rows = rows / kSide * kSide, whole_cols = cols / kSide * kSide;
  // The short side in the inner loop: the few cache lines a strided side touches along it are
  // finished while they are in L1, whichever side is strided (gathering a transposed view's
  // rows, src; writing them back, dst). That side's lines kAhead squares on are fetched into L2
  // meanwhile (for writing, on the dst side): with one line per row, many rows apart, nothing
  // else would have more than a few in flight. L2, not L1: lines a power of two apart share one
  // L1 set, where fetching ahead would evict the lines in use.
  constexpr int64_t kAhead = 8;
  constexpr int kIntoL2 = 2;
  // The bytes [first, first + count * sizeof(Element)) of `lines` rows `stride` elements apart.
  auto fetch_rows = [&](const Element *first, int64_t stride, int64_t lines, int64_t count, bool for_writing) {
    for (int64_t k = 0; k < lines; ++k) {
      const char *row = reinterpret_cast<const char *>(first + k * stride);
      for (int64_t byte = 0; byte < count * static_cast<int64_t>(sizeof(Element)); byte += 64) {
        if (for_writing) {
          __builtin_prefetch(row + byte, 1, kIntoL2);
        } else {
          __builtin_prefetch(row + byte, 0, kIntoL2);
        }
      }
    }
  };
  if (cols <= rows) {
    for (int64_t r = 0; r < whole_rows; r += kSide) {
      if (r + kAhead * kSide + kSide <= rows) fetch_rows(src + (r + kAhead * kSide) * src_stride, src_stride, kSide, cols, false);
      for (int64_t c = 0; c < whole_cols; c += kSide) TransposeSquare(src + r * src_stride + c, src_stride, dst + c * dst_stride + r, dst_stride);
    }
  } else {
    for (int64_t c = 0; c < whole_cols; c += kSide) {
      if (c + kAhead * kSide + kSide <= cols) fetch_rows(dst + (c + kAhead * kSide) * dst_stride, dst_stride, kSide, rows, true);
      for (int64_t r = 0; r < whole_rows; r += kSide) TransposeSquare(src + r * src_stride + c, src_stride, dst + c * dst_stride + r, dst_stride);
    }
  }
  one_by_one(0, whole_rows, whole_cols, cols);
  one_by_one(whole_rows, rows, 0, cols);
#endif
}

void TransposeForTarget(const void *src, int64_t src_stride, int64_t rows, int64_t cols, void *dst, int64_t dst_stride,
                        size_t element_size) {
  if (element_size == 2) {
    TransposeElements(static_cast<const uint16_t *>(src), src_stride, rows, cols, static_cast<uint16_t *>(dst), dst_stride);
  } else {
    TransposeElements(static_cast<const uint32_t *>(src), src_stride, rows, cols, static_cast<uint32_t *>(dst), dst_stride);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclhost
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclhost {
namespace kernels {

void Transpose(const void *src, int64_t src_stride, int64_t rows, int64_t cols, void *dst, int64_t dst_stride,
               size_t element_size, Isa isa) {
  ACLHOST_FUNCTION_FOR_ISA(isa, TransposeForTarget)(src, src_stride, rows, cols, dst, dst_stride, element_size);
}

}  // namespace kernels
}  // namespace aclhost
#endif  // HWY_ONCE
