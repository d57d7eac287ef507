// LayerNorm forward, one source for every SIMD target (Highway dynamic dispatch).
//
// The order of every floating-point operation is a function of (rows, cols) only:
// - A row is read in blocks of kBlockLanes = 16 columns; column n feeds logical lane n % 16,
//   whatever the vector width (rows of kPairedSumCols and more: block k into set k % 2 of 16
//   lanes, the sets then added). The 16 lane sums meet in a fixed pairwise tree.
// - The mean is summed relative to the mean of the row's first block (the pivot), so a row far
//   from zero (31 +- 1, 3000 +- 0.01) keeps the digits of its spread, which float32 sums of the
//   raw values would lose; it is then held as two floats (TwoSum), so that x - mean is accurate to
//   its own size. Three passes: the mean, the sum of squared deviations from it, the output.
// - Rows are independent; threads take whole chunks of rows. Multiplies and adds are separate
//   operations (no FMA on one target and not on another).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/layer_norm/layer_norm_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/cache_control.h"
#include "hwy/highway.h"

#include "kernels/common/cache_fetch.h"
#include "kernels/common/rows_ahead.h"
#include "kernels/common/simd_convert-inl.h"
#include "kernels/layer_norm/layer_norm_kernel.h"

#ifndef ACLNN_HOST_LAYER_NORM_LANES
#define ACLNN_HOST_LAYER_NORM_LANES
#include <cmath>
#include <limits>
#include <type_traits>

