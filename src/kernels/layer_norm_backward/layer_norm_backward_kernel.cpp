// LayerNorm backward, one source for every SIMD target (Highway dynamic dispatch).
//
// The order of every floating-point operation is a function of (rows, cols) only:
// - A row is read in blocks of kBlockLanes = 16 columns; column n feeds logical lane n % 16,
//   whatever the vector width (a target with W lanes holds the 16 logical lanes in 16 / W
//   vectors). The last block is zero-padded. The 16 lane sums meet in a fixed pairwise tree.
// - Rows are cut into chunks of RowsPerChunk(rows); each chunk sums gradWeight/gradBias partials
//   over its rows in order, and the chunk partials meet in a fixed pairwise tree. Threads take
//   whole chunks, so their number changes who computes, never what.
// - Multiplies and adds are separate operations (no FMA on one target and not on another).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/layer_norm_backward/layer_norm_backward_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/cache_control.h"
#include "hwy/highway.h"

#include "kernels/common/simd_convert-inl.h"
#include "kernels/layer_norm_backward/layer_norm_backward_kernel.h"

#ifndef ACLNN_HOST_LAYER_NORM_BACKWARD_CHUNKS
#define ACLNN_HOST_LAYER_NORM_BACKWARD_CHUNKS
namespace aclhost {
namespace kernels {
namespace lnb {

constexpr int64_t kLanes = 16;  // the block width of simd_convert-inl.h
constexpr int64_t kMinRowsPerChunk = 64;
constexpr int64_t kMaxChunks = 256;

inline int64_t PaddedCols(int64_t cols) { return (cols + kLanes - 1) / kLanes * kLanes; }

inline int64_t RowsPerChunk(int64_t rows) {
  const int64_t spread = (rows + kMaxChunks - 1) / kMaxChunks;
  return spread > kMinRowsPerChunk ? spread : kMinRowsPerChunk;
}

inline int64_t ChunkCount(int64_t rows) { return (rows + RowsPerChunk(rows) - 1) / RowsPerChunk(rows); }

// The 16 lane sums as ((l0 + l8) + (l4 + l12)) + ...: a fixed pairwise tree.
inline float SumLanes(float *lanes) {
  for (int64_t half = kLanes / 2; half >= 1; half /= 2) {
    for (int64_t l = 0; l < half; ++l) lanes[l] += lanes[l + half];
  }
  return lanes[0];
}

// Rows staged at a time: about 64 KiB of each operand, so that a block stays in L2.
inline int64_t TileRows(int64_t rows, int64_t cols, size_t element_size) {
  int64_t by_size = (int64_t{64} << 10) / (cols * static_cast<int64_t>(element_size));
  if (by_size >= 16) by_size = by_size / 16 * 16;  // whole cache lines of a transposed view's columns
  const int64_t limit = RowsPerChunk(rows);
  return by_size < 1 ? 1 : by_size > limit ? limit : by_size;
}

inline size_t TileBytes(int64_t rows, int64_t cols, size_t element_size) {
  const size_t bytes = static_cast<size_t>(TileRows(rows, cols, element_size) * cols) * element_size;
  return (bytes + 63) / 64 * 64;
}

// Per chunk: gradWeight partials, then gradBias partials, PaddedCols(cols) floats each.
inline float *ChunkPartials(void *scratch, int64_t cols, int64_t chunk) {
  return static_cast<float *>(scratch) + chunk * 2 * PaddedCols(cols);
}

}  // namespace lnb
}  // namespace kernels
}  // namespace aclhost
#endif

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {

static_assert(kBlockLanes == lnb::kLanes, "one block width");

// Rows [row_begin, row_end) of one chunk: gradInput of each row, and the chunk's column partial
// sums into partials (nullptr when neither gradWeight nor gradBias is wanted).
// stream_grad_input: write gradInput rows that are written in place with non-temporal stores.
template <ElementType kData, bool kHasWeight, bool kColumnSums>
void RunChunk(const LayerNormBackwardArgs &args, int64_t row_begin, int64_t row_end, float *partials, char *tiles,
              bool stream_grad_input) {
  const BlockTag d;
  constexpr int64_t width = kBlockWidth;
  constexpr int64_t vecs = kBlockVecs;
  const int64_t cols = args.cols;
  const int64_t padded_cols = lnb::PaddedCols(cols);
  const int64_t row_bytes = cols * static_cast<int64_t>(ElementSize(kData));
  const float cols_as_float = static_cast<float>(cols);
  float *weight_partials = partials;
  float *bias_partials = kColumnSums ? partials + padded_cols : nullptr;
  if (kColumnSums) std::memset(partials, 0, static_cast<size_t>(2 * padded_cols) * sizeof(float));

  BlockVec go[vecs], x[vecs], w[vecs], acc_g[vecs], acc_gx[vecs], out[vecs];
  // One row: go_row, x_row and grad_input_row point at its data, wherever it is staged. The rows
  // at next_go and next_x are fetched during the second pass: otherwise each row's arithmetic
  // waits behind its own first read from memory.
  auto run_row = [&](int64_t m, const char *go_row, const char *x_row, char *grad_input_row, bool stream_row,
                     const char *next_go, const char *next_x) HWY_ATTR __attribute__((always_inline)) {
    const auto mean = hn::Set(d, static_cast<float>(LoadElement(args.mean, args.mean_type, m)));
    const auto rstd = hn::Set(d, static_cast<float>(LoadElement(args.rstd, args.rstd_type, m)));
    for (int64_t v = 0; v < vecs; ++v) acc_g[v] = acc_gx[v] = hn::Zero(d);

    // Pass 1: the two row sums, and this row's share of the column sums. Whole blocks straight
    // from memory, then the zero-padded last block.
    auto accumulate = [&](int64_t n) HWY_ATTR __attribute__((always_inline)) {
      for (int64_t v = 0; v < vecs; ++v) {
        const auto xhat = hn::Mul(hn::Sub(x[v], mean), rstd);
        const auto g = kHasWeight ? hn::Mul(go[v], w[v]) : go[v];
        acc_g[v] = hn::Add(acc_g[v], g);
        acc_gx[v] = hn::Add(acc_gx[v], hn::Mul(g, xhat));
        if (kColumnSums) {
          float *pw = weight_partials + n + v * width;
          float *pb = bias_partials + n + v * width;
          hn::StoreU(hn::Add(hn::LoadU(d, pw), hn::Mul(go[v], xhat)), d, pw);
          hn::StoreU(hn::Add(hn::LoadU(d, pb), go[v]), d, pb);
        }
      }
    };
    int64_t n = 0;
    for (; n + kBlockLanes <= cols; n += kBlockLanes) {
      LoadBlock<kData>(go_row, n, go);
      LoadBlock<kData>(x_row, n, x);
      if (kHasWeight) LoadBlock<ElementType::kFloat32>(args.weight, n, w);
      accumulate(n);
    }
    if (n < cols) {
      ReadBlock<kData>(go_row, n, cols, go);
      ReadBlock<kData>(x_row, n, cols, x);
      if (kHasWeight) ReadBlock<ElementType::kFloat32>(args.weight, n, cols, w);
      accumulate(n);
    }
    if (grad_input_row == nullptr) return;

    alignas(64) float lanes_g[kBlockLanes], lanes_gx[kBlockLanes];
    for (int64_t v = 0; v < vecs; ++v) {
      hn::StoreU(acc_g[v], d, lanes_g + v * width);
      hn::StoreU(acc_gx[v], d, lanes_gx + v * width);
    }
    const auto mean_g = hn::Set(d, lnb::SumLanes(lanes_g) / cols_as_float);
    const auto mean_gx = hn::Set(d, lnb::SumLanes(lanes_gx) / cols_as_float);

    // Pass 2: gradInput while the row is still in cache. Each block is read before it is written,
    // which keeps exact in-place use correct.
    auto compute_grad_input = [&]() HWY_ATTR __attribute__((always_inline)) {
      for (int64_t v = 0; v < vecs; ++v) {
        const auto xhat = hn::Mul(hn::Sub(x[v], mean), rstd);
        const auto g = kHasWeight ? hn::Mul(go[v], w[v]) : go[v];
        out[v] = hn::Mul(hn::Sub(g, hn::Add(mean_g, hn::Mul(xhat, mean_gx))), rstd);
      }
    };
    for (n = 0; n + kBlockLanes <= cols; n += kBlockLanes) {
      hwy::Prefetch(next_go + n * static_cast<int64_t>(ElementSize(kData)));
      hwy::Prefetch(next_x + n * static_cast<int64_t>(ElementSize(kData)));
      LoadBlock<kData>(go_row, n, go);
      LoadBlock<kData>(x_row, n, x);
      if (kHasWeight) LoadBlock<ElementType::kFloat32>(args.weight, n, w);
      compute_grad_input();
      if (stream_row) {
        StreamBlock<kData>(out, grad_input_row, n);
      } else {
        WriteBlock<kData>(out, grad_input_row, n, cols);
      }
    }
    if (n < cols) {
      ReadBlock<kData>(go_row, n, cols, go);
      ReadBlock<kData>(x_row, n, cols, x);
      if (kHasWeight) ReadBlock<ElementType::kFloat32>(args.weight, n, cols, w);
      compute_grad_input();
      WriteBlock<kData>(out, grad_input_row, n, cols);
    }
  };

  if (tiles == nullptr) {
    for (int64_t m = row_begin; m < row_end; ++m) {
      char *grad_input_row = args.grad_input != nullptr ? static_cast<char *>(args.grad_input) + m * row_bytes : nullptr;
      const bool stream_row = stream_grad_input && reinterpret_cast<uintptr_t>(grad_input_row) % 64 == 0;
      const int64_t next = m + 1 < row_end ? m + 1 : m;
      const char *go_rows = static_cast<const char *>(args.grad_out), *x_rows = static_cast<const char *>(args.input);
      run_row(m, go_rows + m * row_bytes, x_rows + m * row_bytes, grad_input_row, stream_row, go_rows + next * row_bytes,
              x_rows + next * row_bytes);
    }
  } else {
    // Blocks of rows staged into this thread's tiles while they stay in cache; the rows still
    // run in order, so the sums are the same as without staging.
    const int64_t tile_rows = lnb::TileRows(args.rows, cols, ElementSize(kData));
    const size_t tile_bytes = lnb::TileBytes(args.rows, cols, ElementSize(kData));
    char *go_tile = tiles, *x_tile = tiles + tile_bytes, *grad_input_tile = tiles + 2 * tile_bytes;
    for (int64_t begin = row_begin; begin < row_end; begin += tile_rows) {
      const int64_t end = begin + tile_rows < row_end ? begin + tile_rows : row_end;
      const char *go_rows = go_tile;
      const char *x_rows = x_tile;
      char *grad_input_rows = args.grad_input_rows.move != nullptr ? grad_input_tile : nullptr;
      if (args.grad_out_rows.move != nullptr) {
        args.grad_out_rows.move(args.grad_out_rows.context, begin, end, go_tile);
      } else {
        go_rows = static_cast<const char *>(args.grad_out) + begin * row_bytes;
      }
      if (args.input_rows.move != nullptr) {
        args.input_rows.move(args.input_rows.context, begin, end, x_tile);
      } else {
        x_rows = static_cast<const char *>(args.input) + begin * row_bytes;
      }
      if (args.grad_input != nullptr) grad_input_rows = static_cast<char *>(args.grad_input) + begin * row_bytes;
      for (int64_t m = begin; m < end; ++m) {
        const char *go_row = go_rows + (m - begin) * row_bytes, *x_row = x_rows + (m - begin) * row_bytes;
        run_row(m, go_row, x_row, grad_input_rows ? grad_input_rows + (m - begin) * row_bytes : nullptr, false, go_row, x_row);
      }
      if (args.grad_input_rows.move != nullptr) args.grad_input_rows.move(args.grad_input_rows.context, begin, end, grad_input_tile);
    }
  }
  if (stream_grad_input) hwy::FlushStream();  // make the non-temporal stores visible
}

using ChunkFunction = void (*)(const LayerNormBackwardArgs &, int64_t, int64_t, float *, char *, bool);

template <ElementType kData, bool kColumnSums>
ChunkFunction ChunkFunctionForWeight(const LayerNormBackwardArgs &args) {
  return args.weight != nullptr ? &RunChunk<kData, true, kColumnSums> : &RunChunk<kData, false, kColumnSums>;
}

template <bool kColumnSums>
ChunkFunction ChunkFunctionFor(const LayerNormBackwardArgs &args) {
  switch (args.data_type) {
    case ElementType::kFloat16: return ChunkFunctionForWeight<ElementType::kFloat16, kColumnSums>(args);
    case ElementType::kBFloat16: return ChunkFunctionForWeight<ElementType::kBFloat16, kColumnSums>(args);
    case ElementType::kFloat32: break;
  }
  return ChunkFunctionForWeight<ElementType::kFloat32, kColumnSums>(args);
}

void RunChunkForTarget(const LayerNormBackwardArgs &args, int64_t row_begin, int64_t row_end, float *partials, char *tiles,
                       bool stream_grad_input) {
  const ChunkFunction run = partials != nullptr ? ChunkFunctionFor<true>(args) : ChunkFunctionFor<false>(args);
  run(args, row_begin, row_end, partials, tiles, stream_grad_input);
}

// Chunk first's partials += chunk second's, over the columns of one block, weight and bias sums.
void AddChunkPartials(void *scratch, int64_t cols, int64_t first, int64_t second, int64_t col_begin) {
  const BlockTag d;
  constexpr int64_t width = kBlockWidth;
  float *into = lnb::ChunkPartials(scratch, cols, first);
  const float *from = lnb::ChunkPartials(scratch, cols, second);
  const int64_t padded_cols = lnb::PaddedCols(cols);
  for (const int64_t base : {col_begin, padded_cols + col_begin}) {
    for (int64_t n = base; n < base + kBlockLanes; n += width) {
      hn::StoreU(hn::Add(hn::LoadU(d, into + n), hn::LoadU(d, from + n)), d, into + n);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclhost
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "common/parallel_for.h"
#include "kernels/common/convert.h"
#include "kernels/common/dispatch.h"

namespace aclhost {
namespace kernels {
namespace {

using RunChunkFunction = void (*)(const LayerNormBackwardArgs &, int64_t, int64_t, float *, char *, bool);
using AddPartialsFunction = void (*)(void *, int64_t, int64_t, int64_t, int64_t);

struct TargetFunctions {
  RunChunkFunction run_chunk;
  AddPartialsFunction add_partials;
};

TargetFunctions FunctionsFor(Isa isa) {
  return {ACLHOST_FUNCTION_FOR_ISA(isa, RunChunkForTarget), ACLHOST_FUNCTION_FOR_ISA(isa, AddChunkPartials)};
}

size_t PartialsBytes(int64_t rows, int64_t cols, bool column_sums) {
  return column_sums ? static_cast<size_t>(lnb::ChunkCount(rows)) * 2 * static_cast<size_t>(lnb::PaddedCols(cols)) * sizeof(float) : 0;
}

size_t TilesBytes(int64_t rows, int64_t cols, ElementType data_type, bool staged_rows, int threads) {
  return staged_rows ? static_cast<size_t>(threads) * 3 * lnb::TileBytes(rows, cols, ElementSize(data_type)) : 0;
}

}  // namespace

size_t LayerNormBackwardScratchBytes(int64_t rows, int64_t cols, ElementType data_type, ElementType weight_type,
                                     bool column_sums, bool staged_rows, int threads) {
  const size_t widened_weight = weight_type == ElementType::kFloat32 ? 0 : WidenedBytes(cols);
  return PartialsBytes(rows, cols, column_sums) + TilesBytes(rows, cols, data_type, staged_rows, threads) + widened_weight;
}

void LayerNormBackward(const LayerNormBackwardArgs &given) {
  const bool want_column_sums = given.grad_weight != nullptr || given.grad_bias != nullptr;
  const bool staged_rows = given.grad_out_rows.move != nullptr || given.input_rows.move != nullptr ||
                           given.grad_input_rows.move != nullptr;
  // Scratch: the chunks' column partials, the threads' row tiles, the widened weight.
  char *tiles = staged_rows ? static_cast<char *>(given.scratch) + PartialsBytes(given.rows, given.cols, want_column_sums) : nullptr;
  LayerNormBackwardArgs args = given;
  if (args.weight != nullptr && args.weight_type != ElementType::kFloat32) {
    // The rows read a 16-bit weight as float32, widened here once.
    float *widened = reinterpret_cast<float *>(static_cast<char *>(args.scratch) + PartialsBytes(args.rows, args.cols, want_column_sums) +
                                               TilesBytes(args.rows, args.cols, args.data_type, staged_rows, args.config.threads));
    WidenToFloats(args.weight, args.weight_type, args.cols, widened, args.config.isa);
    args.weight = widened;
    args.weight_type = ElementType::kFloat32;
  }
  const bool stream_grad_input = args.grad_input != nullptr && args.grad_input_rows.move == nullptr &&
                                 StreamsOutput(args.rows * args.cols * static_cast<int64_t>(ElementSize(args.data_type)));
  const TargetFunctions target = FunctionsFor(args.config.isa);
  const int64_t rows_per_chunk = lnb::RowsPerChunk(args.rows);
  const int64_t chunks = lnb::ChunkCount(args.rows);

  const size_t thread_tiles = 3 * lnb::TileBytes(args.rows, args.cols, ElementSize(args.data_type));
  ParallelFor(chunks, ThreadsForWork(args.config, chunks, args.rows * args.cols), [&](int64_t chunk, int worker) {
    const int64_t begin = chunk * rows_per_chunk;
    const int64_t end = begin + rows_per_chunk < args.rows ? begin + rows_per_chunk : args.rows;
    char *own_tiles = staged_rows ? tiles + static_cast<size_t>(worker) * thread_tiles : nullptr;
    target.run_chunk(args, begin, end, want_column_sums ? lnb::ChunkPartials(args.scratch, args.cols, chunk) : nullptr,
                     own_tiles, stream_grad_input);
  });
  if (!want_column_sums) return;

  // Chunk partials meet pairwise (stride 1, 2, 4, ...) in chunk 0, column blocks shared among
  // threads; then each sum is rounded once into its output.
  const int64_t padded_cols = lnb::PaddedCols(args.cols);
  const int64_t blocks = padded_cols / lnb::kLanes;
  ParallelFor(chunks > 1 ? blocks : 0, ThreadsForWork(args.config, blocks, args.rows * args.cols), [&](int64_t block, int) {
    for (int64_t stride = 1; stride < chunks; stride *= 2) {
      for (int64_t first = 0; first + stride < chunks; first += 2 * stride) {
        target.add_partials(args.scratch, args.cols, first, first + stride, block * lnb::kLanes);
      }
    }
  });
  const float *sums = lnb::ChunkPartials(args.scratch, args.cols, 0);
  if (args.grad_weight != nullptr) ConvertFloats(sums, args.cols, args.grad_weight_type, args.grad_weight, args.config.isa);
  if (args.grad_bias != nullptr) ConvertFloats(sums + padded_cols, args.cols, args.grad_bias_type, args.grad_bias, args.config.isa);
}

}  // namespace kernels
}  // namespace aclhost
#endif  // HWY_ONCE
