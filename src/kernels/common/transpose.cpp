// Matrix transposition in squares of one 128-bit vector per row (4 x 4 of 32-bit elements, 8 x 8
// of 16-bit ones) or, on targets with 256-bit vectors, of one 256-bit vector per row (8 x 8,
// 16 x 16), one source for every SIMD target (Highway dynamic dispatch).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/common/transpose.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/cache_control.h"
#include "hwy/highway.h"

#include <algorithm>

#include "kernels/common/dispatch.h"
#include "kernels/common/transpose-inl.h"
#include "kernels/common/transpose.h"

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// 128-bit blocks per square row: two where the target has 256-bit vectors (8 x 8 32-bit, 16 x 16
// 16-bit squares: (8192, 768) FLOAT's three transposed moves alone, one thread, 11.7 -> 7.0 ms
// against 4 x 4 squares), else one.
constexpr int64_t kSquareBlocks = HWY_TARGET <= HWY_AVX2 ? 2 : 1;

template <typename Element>
constexpr int64_t kSquareSide = kSquareBlocks * 16 / static_cast<int64_t>(sizeof(Element));

// The square at src (rows src_stride apart) transposed in registers: rows[k] is its column k, the
// destination's row k.
template <typename Element, class D>
HWY_INLINE void TransposeInRegisters(D d, const Element *src, int64_t src_stride, hn::Vec<D> *rows) {
  constexpr int64_t kBlockSide = 16 / sizeof(Element);
  hn::Vec<D> a[kBlockSide], columns[kSquareBlocks][kBlockSide];
  for (int64_t group = 0; group < kSquareBlocks; ++group) {  // rows of the group: block `group` of each column
    for (int64_t r = 0; r < kBlockSide; ++r) a[r] = hn::LoadU(d, src + (group * kBlockSide + r) * src_stride);
    TransposeWithinBlocks(d, a, columns[group]);
  }
  for (int64_t j = 0; j < kBlockSide; ++j) {
    if constexpr (kSquareBlocks == 1) {
      rows[j] = columns[0][j];
    } else {
      rows[j] = hn::ConcatLowerLower(d, columns[1][j], columns[0][j]);
      rows[j + kBlockSide] = hn::ConcatUpperUpper(d, columns[1][j], columns[0][j]);
    }
  }
}

// The square at src written transposed at dst (rows dst_stride apart).
template <typename Element>
HWY_INLINE void TransposeSquare(const Element *src, int64_t src_stride, Element *dst, int64_t dst_stride) {
  const hn::FixedTag<Element, kSquareSide<Element>> d;
  hn::Vec<decltype(d)> rows[kSquareSide<Element>];
  TransposeInRegisters(d, src, src_stride, rows);
  for (int64_t k = 0; k < kSquareSide<Element>; ++k) hn::StoreU(rows[k], d, dst + k * dst_stride);
}

// Two squares side by side (source rows r .. r + 2 * kSquareSide, whose destination rows the pair
// fills with one 64-byte line each on AVX2 and AVX-512) written with non-temporal stores, each
// line's two halves back to back: a line left half written while others are begun would be
// flushed from the write-combining buffers in pieces (measured twice as slow).
template <typename Element>
HWY_INLINE void TransposeSquarePairStreamed(const Element *src, int64_t src_stride, Element *dst, int64_t dst_stride) {
  constexpr int64_t kSide = kSquareSide<Element>;
  const hn::FixedTag<Element, kSide> d;
  hn::Vec<decltype(d)> first[kSide], second[kSide];
  TransposeInRegisters(d, src, src_stride, first);
  TransposeInRegisters(d, src + kSide * src_stride, src_stride, second);
  for (int64_t k = 0; k < kSide; ++k) {
    hn::Stream(first[k], d, dst + k * dst_stride);
    hn::Stream(second[k], d, dst + k * dst_stride + kSide);
  }
}
#endif

template <typename Element>
void TransposeElements(const Element *src, int64_t src_stride, int64_t rows, int64_t cols, Element *dst, int64_t dst_stride,
                       TransposeFar far) {
  // Elements one at a time over [r0, r1) x [c0, c1): the edges that no whole square covers.
  auto one_by_one = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t c = c0; c < c1; ++c) dst[c * dst_stride + r] = src[r * src_stride + c];
    }
  };
#if HWY_TARGET == HWY_SCALAR
  static_cast<void>(far);  // element by element, nothing is fetched ahead or streamed
  one_by_one(0, rows, 0, cols);