namespace aclhost {
namespace kernels {
namespace ln {

// The rounding error of sum = a + b, exactly (Knuth's TwoSum; plain adds, no FMA needed).
inline float AddError(float a, float b, float sum) {
  const float b_part = sum - a;
  return (a - (sum - b_part)) + (b - b_part);
}

// Pass 2 fetches the next rows into L2 rather than L1 from rows of 3 KiB on, except FLOAT rows of
// 64 KiB and more. Two threads, the builds before and after alternating call by call
// (bench/ab_builds), medians: (16384, 5120) BF16 13.9 -> 11.6 ms, (4096, 4096) FLOAT16 2.28 ->
// 2.14, (32768, 1024) FLOAT 5.81 -> 5.49; (16384, 5120) FLOAT even. Rows of 2 KiB and less, and
// FLOAT rows of 64 KiB ((2048, 16384) 8.7 -> 9.6 ms) and more, lost by L2 or did not move
// (docs/PERFORMANCE.md, fourth session of 2026-12-03). Zen 5 fetches every row into L1, all of it
// in pass 2 (twentieth session; the backward there fetches into L1 too, split between its passes
// for the rows it does not keep), against this rule: (4096, 4096) FLOAT 3.26 -> 3.13 ms (14 of 16
// pairs; the other order 10 of 12), FLOAT16 1.71 -> 1.57 (12 of 16; 14 of 16), BF16 8 of 12;
// (16384, 5120) BF16 7.77 -> 7.57 (12 of 16; 11 of 12, 16 of 16), FLOAT 14.98 -> 14.58 (12 of 16);
// (1024, 32768) FLOAT16 even (7 of 16).
inline bool FetchesNextRowsIntoL2(int64_t row_bytes, size_t element_size, CacheVendor vendor) {
  constexpr int64_t kShortRowBytes = 3072, kLongFloatRowBytes = 65536;
  if (FetchesNextRowsIntoL1Only(vendor)) return false;
  return row_bytes >= kShortRowBytes && (element_size != sizeof(float) || row_bytes < kLongFloatRowBytes);
}

}  // namespace ln
}  // namespace kernels
}  // namespace aclhost
#endif

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {

// A row's statistics: the mean as the float nearest it plus what that float misses (TwoSum), so
// that x - mean is accurate to its own size for x near the mean, and rstd.
struct RowStatistics {
  float mean, mean_rest, rstd;
};

// The lanes of a row's last block that lie past the row's end count for nothing.
HWY_INLINE void ZeroPastEnd(int64_t cols, int64_t whole_cols, BlockVec *x) {
  const BlockTag d;
  for (int64_t v = 0; v < kBlockVecs; ++v) {
    const int64_t valid = cols - whole_cols - v * kBlockWidth;
    const size_t count = valid <= 0 ? 0 : static_cast<size_t>(valid < kBlockWidth ? valid : kBlockWidth);
    x[v] = hn::IfThenElseZero(hn::FirstN(d, count), x[v]);
  }
}

// x - mean for a block, with the mean as two floats (RowStatistics).
HWY_INLINE void Centre(BlockVec mean, BlockVec mean_rest, BlockVec *x) {
  for (int64_t v = 0; v < kBlockVecs; ++v) x[v] = hn::Sub(hn::Sub(x[v], mean), mean_rest);
}

// A row's pivot: the mean of its first block (up to 16 elements), near the row's mean even where
// the first element is an outlier (a first element 100 standard deviations out made the sums of
// deviations from it so large that their rounding moved `out` past the FLOAT tolerance); the
// first element where that mean is not finite, so that such rows keep the statistics of their
// values.
template <ElementType kInput>
HWY_INLINE float FirstBlockMean(const LayerNormArgs &args, const char *row) {
  const int64_t count = args.cols < kBlockLanes ? args.cols : kBlockLanes;
  BlockVec x[kBlockVecs];
  ReadBlock<kInput>(row, 0, args.cols, x);  // zero-padded past the row's end
  const float mean = SumBlockLanes(x) / static_cast<float>(count);
  return std::isfinite(mean) ? mean : static_cast<float>(LoadElement(row, kInput, 0));
}

// Rows of at least this many columns sum their blocks in two interleaved sets of lanes
// (SumRowBlocks). One thread, kernel alone, best of 10 alternating runs: (64, 1024) FLOAT 0.227 ->
// 0.209 ns per element, FLOAT16 0.270 -> 0.261, BF16 0.299 -> 0.274; (256, 768) BF16 0.316 ->
// 0.298. Shorter rows measured no better (16-bit ones of up to 512 columns are taken in groups,
// whose chains overlap already; (512, 512) BF16 0.259 -> 0.266), so they keep one set.
constexpr int64_t kPairedSumCols = 768;

// For each of kRows rows (row_step bytes apart), the sum over the row's blocks of term(r, n, block)
// (which turns the block's values at column n, as float32, into its terms in place) in 16 lanes. Rows of
// kPairedSumCols and more add block k into lane set k % 2, the two sets added lane by lane at the
// end: two chains of dependent adds instead of one, whose latency otherwise bounds a pass of few
// operations per block. The order is fixed by cols alone. before_block(n) runs before the rows'
// blocks at column n.
template <ElementType kInput, int kRows, class Term, class BeforeBlock>
HWY_INLINE void SumRowBlocks(int64_t cols, const char *rows, int64_t row_step, Term term, BeforeBlock before_block,
                             BlockVec (*sums)[kBlockVecs]) {
  const BlockTag d;
  constexpr int64_t vecs = kBlockVecs;
  const int64_t whole_cols = cols / kBlockLanes * kBlockLanes;
  BlockVec x[vecs], odd[kRows][vecs];
  for (int r = 0; r < kRows; ++r) {
    for (int64_t v = 0; v < vecs; ++v) sums[r][v] = odd[r][v] = hn::Zero(d);
  }
  auto add_whole_block = [&](int64_t n, BlockVec (*into)[vecs]) HWY_ATTR __attribute__((always_inline)) {
    before_block(n);
    for (int r = 0; r < kRows; ++r) {
      LoadBlock<kInput>(rows + r * row_step, n, x);
      term(r, n, x);
      for (int64_t v = 0; v < vecs; ++v) into[r][v] = hn::Add(into[r][v], x[v]);
    }
  };
  const bool paired = kRows == 1 && cols >= kPairedSumCols;  // groups: see kGroupBytes
  int64_t n = 0;
  if (paired) {
    for (; n + 2 * kBlockLanes <= whole_cols; n += 2 * kBlockLanes) {
      add_whole_block(n, sums);
      add_whole_block(n + kBlockLanes, odd);
    }
  }
  for (; n < whole_cols; n += kBlockLanes) add_whole_block(n, sums);
  if (whole_cols < cols) {
    BlockVec (*into)[vecs] = paired && (whole_cols / kBlockLanes) % 2 == 1 ? odd : sums;
    for (int r = 0; r < kRows; ++r) {
      ReadBlock<kInput>(rows + r * row_step, whole_cols, cols, x);
      term(r, whole_cols, x);
      ZeroPastEnd(cols, whole_cols, x);
      for (int64_t v = 0; v < vecs; ++v) into[r][v] = hn::Add(into[r][v], x[v]);
    }
  }
  if (paired) {
    for (int r = 0; r < kRows; ++r) {
      for (int64_t v = 0; v < vecs; ++v) sums[r][v] = hn::Add(sums[r][v], odd[r][v]);
    }
  }
}

// The statistics of kRows rows m, m + 1, ... (rows, row_step bytes apart): each row's two passes are
// exactly those of the row alone, interleaved so that the rows' chains of dependent operations
// (block sums, lane trees, divisions, the square root) overlap, which short rows otherwise wait
// on. The rows at next_rows + r * row_step are fetched meanwhile. kWidened: pass 1 also leaves
// each row's values as float32 in `widened` (rows widened_cols apart), pass 2 reads them there
// instead of converting them again and leaves x - mean in their place for pass 3.
template <ElementType kInput, int kRows, bool kWidened>
HWY_INLINE void ComputeStatistics(const LayerNormArgs &args, const char *rows, int64_t row_step, const char *next_rows,
                                  float *widened, int64_t widened_cols, RowStatistics *stats) {
  const BlockTag d;
  constexpr int64_t vecs = kBlockVecs;
  const int64_t cols = args.cols;
  const float cols_as_float = static_cast<float>(cols);
  BlockVec sums[kRows][vecs], pivot[kRows], mean_vec[kRows], mean_rest_vec[kRows];
  float pivot_value[kRows];

  // Pass 1: the sum relative to the pivot (FirstBlockMean).
  for (int r = 0; r < kRows; ++r) {
    pivot_value[r] = FirstBlockMean<kInput>(args, rows + r * row_step);
    pivot[r] = hn::Set(d, pivot_value[r]);
  }
  auto deviation = [&](int r, int64_t n, BlockVec *x) HWY_ATTR __attribute__((always_inline)) {
    if (kWidened) StoreBlock<ElementType::kFloat32>(x, widened + r * widened_cols, n);
    for (int64_t v = 0; v < vecs; ++v) x[v] = hn::Sub(x[v], pivot[r]);
  };
  // The next rows are fetched while these are worked on from cache (ln::FetchesNextRowsIntoL2 says
  // into which cache): otherwise every row's arithmetic waits behind its first read. Into L1: in
  // pass 2. Into L2: their first halves in pass 1 and their second halves in pass 2, a line for
  // every two lines of these rows, so that memory streams through both passes. Against all of
  // them in pass 2, two threads, alternating builds from cold caches: (4096, 4096) FLOAT 7.31 ->
  // 4.80 ms (15 of 16 pairs), BF16 13 of 16 faster; (16384, 5120) FLOAT 25.9 -> 21.7 (8 of 8),
  // FLOAT16 17.4 -> 15.5 (10 of 10), BF16 18.5 -> 17.4 (9 of 10); (1024, 32768) FLOAT16 7.57 ->
  // 7.27 (14 of 16), BF16 7.85 -> 7.31 (12 of 16); (32768, 1024) FLOAT 9 of 12; (8192, 768) even.
  // None where the call is in cache (RowsInCache): Zen 4, (64, 256) FLOAT 6.2 -> 6.0 us medians,
  // 99 and 97 % of 20,000 pairs faster (bench/ab_builds ... forward, both orders).
  constexpr int64_t kSize = static_cast<int64_t>(ElementSize(kInput));
  const bool into_l2 = ln::FetchesNextRowsIntoL2(cols * kSize, ElementSize(kInput), args.config.vendor);
  const bool fetch_next = !RowsInCache(args.rows * cols * static_cast<int64_t>(ElementSize(kInput) + ElementSize(args.out_type)));
  auto fetch_half = [&](int64_t n, bool second_half) HWY_ATTR __attribute__((always_inline)) {
    for (int r = 0; r < kRows; ++r) FetchHalfRow(next_rows + r * row_step, cols * kSize, n * kSize, second_half, true);
  };
  auto fetch_in_pass_1 = [&](int64_t n) HWY_ATTR __attribute__((always_inline)) {
    if (into_l2 && fetch_next) fetch_half(n, false);
  };
  SumRowBlocks<kInput, kRows>(cols, rows, row_step, deviation, fetch_in_pass_1, sums);
  for (int r = 0; r < kRows; ++r) {
    const float shift = SumBlockLanes(sums[r]) / cols_as_float;  // mean - pivot
    stats[r].mean = pivot_value[r] + shift;
    stats[r].mean_rest = ln::AddError(pivot_value[r], shift, stats[r].mean);
    mean_vec[r] = hn::Set(d, stats[r].mean);
    mean_rest_vec[r] = hn::Set(d, stats[r].mean_rest);
  }

  // Pass 2: the sum of squared deviations from the mean.
  auto squared_deviation = [&](int r, int64_t n, BlockVec *x) HWY_ATTR __attribute__((always_inline)) {
    Centre(mean_vec[r], mean_rest_vec[r], x);
    if (kWidened) StoreBlock<ElementType::kFloat32>(x, widened + r * widened_cols, n);
    for (int64_t v = 0; v < vecs; ++v) x[v] = hn::Mul(x[v], x[v]);
  };
  auto fetch_in_pass_2 = [&](int64_t n) HWY_ATTR __attribute__((always_inline)) {
    if (!fetch_next) return;
    if (into_l2) {
      fetch_half(n, true);
      return;
    }
    for (int r = 0; r < kRows; ++r) FetchForReading(next_rows + r * row_step + n * kSize, false);
  };
  if (kWidened) {
    SumRowBlocks<ElementType::kFloat32, kRows>(cols, reinterpret_cast<const char *>(widened),
                                               widened_cols * static_cast<int64_t>(sizeof(float)), squared_deviation,
                                               fetch_in_pass_2, sums);
  } else {
    SumRowBlocks<kInput, kRows>(cols, rows, row_step, squared_deviation, fetch_in_pass_2, sums);
  }
  for (int r = 0; r < kRows; ++r) {
    const float variance = SumBlockLanes(sums[r]) / cols_as_float;
    stats[r].rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(variance) + args.eps));
  }
}

