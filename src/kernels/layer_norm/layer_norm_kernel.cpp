// LayerNorm forward, one source for every SIMD target (Highway dynamic dispatch).
//
// The order of every floating-point operation is a function of (rows, cols) only:
// - A row is read in blocks of kBlockLanes = 16 columns; column n feeds logical lane n % 16,
//   whatever the vector width. The 16 lane sums meet in a fixed pairwise tree.
// - The mean is summed relative to the row's first element (the pivot), so a row far from zero
//   (31 +- 1, 3000 +- 0.01) keeps the digits of its spread, which float32 sums of the raw values
//   would lose; it is then held as two floats (TwoSum), so that x - mean is accurate to its own
//   size. Three passes: the mean, the sum of squared deviations from it, the output.
// - Rows are independent; threads take whole chunks of rows. Multiplies and adds are separate
//   operations (no FMA on one target and not on another).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/layer_norm/layer_norm_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/cache_control.h"
#include "hwy/highway.h"

#include "kernels/common/simd_convert-inl.h"
#include "kernels/layer_norm/layer_norm_kernel.h"

#ifndef ACLNN_HOST_LAYER_NORM_LANES
#define ACLNN_HOST_LAYER_NORM_LANES
#include <cmath>
#include <limits>

namespace aclhost {
namespace kernels {
namespace ln {

constexpr int kLanes = 16;  // the block width of simd_convert-inl.h

// The 16 lane sums in a fixed pairwise tree.
inline float SumLanes(float *lanes) {
  for (int half = kLanes / 2; half >= 1; half /= 2) {
    for (int lane = 0; lane < half; ++lane) lanes[lane] += lanes[lane + half];
  }
  return lanes[0];
}

// The rounding error of sum = a + b, exactly (Knuth's TwoSum; plain adds, no FMA needed).
inline float AddError(float a, float b, float sum) {
  const float b_part = sum - a;
  return (a - (sum - b_part)) + (b - b_part);
}

}  // namespace ln
}  // namespace kernels
}  // namespace aclhost
#endif

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {

static_assert(kBlockLanes == ln::kLanes, "one block width");

// Rows [row_begin, row_end). kAffine: the dtype of weight and bias (equal when both are given).
// stream_out: write the whole blocks of 64-byte aligned output rows with non-temporal stores.
template <ElementType kInput, ElementType kAffine, ElementType kOut>
void NormalizeRows(const LayerNormArgs &args, int64_t row_begin, int64_t row_end, bool stream_out) {
  const BlockTag d;
  constexpr int64_t width = kBlockWidth;
  constexpr int64_t vecs = kBlockVecs;
  const int64_t cols = args.cols;
  const int64_t row_bytes = cols * static_cast<int64_t>(ElementSize(kInput));
  const int64_t out_row_bytes = cols * static_cast<int64_t>(ElementSize(kOut));
  const float cols_as_float = static_cast<float>(cols);
  BlockVec x[vecs], acc[vecs], w[vecs], b[vecs];
  alignas(64) float lanes[kBlockLanes];
  for (int64_t v = 0; v < vecs; ++v) w[v] = b[v] = hn::Zero(d);  // read only when present

  // The lanes of the block at column n that lie past the row's end count for nothing.
  auto zero_past_end = [&](int64_t n) HWY_ATTR __attribute__((always_inline)) {
    if (n + kBlockLanes <= cols) return;
    for (int64_t v = 0; v < vecs; ++v) {
      const int64_t valid = cols - n - v * width;
      const size_t count = valid <= 0 ? 0 : static_cast<size_t>(valid < width ? valid : width);
      x[v] = hn::IfThenElseZero(hn::FirstN(d, count), x[v]);
    }
  };
  auto sum_lanes = [&](const BlockVec *sums) HWY_ATTR __attribute__((always_inline)) {
    for (int64_t v = 0; v < vecs; ++v) hn::StoreU(sums[v], d, lanes + v * width);
    return ln::SumLanes(lanes);
  };

  for (int64_t m = row_begin; m < row_end; ++m) {
    const char *row = static_cast<const char *>(args.input) + m * row_bytes;
    char *out_row = static_cast<char *>(args.out) + m * out_row_bytes;
    const float pivot_value = static_cast<float>(LoadElement(args.input, kInput, m * cols));
    const BlockVec pivot = hn::Set(d, pivot_value);

    for (int64_t v = 0; v < vecs; ++v) acc[v] = hn::Zero(d);
    for (int64_t n = 0; n < cols; n += kBlockLanes) {
      ReadBlock<kInput>(row, n, cols, x);
      for (int64_t v = 0; v < vecs; ++v) x[v] = hn::Sub(x[v], pivot);
      zero_past_end(n);
      for (int64_t v = 0; v < vecs; ++v) acc[v] = hn::Add(acc[v], x[v]);
    }
    // The mean as the float nearest it plus what that float misses (TwoSum), so that x - mean is
    // accurate to its own size for x near the mean.
    const float shift = sum_lanes(acc) / cols_as_float;  // mean - pivot
    const float mean = pivot_value + shift;
    const BlockVec mean_vec = hn::Set(d, mean), mean_rest_vec = hn::Set(d, ln::AddError(pivot_value, shift, mean));
    auto centred = [&](const char *row_data, int64_t n) HWY_ATTR __attribute__((always_inline)) {
      ReadBlock<kInput>(row_data, n, cols, x);
      for (int64_t v = 0; v < vecs; ++v) x[v] = hn::Sub(hn::Sub(x[v], mean_vec), mean_rest_vec);
    };

    // The next row is fetched while this one is worked on from cache: otherwise every row's
    // arithmetic waits behind its own first read from memory.
    const char *next_row = m + 1 < row_end ? row + row_bytes : nullptr;
    for (int64_t v = 0; v < vecs; ++v) acc[v] = hn::Zero(d);
    for (int64_t n = 0; n < cols; n += kBlockLanes) {
      if (next_row != nullptr) hwy::Prefetch(next_row + n * static_cast<int64_t>(ElementSize(kInput)));
      centred(row, n);
      zero_past_end(n);
      for (int64_t v = 0; v < vecs; ++v) acc[v] = hn::Add(acc[v], hn::Mul(x[v], x[v]));
    }
    const float variance = sum_lanes(acc) / cols_as_float;
    const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(variance) + args.eps));
    const BlockVec rstd_vec = hn::Set(d, rstd);

    // Each block is read before it is written, which keeps exact in-place use correct.
    const bool stream_row = stream_out && reinterpret_cast<uintptr_t>(out_row) % 64 == 0;
    for (int64_t n = 0; n < cols; n += kBlockLanes) {
      centred(row, n);
      if (args.weight != nullptr) ReadBlock<kAffine>(args.weight, n, cols, w);
      if (args.bias != nullptr) ReadBlock<kAffine>(args.bias, n, cols, b);
      for (int64_t v = 0; v < vecs; ++v) {
        BlockVec value = hn::Mul(x[v], rstd_vec);
        if (args.weight != nullptr) value = hn::Mul(value, w[v]);
        if (args.bias != nullptr) value = hn::Add(value, b[v]);
        x[v] = value;
      }
      if (stream_row && n + kBlockLanes <= cols) {
        StreamBlock<kOut>(x, out_row, n);
      } else {
        WriteBlock<kOut>(x, out_row, n, cols);
      }
    }
    if (args.mean != nullptr) StoreElement(args.mean, args.mean_type, m, mean);
    if (args.rstd != nullptr) StoreElement(args.rstd, args.rstd_type, m, rstd);
  }
  if (stream_out) hwy::FlushStream();  // make the non-temporal stores visible
}

