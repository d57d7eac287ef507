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
#include <type_traits>

namespace aclhost {
namespace kernels {
namespace ln {

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

// Rows [row_begin, row_end); weight and bias, when given, are float32.
// stream_out: write the whole blocks of 64-byte aligned output rows with non-temporal stores.
// Every pass runs its whole blocks in one loop and the row's zero-padded last block after it, so
// that the loops hold their vectors in registers (a tail's memcpy would spill them every block).
template <ElementType kInput, ElementType kOut, bool kHasWeight, bool kHasBias>
void NormalizeRows(const LayerNormArgs &args, int64_t row_begin, int64_t row_end, bool stream_out) {
  const BlockTag d;
  constexpr int64_t width = kBlockWidth;
  constexpr int64_t vecs = kBlockVecs;
  const int64_t cols = args.cols;
  const int64_t whole_cols = cols / kBlockLanes * kBlockLanes;
  const int64_t row_bytes = cols * static_cast<int64_t>(ElementSize(kInput));
  const int64_t out_row_bytes = cols * static_cast<int64_t>(ElementSize(kOut));
  const float cols_as_float = static_cast<float>(cols);

  // The lanes of the last block that lie past the row's end count for nothing.
  auto zero_past_end = [&](BlockVec *x) HWY_ATTR __attribute__((always_inline)) {
    for (int64_t v = 0; v < vecs; ++v) {
      const int64_t valid = cols - whole_cols - v * width;
      const size_t count = valid <= 0 ? 0 : static_cast<size_t>(valid < width ? valid : width);
      x[v] = hn::IfThenElseZero(hn::FirstN(d, count), x[v]);
    }
  };


  for (int64_t m = row_begin; m < row_end; ++m) {
    const char *row = static_cast<const char *>(args.input) + m * row_bytes;
    char *out_row = static_cast<char *>(args.out) + m * out_row_bytes;
    const float pivot_value = static_cast<float>(LoadElement(args.input, kInput, m * cols));
    const BlockVec pivot = hn::Set(d, pivot_value);
    BlockVec x[vecs], acc[vecs];

    for (int64_t v = 0; v < vecs; ++v) acc[v] = hn::Zero(d);
    for (int64_t n = 0; n < whole_cols; n += kBlockLanes) {
      LoadBlock<kInput>(row, n, x);
      for (int64_t v = 0; v < vecs; ++v) acc[v] = hn::Add(acc[v], hn::Sub(x[v], pivot));
    }
    if (whole_cols < cols) {
      ReadBlock<kInput>(row, whole_cols, cols, x);
      for (int64_t v = 0; v < vecs; ++v) x[v] = hn::Sub(x[v], pivot);
      zero_past_end(x);
      for (int64_t v = 0; v < vecs; ++v) acc[v] = hn::Add(acc[v], x[v]);
    }
    // The mean as the float nearest it plus what that float misses (TwoSum), so that x - mean is
    // accurate to its own size for x near the mean.
    const float shift = SumBlockLanes(acc) / cols_as_float;  // mean - pivot
    const float mean = pivot_value + shift;
    const BlockVec mean_vec = hn::Set(d, mean), mean_rest_vec = hn::Set(d, ln::AddError(pivot_value, shift, mean));
    auto centre = [&](BlockVec *values) HWY_ATTR __attribute__((always_inline)) {
      for (int64_t v = 0; v < vecs; ++v) values[v] = hn::Sub(hn::Sub(values[v], mean_vec), mean_rest_vec);
    };

    // The next row is fetched while this one is worked on from cache: otherwise every row's
    // arithmetic waits behind its own first read from memory.
    const char *next_row = m + 1 < row_end ? row + row_bytes : row;
    for (int64_t v = 0; v < vecs; ++v) acc[v] = hn::Zero(d);
    for (int64_t n = 0; n < whole_cols; n += kBlockLanes) {
      hwy::Prefetch(next_row + n * static_cast<int64_t>(ElementSize(kInput)));
      LoadBlock<kInput>(row, n, x);
      centre(x);
      for (int64_t v = 0; v < vecs; ++v) acc[v] = hn::Add(acc[v], hn::Mul(x[v], x[v]));
    }
    if (whole_cols < cols) {
      ReadBlock<kInput>(row, whole_cols, cols, x);
      centre(x);
      zero_past_end(x);
      for (int64_t v = 0; v < vecs; ++v) acc[v] = hn::Add(acc[v], hn::Mul(x[v], x[v]));
    }
    const float variance = SumBlockLanes(acc) / cols_as_float;
    const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(variance) + args.eps));
    const BlockVec rstd_vec = hn::Set(d, rstd);

    // out = (x - mean) * rstd * weight + bias, for a block whose x is loaded and whose weight and
    // bias are in w and b.
    auto normalize = [&](BlockVec *values, const BlockVec *w, const BlockVec *b) HWY_ATTR __attribute__((always_inline)) {
      centre(values);
      for (int64_t v = 0; v < vecs; ++v) {
        BlockVec value = hn::Mul(values[v], rstd_vec);
        if (kHasWeight) value = hn::Mul(value, w[v]);
        if (kHasBias) value = hn::Add(value, b[v]);
        values[v] = value;
      }
    };
    // Each block is read before it is written, which keeps exact in-place use correct.
    BlockVec w[vecs], b[vecs];
    auto whole_blocks = [&](auto stream) HWY_ATTR __attribute__((always_inline)) {
      for (int64_t n = 0; n < whole_cols; n += kBlockLanes) {
        LoadBlock<kInput>(row, n, x);
        if (kHasWeight) LoadBlock<ElementType::kFloat32>(args.weight, n, w);
        if (kHasBias) LoadBlock<ElementType::kFloat32>(args.bias, n, b);
        normalize(x, w, b);
        if (decltype(stream)::value) {
          StreamBlock<kOut>(x, out_row, n);
        } else {
          WriteBlock<kOut>(x, out_row, n, cols);
        }
      }
    };
    if (stream_out && reinterpret_cast<uintptr_t>(out_row) % 64 == 0) {
      whole_blocks(std::true_type());
    } else {
      whole_blocks(std::false_type());
    }
    if (whole_cols < cols) {
      ReadBlock<kInput>(row, whole_cols, cols, x);
      if (kHasWeight) ReadBlock<ElementType::kFloat32>(args.weight, whole_cols, cols, w);
      if (kHasBias) ReadBlock<ElementType::kFloat32>(args.bias, whole_cols, cols, b);
      normalize(x, w, b);
      WriteBlock<kOut>(x, out_row, whole_cols, cols);
    }
    if (args.mean != nullptr) StoreElement(args.mean, args.mean_type, m, mean);
    if (args.rstd != nullptr) StoreElement(args.rstd, args.rstd_type, m, rstd);
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

constexpr int64_t kRowsPerChunk = 16;

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
  const int64_t chunks = (args.rows + kRowsPerChunk - 1) / kRowsPerChunk;
  const bool stream_out = StreamsOutput(args.rows * args.cols * static_cast<int64_t>(ElementSize(args.out_type)));
  ParallelFor(chunks, ThreadsForWork(args.config, chunks, args.rows * args.cols), [&](int64_t chunk, int /*worker*/) {
    run(args, chunk * kRowsPerChunk, std::min(args.rows, (chunk + 1) * kRowsPerChunk), stream_out);
  });
}

}  // namespace kernels
}  // namespace aclhost
#endif  // HWY_ONCE