// Pass 3 of row m: out = (x - mean) * rstd * weight + bias, then the row's statistics stored.
// stream_out: write the whole blocks of a 64-byte aligned output row with non-temporal stores.
// The whole blocks run in one loop and the zero-padded last block after it, so that the loop
// holds its vectors in registers (a tail's memcpy would spill them every block). kCentred: x - mean
// is read from `centred` (float32, whole blocks; ComputeStatistics' widened row), not from row.
template <ElementType kInput, ElementType kOut, bool kHasWeight, bool kHasBias, bool kCentred>
HWY_INLINE void NormalizeRow(const LayerNormArgs &args, int64_t m, const char *row, const float *centred, char *out_row,
                             const RowStatistics &stats, bool stream_out) {
  const BlockTag d;
  constexpr int64_t vecs = kBlockVecs;
  const int64_t cols = args.cols;
  const int64_t whole_cols = cols / kBlockLanes * kBlockLanes;
  const BlockVec mean_vec = hn::Set(d, stats.mean), mean_rest_vec = hn::Set(d, stats.mean_rest);
  const BlockVec rstd_vec = hn::Set(d, stats.rstd);
  // Locals, not args' members: out_row's stores could alias args, whose pointers GCC then reloaded
  // every block. Kernel alone (kernel_bench, one thread, L2), 5 alternating runs: (256, 768)
  // FLOAT16 0.260 -> 0.244 ns per element (medians; 5 of 5 runs faster), BF16 0.301 -> 0.292 (5
  // of 5); whole calls (8192, 768) even (memory-bound).
  const float *const weight = static_cast<const float *>(args.weight), *const bias = static_cast<const float *>(args.bias);
  BlockVec x[vecs], w[vecs], b[vecs];
  // A block's values, loaded, normalized in place with the block's weight and bias.
  auto normalize = [&](BlockVec *values, const BlockVec *weights, const BlockVec *biases) HWY_ATTR __attribute__((always_inline)) {
    if (!kCentred) Centre(mean_vec, mean_rest_vec, values);
    for (int64_t v = 0; v < vecs; ++v) {
      BlockVec value = hn::Mul(values[v], rstd_vec);
      if (kHasWeight) value = hn::Mul(value, weights[v]);
      if (kHasBias) value = hn::Add(value, biases[v]);
      values[v] = value;
    }
  };
  // The whole block at n, loaded and normalized into values.
  auto whole_block = [&](int64_t n, BlockVec *values) HWY_ATTR __attribute__((always_inline)) {
    kCentred ? LoadBlock<ElementType::kFloat32>(centred, n, values) : LoadBlock<kInput>(row, n, values);
    if (kHasWeight) LoadBlock<ElementType::kFloat32>(weight, n, w);
    if (kHasBias) LoadBlock<ElementType::kFloat32>(bias, n, b);
    normalize(values, w, b);
  };
  // Each block is read before it is written, which keeps exact in-place use correct. 16-bit output
  // goes two blocks at a time, written together as a line (StoreBlockPair). Intel Xeon (Emerald
  // Rapids), two threads, alternating builds call by call (bench/ab_builds ... N forward),
  // medians: BF16 (rounded by one instruction a pair) (4096, 4096) 3.34 -> 2.96 ms (18 of 20
  // pairs), (16384, 5120) 15.3 -> 14.3 (10 of 10), (1024, 32768) 10.4 -> 9.9 (16 of 16), (32768,
  // 1024) 5.71 -> 5.36 (11 of 16), (8192, 768) 1.18 -> 1.14 (27 of 40); FLOAT16 (4096, 4096)
  // 2.65 -> 2.55 (13 of 16), (16384, 5120) 13.0 -> 12.4 (7 of 8), (1024, 32768) 6.19 -> 5.97 (9
  // of 12); (262144, 128), FLOAT16 (8192, 768) and (32768, 1024) even.
  auto whole_blocks = [&](auto stream) HWY_ATTR __attribute__((always_inline)) {
    constexpr bool kStream = decltype(stream)::value;
    int64_t n = 0;
    if constexpr (kOut != ElementType::kFloat32) {
      for (; n + 2 * kBlockLanes <= whole_cols; n += 2 * kBlockLanes) {
        BlockVec second[vecs];
        whole_block(n, x);
        whole_block(n + kBlockLanes, second);
        StoreBlockPair<kOut, kStream>(x, second, out_row, n);
      }
    }
    for (; n < whole_cols; n += kBlockLanes) {
      whole_block(n, x);
      StoreBlock<kOut, kStream>(x, out_row, n);
    }
  };
  if (stream_out && reinterpret_cast<uintptr_t>(out_row) % 64 == 0) {
    whole_blocks(std::true_type());
  } else {
    whole_blocks(std::false_type());
  }
  if (whole_cols < cols) {
    kCentred ? LoadBlock<ElementType::kFloat32>(centred, whole_cols, x) : ReadBlock<kInput>(row, whole_cols, cols, x);
    if (kHasWeight) ReadBlock<ElementType::kFloat32>(weight, whole_cols, cols, w);
    if (kHasBias) ReadBlock<ElementType::kFloat32>(bias, whole_cols, cols, b);
    normalize(x, w, b);
    WriteBlock<kOut>(x, out_row, whole_cols, cols);
  }
  if (args.mean != nullptr) StoreElement(args.mean, args.mean_type, m, stats.mean);
  if (args.rstd != nullptr) StoreElement(args.rstd, args.rstd_type, m, stats.rstd);
}