#else
  constexpr int64_t kSide = kSquareSide<Element>;
  const int64_t whole_rows = rows / kSide * kSide, whole_cols = cols / kSide * kSide;
  // The short side in the inner loop: the few cache lines a strided side touches along it are
  // finished while they are in L1, whichever side is strided. The far side's lines (a transposed
  // view's, in memory, rather than the tile's) kAhead strips of squares on are fetched into L2
  // meanwhile: with one line per row, many rows apart, nothing else would have more than a
  // few in flight. L2, not L1: lines a power of two apart share one L1 set, where fetching ahead
  // would evict the lines in use.
  constexpr int64_t kAhead = 8;
  constexpr int kIntoL2 = 2;
  const bool fetch_source = far == TransposeFar::kSource;
  // The bytes [first, first + count * sizeof(Element)) of `lines` rows `stride` elements apart.
  auto fetch_rows = [&](const Element *first, int64_t stride, int64_t lines, int64_t count) {
    for (int64_t k = 0; k < lines; ++k) {
      const char *row = reinterpret_cast<const char *>(first + k * stride);
      for (int64_t byte = 0; byte < count * static_cast<int64_t>(sizeof(Element)); byte += 64) {
        if (fetch_source) {
          __builtin_prefetch(row + byte, 0, kIntoL2);
        } else {
          __builtin_prefetch(row + byte, 1, kIntoL2);
        }
      }
    }
  };
  // The square whose source corner is (r, c).
  auto square = [&](int64_t r, int64_t c) HWY_ATTR __attribute__((always_inline)) {
    TransposeSquare(src + r * src_stride + c, src_stride, dst + c * dst_stride + r, dst_stride);
  };
  if (cols <= rows) {
    // Strips of kSide source rows (destination columns).
    for (int64_t r = 0; r < whole_rows; r += kSide) {
      const int64_t ahead = r + kAhead * kSide;
      if (ahead + kSide <= rows) {
        if (fetch_source) {
          fetch_rows(src + ahead * src_stride, src_stride, kSide, cols);
        } else {
          fetch_rows(dst + ahead, dst_stride, cols, kSide);
        }
      }
      for (int64_t c = 0; c < whole_cols; c += kSide) square(r, c);
    }
  } else {
    // Strips of kSide source columns (destination rows). Streamed: pairs of squares, each a whole
    // line of every destination row, and nothing fetched (a fetch would read the lines).
    constexpr bool kPairFillsLines = 2 * kSide * sizeof(Element) == 64;
    if (kPairFillsLines && far == TransposeFar::kStreamedDestination && reinterpret_cast<uintptr_t>(dst) % 64 == 0 &&
        dst_stride * static_cast<int64_t>(sizeof(Element)) % 64 == 0) {
      for (int64_t c = 0; c < whole_cols; c += kSide) {
        int64_t r = 0;
        for (; r + 2 * kSide <= whole_rows; r += 2 * kSide) {
          TransposeSquarePairStreamed(src + r * src_stride + c, src_stride, dst + c * dst_stride + r, dst_stride);
        }
        if (r < whole_rows) square(r, c);
      }
      hwy::FlushStream();  // make the non-temporal stores visible
    } else {
      // The squares side by side that share each source row's cache line run one after another:
      // the line is then read once from L1, where a strip of squares down many rows (a run of a
      // transposed view's columns, 16 of them power-of-two apart, in one L1 set) would evict it
      // before the next strip came back to it. Its lines are fetched once.
      constexpr int64_t kLineCols = std::max<int64_t>(kSide, 64 / static_cast<int64_t>(sizeof(Element)));
      for (int64_t line = 0; line < whole_cols; line += kLineCols) {
        const int64_t ahead = line + kAhead * kSide;
        if (ahead + kLineCols <= cols) {
          if (fetch_source) {
            fetch_rows(src + ahead, src_stride, rows, kLineCols);
          } else {
            fetch_rows(dst + ahead * dst_stride, dst_stride, kLineCols, rows);
          }
        }
        const int64_t line_end = std::min(line + kLineCols, whole_cols);
        for (int64_t r = 0; r < whole_rows; r += kSide) {
          for (int64_t c = line; c < line_end; c += kSide) square(r, c);
        }
      }
    }
  }
  one_by_one(0, whole_rows, whole_cols, cols);
  one_by_one(whole_rows, rows, 0, cols);
#endif
}

void TransposeForTarget(const void *src, int64_t src_stride, int64_t rows, int64_t cols, void *dst, int64_t dst_stride,
                        size_t element_size, TransposeFar far) {
  if (element_size == 2) {
    TransposeElements(static_cast<const uint16_t *>(src), src_stride, rows, cols, static_cast<uint16_t *>(dst), dst_stride, far);
  } else {
    TransposeElements(static_cast<const uint32_t *>(src), src_stride, rows, cols, static_cast<uint32_t *>(dst), dst_stride, far);
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
               size_t element_size, TransposeFar far, Isa isa) {
  ACLHOST_FUNCTION_FOR_ISA(isa, TransposeForTarget)(src, src_stride, rows, cols, dst, dst_stride, element_size, far);
}

}  // namespace kernels
}  // namespace aclhost
#endif  // HWY_ONCE