using RowsFunction = void (*)(const LayerNormArgs &, int64_t, int64_t, bool);

template <ElementType kInput, ElementType kAffine>
RowsFunction ForOutput(ElementType out) {
  switch (out) {
    case ElementType::kFloat16: return &NormalizeRows<kInput, kAffine, ElementType::kFloat16>;
    case ElementType::kBFloat16: return &NormalizeRows<kInput, kAffine, ElementType::kBFloat16>;
    case ElementType::kFloat32: break;
  }
  return &NormalizeRows<kInput, kAffine, ElementType::kFloat32>;
}

template <ElementType kInput>
RowsFunction ForAffine(const LayerNormArgs &args) {
  const bool affine_is_float = (args.weight != nullptr && args.weight_type == ElementType::kFloat32) ||
                               (args.weight == nullptr && args.bias != nullptr && args.bias_type == ElementType::kFloat32);
  return affine_is_float ? ForOutput<kInput, ElementType::kFloat32>(args.out_type) : ForOutput<kInput, kInput>(args.out_type);
}

void NormalizeRowsForTarget(const LayerNormArgs &args, int64_t row_begin, int64_t row_end, bool stream_out) {
  RowsFunction run = nullptr;
  switch (args.input_type) {
    case ElementType::kFloat16: run = ForAffine<ElementType::kFloat16>(args); break;
    case ElementType::kBFloat16: run = ForAffine<ElementType::kBFloat16>(args); break;
    case ElementType::kFloat32: run = ForAffine<ElementType::kFloat32>(args); break;
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
#include "kernels/common/dispatch.h"

namespace aclhost {
namespace kernels {
namespace {

constexpr int64_t kRowsPerChunk = 16;

}  // namespace

void LayerNormForward(const LayerNormArgs &args) {
  if (args.cols == 0) {  // empty rows: mean 0, rstd NaN (upstream's choice)
    for (int64_t m = 0; m < args.rows; ++m) {
      if (args.mean != nullptr) StoreElement(args.mean, args.mean_type, m, 0.0f);
      if (args.rstd != nullptr) StoreElement(args.rstd, args.rstd_type, m, std::numeric_limits<float>::quiet_NaN());
    }
    return;
  }
  const auto run = ACLHOST_FUNCTION_FOR_ISA(args.config.isa, NormalizeRowsForTarget);
  const int64_t chunks = (args.rows + kRowsPerChunk - 1) / kRowsPerChunk;
  const bool stream_out = StreamsOutput(args.rows * args.cols * static_cast<int64_t>(ElementSize(args.out_type)));
  ParallelFor(chunks, ThreadsForWork(args.config, chunks, args.rows * args.cols), [&](int64_t chunk, int /*worker*/) {
    run(args, chunk * kRowsPerChunk, std::min(args.rows, (chunk + 1) * kRowsPerChunk), stream_out);
  });
}

}  // namespace kernels
}  // namespace aclhost
#endif  // HWY_ONCE