// Rows taken together for their statistics: 4 short rows, whose dependency chains (and, 16-bit,
// conversions, now done once: kWidenedCols) are most of their time, where the 4 take at most 4
// KiB (16-bit) or 2 KiB (FLOAT).
// Measured on one thread, best of 7: (16384, 128) FLOAT16 0.99 -> 0.70 ms, BF16 1.30 -> 0.92 ms,
// (8192, 512) BF16 1.80 -> 1.62 ms; 512 FLOAT columns (8 KiB) 1.14 -> 1.39 ms. FLOAT rows of 128
// columns and fewer (eighth session of 2026-12-03; the third measured them slower, before the
// prefetches and schedule of today): kernel alone (1024, 128) 0.405 -> 0.305 ns per element;
// two threads, alternating builds, (262144, 128) 7.29 -> 6.28 ms (56 of 60 pairs), (524288, 64)
// 10.8 -> 8.07 ms (30 of 30); but FLOAT rows of 256 columns even to much slower ((131072, 256)
// 8 of 20 and 1 of 30 pairs faster), so those run one at a time.
constexpr int kGroupRows = 4;
constexpr int64_t kGroupBytes = int64_t{4} << 10;
constexpr int64_t kFloatGroupBytes = int64_t{2} << 10;

template <ElementType kInput>
bool GroupsRows(int64_t row_bytes) {
  return kGroupRows * row_bytes <= (kInput == ElementType::kFloat32 ? kFloatGroupBytes : kGroupBytes);
}
// SumRowBlocks pairs the blocks of rows taken one at a time only; a grouped row must be too short
// to be paired alone, or its sums would depend on how it was taken.
static_assert(kGroupBytes / (kGroupRows * 2) < kPairedSumCols && kFloatGroupBytes / (kGroupRows * 4) < kPairedSumCols,
              "grouped rows are never paired");

// 16-bit rows whose group (or the row alone, when not grouped) holds up to this many columns are
// converted to float32 once, in pass 1, rather than in each of the three passes
// (ComputeStatistics' kWidened), and pass 3 reads x - mean as pass 2 left it: 13 instead of 19
// vector operations a block on AVX-512, for the same bits. Intel Xeon (Emerald Rapids), two
// threads, alternating builds call by call: (8192, 768) FLOAT16 1.08 -> 0.90 ms medians (20 of 20
// pairs), BF16 1.17 -> 1.03 (17 of 20); (32768, 1024) FLOAT16 4.93 -> 4.28 (19 of 20), BF16 6.75
// -> 5.90 (18 of 20). Rows of 4096 columns were slower widened (FLOAT16 (4096, 4096) 2 of 20 pairs
// faster: the float32 row, weight and bias outgrow L1). Grouped rows, measured no faster in the
// eleventh session of 2026-12-04 ((262144, 128) 8 and 6 of 20), gained in the fourteenth (after
// the thirteenth's change to pass 3; the cause not isolated): (262144, 128) FLOAT16 7.96 -> 7.29 ms
// (19 of 20), BF16 8.13 -> 7.13 and 7.89 -> 7.36 (17 and 16 of 20); (131072, 256) BF16 6.84 ->
// 6.02 (13 of 16), FLOAT16 7.36 -> 6.76 (14 of 16); (524288, 64) BF16 15.2 -> 12.1 (13 of 16);
// in cache (4096, 128) FLOAT16 226 -> 213 us (259 of 400), (64, 256) BF16 9.7 -> 8.7 (1,966 of
// 2,000).
constexpr int64_t kWidenedCols = 2048;
static_assert(kGroupBytes / 2 <= kWidenedCols && kGroupBytes / (2 * kGroupRows) % kBlockLanes == 0,
              "a group of 16-bit rows, padded to whole blocks, fits the widened buffer");

// Groups of rows under kNearGroupBytes fetch the group two groups on rather than the next: with
// one, memory did not keep up. Two threads, alternating builds call by call (bench/ab_builds ...
// forward), medians: (262144, 128) BF16 (1 KiB groups) 6.81 -> 6.56, 7.11 -> 6.80 and 6.00 ->
// 5.78 ms (20 of 30, 21 of 30 and 17 of 20 pairs faster), FLOAT16 7.27 -> 6.19 (14 of 20);
// (524288, 64) BF16 9.40 -> 9.02 (14 of 20), FLOAT 10.2 -> 9.58 (17 of 20). Not groups of 2 KiB:
// (131072, 256) BF16 4 of 20 and 6 of 16, FLOAT16 4 of 20, (262144, 128) FLOAT 9 and 5 of 20.
// Four groups on were no better ((262144, 128) BF16 16 of 30; (524288, 64) 4 of 16); rows taken
// one at a time keep fetching the next (two rows on: (32768, 1024) BF16 and (4096, 4096) FLOAT 5
// of 16 each).
constexpr int64_t kNearGroupBytes = 2048;
inline int64_t FetchAheadGroups(int rows, int64_t row_bytes) { return rows > 1 && rows * row_bytes < kNearGroupBytes ? 2 : 1; }

// Rows [row_begin, row_end); weight and bias, when given, are float32.
// stream_out: write output rows with non-temporal stores (see NormalizeRow).
template <ElementType kInput, ElementType kOut, bool kHasWeight, bool kHasBias>
void NormalizeRows(const LayerNormArgs &args, int64_t row_begin, int64_t row_end, bool stream_out) {
  const int64_t row_bytes = args.cols * static_cast<int64_t>(ElementSize(kInput));
  const int64_t input_step = RowStepBytes(args.input_spacing, args.cols, kInput);
  const int64_t out_step = RowStepBytes(args.out_spacing, args.cols, kOut);
  const int64_t widened_cols = (args.cols + kBlockLanes - 1) / kBlockLanes * kBlockLanes;
  HWY_ALIGN float widened[kWidenedCols];
  // Runs of rows [begin, end) within one batch of input and of out (a step apart there; a row's
  // results do not depend on the rows taken with it).
  auto run_end = [&](int64_t begin, int64_t end) { return BatchEnd(args.out_spacing, begin, BatchEnd(args.input_spacing, begin, end)); };
  // Short runs have later runs' input rows fetched as they go (RowsAhead).
  auto input_runs = [&](int64_t first, int64_t end) {
    RowRun run;
    run.rows[0] = static_cast<const char *>(args.input) + RowOffsetBytes(args.input_spacing, first, args.cols, kInput);
    run.steps[0] = input_step;
    run.end = run_end(first, end);
    return run;
  };
  RowsAhead<decltype(input_runs)> later_runs(input_runs, row_begin, row_end, row_bytes);
  for (int64_t begin = row_begin, end; begin < row_end; begin = end) {
    end = run_end(begin, row_end);
    const char *const input = static_cast<const char *>(args.input) + RowOffsetBytes(args.input_spacing, begin, args.cols, kInput);
    char *const out = static_cast<char *>(args.out) + RowOffsetBytes(args.out_spacing, begin, args.cols, kOut);
    // Rows m .. m + kRows - 1 (i of the run on): statistics together, then each row normalised;
    // pass 2 fetches the rows FetchAheadGroups groups on, else the next rows of the run, or its
    // own rows at the run's end.
    auto run = [&](int64_t m, auto rows_tag, auto widened_tag) HWY_ATTR __attribute__((always_inline)) {
      constexpr int kRows = decltype(rows_tag)::value;
      constexpr bool kWidened = decltype(widened_tag)::value;
      RowStatistics stats[kRows];
      later_runs.Fetch(kRows);
      const int64_t far = FetchAheadGroups(kRows, row_bytes), ahead = m + (far + 1) * kRows <= end ? far : 1;
      const int64_t i = m - begin, next = m + (ahead + 1) * kRows <= end ? i + ahead * kRows : i;
      ComputeStatistics<kInput, kRows, kWidened>(args, input + i * input_step, input_step, input + next * input_step,
                                                 widened, widened_cols, stats);
      for (int r = 0; r < kRows; ++r) {
        NormalizeRow<kInput, kOut, kHasWeight, kHasBias, kWidened>(args, m + r, input + (i + r) * input_step,
                                                                   widened + r * widened_cols, out + (i + r) * out_step,
                                                                   stats[r], stream_out);
      }
    };
    auto run_all = [&](auto widened_tag) HWY_ATTR __attribute__((always_inline)) {
      int64_t m = begin;
      // 16-bit groups are always widened (the static_assert above).
      if constexpr (kInput == ElementType::kFloat32 || decltype(widened_tag)::value) {
        if (GroupsRows<kInput>(row_bytes)) {
          for (; m + kGroupRows <= end; m += kGroupRows) run(m, std::integral_constant<int, kGroupRows>(), widened_tag);
        }
      }
      for (; m < end; ++m) run(m, std::integral_constant<int, 1>(), widened_tag);
    };
    if constexpr (kInput != ElementType::kFloat32) {
      if (GroupsRows<kInput>(row_bytes) || widened_cols <= kWidenedCols) {
        run_all(std::true_type());
        continue;
      }
    }
    run_all(std::false_type());
  }
  if (stream_out) hwy::FlushStream();  // make the non-temporal stores visible
}

using RowsFunction = void (*)(const LayerNormArgs &, int64_t, int64_t, bool);

template <ElementType kInput, ElementType kOut>
RowsFunction ForPresence(const LayerNormArgs &args) {
  if (args.weight != nullptr) {
    return args.bias != nullptr ? &NormalizeRows<kInput, kOut, true, true> : &NormalizeRows<kInput, kOut, true, false>;
  }
  return args.bias != nullptr ? &NormalizeRows<kInput, kOut, false, true> : &NormalizeRows<kInput, kOut, false, false>;
}

template <ElementType kInput>
RowsFunction ForOutput(const LayerNormArgs &args) {
  switch (args.out_type) {
    case ElementType::kFloat16: return ForPresence<kInput, ElementType::kFloat16>(args);
    case ElementType::kBFloat16: return ForPresence<kInput, ElementType::kBFloat16>(args);
    case ElementType::kFloat32: break;
  }
  return ForPresence<kInput, ElementType::kFloat32>(args);
}

void NormalizeRowsForTarget(const LayerNormArgs &args, int64_t row_begin, int64_t row_end, bool stream_out) {
  RowsFunction run = nullptr;
  switch (args.input_type) {
    case ElementType::kFloat16: run = ForOutput<ElementType::kFloat16>(args); break;
    case ElementType::kBFloat16: run = ForOutput<ElementType::kBFloat16>(args); break;
    case ElementType::kFloat32: run = ForOutput<ElementType::kFloat32>(args); break;
  }
  run(args, row_begin, row_end, stream_out);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclhost
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>

#include "common/parallel_for.h"
#include "kernels/common/convert.h"
#include "kernels/common/dispatch.h"

namespace aclhost {
namespace kernels {
namespace {

// A thread's share is whole chunks of at least kRowsPerChunk rows and kChunkBytes of input: within
// a chunk each group's pass 2 fetches the next rows, so short rows in chunks of 16 started every
// 16th row cold. Two threads, alternating builds, from cold caches: (262144, 128) FLOAT 10.8 ->
// 9.7 ms (16 of 16 pairs), BF16 7.80 -> 7.26 (15 of 16), FLOAT16 7.38 -> 6.94 (11 of 16); 256
// KiB no better (6 to 9 of 16 against 64 KiB); (32768, 1024) and (8192, 768) even.
constexpr int64_t kRowsPerChunk = 16;
constexpr int64_t kChunkBytes = 65536;

}  // namespace

size_t LayerNormForwardScratchBytes(int64_t cols, ElementType weight_type, ElementType bias_type) {
  return WidenedBytesFor(weight_type, cols) + WidenedBytesFor(bias_type, cols);
}

void LayerNormForward(const LayerNormArgs &given) {
  if (given.cols == 0) {  // empty rows: mean 0, rstd NaN (upstream's choice)
    for (int64_t m = 0; m < given.rows; ++m) {
      if (given.mean != nullptr) StoreElement(given.mean, given.mean_type, m, 0.0f);
      if (given.rstd != nullptr) StoreElement(given.rstd, given.rstd_type, m, std::numeric_limits<float>::quiet_NaN());
    }
    return;
  }
  // The rows read a 16-bit weight or bias as float32, widened here once: the weight's copy first
  // in the scratch, the bias's after it (LayerNormForwardScratchBytes' order).
  LayerNormArgs args = given;
  char *const scratch = static_cast<char *>(given.scratch);
  const size_t bias_offset = WidenedBytesFor(given.weight != nullptr ? given.weight_type : ElementType::kFloat32, given.cols);
  WidenNarrow(&args.weight, &args.weight_type, args.cols, reinterpret_cast<float *>(scratch), args.config.isa);
  WidenNarrow(&args.bias, &args.bias_type, args.cols, reinterpret_cast<float *>(scratch + bias_offset), args.config.isa);

  const auto run = ACLHOST_FUNCTION_FOR_ISA(args.config.isa, NormalizeRowsForTarget);
  const int64_t row_bytes = args.cols * static_cast<int64_t>(ElementSize(args.input_type));
  const int64_t rows_per_chunk = std::max(kRowsPerChunk, kChunkBytes / std::max<int64_t>(row_bytes, 1));
  const int64_t chunks = (args.rows + rows_per_chunk - 1) / rows_per_chunk;
  const bool stream_out = StreamsOutput(args.rows * args.cols * static_cast<int64_t>(ElementSize(args.out_type)));
  ParallelFor(chunks, ThreadsForWork(args.config, chunks, args.rows * args.cols), [&](int64_t chunk, int /*worker*/) {
    run(args, chunk * rows_per_chunk, std::min(args.rows, (chunk + 1) * rows_per_chunk), stream_out);
  });
}

}  // namespace kernels
}  // namespace aclhost
#endif  // HWY_ONCE
