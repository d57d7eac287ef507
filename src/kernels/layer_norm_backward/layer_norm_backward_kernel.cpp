// LayerNorm backward, one source for every SIMD target (Highway dynamic dispatch).
//
// The order of every floating-point operation is a function of (rows, cols) only:
// - A row is read in blocks of kBlockLanes = 16 columns; column n feeds logical lane n % 16,
//   whatever the vector width (a target with W lanes holds the 16 logical lanes in 16 / W
//   vectors). The last block is zero-padded. A row's lane sums are taken per segment of
//   kSegmentCols columns and the segments folded in order; the 16 lane sums meet in a fixed
//   pairwise tree. Threads share the segments of long rows when there are too few chunks.
// - Rows are cut into chunks of RowsPerChunk(rows); each chunk sums gradWeight/gradBias partials
//   over its rows in order, and the chunk partials meet in a fixed pairwise tree. Threads take
//   whole chunks, so their number changes who computes, never what.
// - Three multiply-adds are fused (FusedMulAdd: the CPU's FMA, emulated exactly where a target
//   has none); every other multiply and add is a separate operation, on every target alike.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/layer_norm_backward/layer_norm_backward_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/cache_control.h"
#include "hwy/highway.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "kernels/common/cache_fetch.h"
#include "kernels/common/fused_mul_add-inl.h"
#include "kernels/common/rows_ahead.h"
#include "kernels/common/simd_convert-inl.h"
#include "kernels/common/transpose-inl.h"
#include "kernels/common/transpose.h"
#include "kernels/layer_norm_backward/layer_norm_backward_kernel.h"

#ifndef ACLNN_HOST_LAYER_NORM_BACKWARD_CHUNKS
#define ACLNN_HOST_LAYER_NORM_BACKWARD_CHUNKS
#include <cstring>

namespace aclhost {
namespace kernels {
namespace lnb {

constexpr int64_t kLanes = 16;  // the block width of simd_convert-inl.h
constexpr int64_t kMinRowsPerChunk = 64;
constexpr int64_t kMaxChunks = 256;

inline int64_t PaddedCols(int64_t cols) { return (cols + kLanes - 1) / kLanes * kLanes; }

// Rows whose group holds at most this many (padded) columns keep each row's g and input - mean
// from pass 1 for pass 2 (RowPasses::Rows; a stack buffer of 16 KiB at most; FLOAT rows input -
// mean alone, kKeepsCenteredOnly), which then neither reads gradOut and input again nor converts
// or subtracts them: 3 instead of 5 operations a vector (4 for FLOAT rows, whose g is formed
// again), and no conversions. Same bits. Intel Xeon (Emerald Rapids), two threads, alternating
// builds call by call in a slow hour: (8192, 768) FLOAT16 3.75 -> 3.32 ms medians (17 of 20 pairs), BF16 3.66 ->
// 3.10 (18 of 20), FLOAT even (5 of 12); (32768, 1024) FLOAT16 11 of 12 and BF16 14 of 20 faster,
// (262144, 128) FLOAT16 14 of 20, BF16 10 of 12; (64, 256) FLOAT 12 of 12 and 14 of 20. On the AMD
// VM (first session of 2026-12-03) keeping them had measured no faster; on Zen 5 and Zen 4 most
// rows taken alone measured faster unkept (KeepsRowAlone).
constexpr int64_t kKeptFloats = 2048;

// Whether a group of group_rows rows of cols columns keeps its rows for pass 2 (kKeptFloats).
inline bool GroupKeepsRows(int64_t group_rows, int64_t cols) { return group_rows * PaddedCols(cols) <= kKeptFloats; }

inline int64_t RowsPerChunk(int64_t rows) {
  const int64_t spread = (rows + kMaxChunks - 1) / kMaxChunks;
  return spread > kMinRowsPerChunk ? spread : kMinRowsPerChunk;
}

inline int64_t ChunkCount(int64_t rows) { return (rows + RowsPerChunk(rows) - 1) / RowsPerChunk(rows); }

// Rows staged at a time: about kTileBytes of each operand, so that the three tiles (768 KiB) stay
// in a 1 MiB L2, in a multiple of `multiple` rows (at least one multiple, whatever the size), at most
// a chunk. Larger tiles read longer runs of each column of a transposed view: (8192, 768) FLOAT
// transposed, 16 -> 64 rows a tile, 10.9 -> 7.4 ms (39 of 40 calls faster, alternating); NCHW
// memory (32, 3136, 128), 128 -> 392 rows, 11.8 -> 10.9 ms (28 of 30). 128 KiB measured even
// for the first (32 rows).
inline int64_t TileRows(int64_t rows, int64_t cols, size_t element_size, int64_t multiple) {
  const int64_t by_size = kTileBytes / (cols * static_cast<int64_t>(element_size));
  const int64_t tile = by_size < multiple ? multiple : by_size / multiple * multiple;
  const int64_t limit = RowsPerChunk(rows);
  return tile > limit ? limit : tile;
}

// A CPU that sees a load and an earlier store a multiple of this apart takes the load for one that
// depends on the store and holds it back (4K aliasing): the scratch's stores are kept clear of it.
constexpr int64_t kPageBytes = 4096;

// Whole pages, so that every tile of every thread starts at the same place within a page (pass 2
// then stores each gradInput block exactly a page multiple behind the loads that follow it).
inline size_t TileBytes(int64_t rows, int64_t cols, size_t element_size, int64_t multiple) {
  const size_t bytes = static_cast<size_t>(TileRows(rows, cols, element_size, multiple) * cols) * element_size;
  return (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
}

// A row's sums are taken segment by segment (each from zero, 16 lanes), the segments' lane sums
// folded in order: the same for a row one thread runs and for a long row whose segments threads
// share (rows of few chunks, so that the chunks alone would leave threads idle).
constexpr int64_t kSegmentCols = 16384;  // a multiple of kLanes

inline int64_t SegmentCount(int64_t cols) { return (cols + kSegmentCols - 1) / kSegmentCols; }
inline int64_t SegmentEnd(int64_t cols, int64_t segment_begin) {
  return segment_begin + kSegmentCols < cols ? segment_begin + kSegmentCols : cols;
}

// Threads that take whole chunks, and threads that share a row's segments (RunSharedRows).
inline int ChunkThreads(const KernelConfig &config, int64_t rows, int64_t cols) {
  return ThreadsForWork(config, ChunkCount(rows), rows * cols);
}
inline int SharedRowThreads(const KernelConfig &config, int64_t cols) { return ThreadsForWork(config, SegmentCount(cols), cols); }

// Rows of four segments and more in fewer than 8 chunks may have their segments shared among
// threads; they are where sharing puts more threads to work than whole chunks would. With as many
// threads either way (every thread has a chunk), whole chunks run faster: sharing
// costs a meeting a row, which OpenMP's default waits made dear in the benchmark's process (shared
// (256, 65536) FLOAT 9.09 ms, 5.13 with OMP_WAIT_POLICY=active; libgomp documents a short spin
// before sleeping where a process holds more OpenMP threads than CPUs, which may be why: not
// measured). Two threads, the benchmark's calls (one build a process, default waits),
// medians of three runs each: FLOAT (128, 65536) whole 2.29-2.35 ms against shared 4.23-4.36,
// (256, 65536) 4.42-4.52 against 9.1-11.1, BF16 (256, 65536) 2.62-2.67 against 6.6-7.8; three
// chunks even ((192, 65536) FLOAT 6.66-7.09 against 6.55-6.94).
inline bool MayShareRows(int64_t rows, int64_t cols) { return cols >= 4 * kSegmentCols && ChunkCount(rows) < 8; }
inline bool SharesRows(int64_t rows, int64_t cols, const KernelConfig &config) {
  return MayShareRows(rows, cols) && SharedRowThreads(config, cols) > ChunkThreads(config, rows, cols);
}

// What one call of the per-target code does: a chunk of whole rows, or one segment of a shared row.
struct Task {
  enum class Kind { kChunk, kSegmentSums, kSegmentGradInput, kColumns };
  Kind kind = Kind::kChunk;
  int64_t row_begin = 0, row_end = 0;  // a segment task: row_begin alone; kColumns: whole chunks
  int64_t col_begin = 0;               // a segment task's first column
  float *partials = nullptr;           // the (first) chunk's column partials; nullptr when not wanted
  char *thread_scratch = nullptr;      // kChunk: this thread's row tiles when rows are staged; kColumns: its ColumnScratch
  float *lanes = nullptr;              // kSegmentSums: 2 x 16 floats out
  float mean_g = 0, mean_gx = 0;       // kSegmentGradInput: the row's means of g and g * xhat
  bool stream = false;                 // gradInput written with non-temporal stores
  // kColumns, where FetchesNextColumnBlock: pass 2 fetches the next run's operands, the task's own
  // next run or, after its last, the first run of these rows (the block its thread likely takes
  // next; none when empty).
  bool fetch_next_run = false;
  int64_t next_row_begin = 0, next_row_end = 0;
};

// Where a run of rows of the three row operands lies: each one's first row and the bytes from a
// row to the next (a strided view's rows, a staged tile's, dense memory's).
struct RowBlock {
  const char *grad_out = nullptr;
  const char *input = nullptr;
  char *grad_input = nullptr;  // nullptr when gradInput is not wanted
  int64_t grad_out_step = 0, input_step = 0, grad_input_step = 0;

  // The same operands `rows` rows further on.
  RowBlock Skip(int64_t rows) const {
    RowBlock later = *this;
    later.grad_out += rows * grad_out_step;
    later.input += rows * input_step;
    if (grad_input != nullptr) later.grad_input += rows * grad_input_step;
    return later;
  }

  // The first row alone: every row of a group that takes rows from it gets that row.
  RowBlock FirstRow() const {
    RowBlock first = *this;
    first.grad_out_step = first.input_step = first.grad_input_step = 0;
    return first;
  }
};

// The operands' rows from row `first` on, where the args point at them (an operand staged by rows
// has no pointer there: it stays nullptr), a step apart up to DirectRowsEnd(args, first, ...).
inline RowBlock DirectRows(const LayerNormBackwardArgs &args, int64_t first) {
  auto row = [&](const void *data, const RowSpacing &spacing) {
    return data != nullptr ? static_cast<const char *>(data) + RowOffsetBytes(spacing, first, args.cols, args.data_type) : nullptr;
  };
  RowBlock rows;
  rows.grad_out_step = RowStepBytes(args.grad_out_spacing, args.cols, args.data_type);
  rows.input_step = RowStepBytes(args.input_spacing, args.cols, args.data_type);
  rows.grad_input_step = RowStepBytes(args.grad_input_spacing, args.cols, args.data_type);
  rows.grad_out = row(args.grad_out, args.grad_out_spacing);
  rows.input = row(args.input, args.input_spacing);
  rows.grad_input = const_cast<char *>(row(args.grad_input, args.grad_input_spacing));
  return rows;
}

// The first row after `first`, at most `end`, where an operand used in place starts a new batch:
// DirectRows(args, first) holds the rows before it.
inline int64_t DirectRowsEnd(const LayerNormBackwardArgs &args, int64_t first, int64_t end) {
  if (args.grad_out != nullptr) end = BatchEnd(args.grad_out_spacing, first, end);
  if (args.input != nullptr) end = BatchEnd(args.input_spacing, first, end);
  if (args.grad_input != nullptr) end = BatchEnd(args.grad_input_spacing, first, end);
  return end;
}

// The runs of gradOut's and input's rows in memory that RowsAhead fetches ahead of RunRows.
struct DirectRuns {
  const LayerNormBackwardArgs *args;
  RowRun operator()(int64_t first, int64_t end) const {
    const RowBlock rows = DirectRows(*args, first);
    RowRun run;
    run.rows[0] = rows.grad_out;
    run.rows[1] = rows.input;
    run.steps[0] = rows.grad_out_step;
    run.steps[1] = rows.input_step;
    run.end = DirectRowsEnd(*args, first, end);
    return run;
  }
};

// Pass 2 fetches the next rows into L2 rather than L1 from rows of 512 FLOAT or 1536 16-bit columns
// on; shorter rows keep L1. Two threads, the builds before and after alternating call by call
// (bench/ab_builds), medians: (8192, 768) FLOAT 2.66 -> 2.21 ms, (16384, 5120) 36.1 -> 30.2, (4096,
// 4096) BF16 3.75 -> 3.31, (16384, 5120) FLOAT16 21.9 -> 17.7. Where the row lengths come from, and
// what shorter rows lose by L2 ((262144, 128) FLOAT about 6 %): docs/PERFORMANCE.md, fourth session
// of 2026-12-03 (Zen 4). Zen 5 (nineteenth session; a row of up to 2,048 columns taken alone was
// kept for pass 2 then) fetched into L1 up to 2,048 columns, alternating builds call by call
// against L2: FLOAT (8192, 768) 1.68 -> 1.63 ms (14 of 16 pairs; the other order 12 of 16), one
// thread 2.72 -> 2.32 (16 of 16), (32768, 1024) 7.28 -> 5.34 (10 of 10; the other order 7 of 10),
// (5461, 1536) 2.81 -> 2.47 (10 of 10), (4096, 2048) 6 of 10; FLOAT16 (4096, 2048) 1.49 -> 1.34 (9
// of 10). Longer rows measured even or a little faster in L1 ((4096, 4096) FLOAT 6 and BF16 6 of
// 10, FLOAT16 9 of 10, 4 %) and kept L2 then. That rule against L1 for FLOAT rows only below 1,024
// columns: (32768, 1024) FLOAT 9.06 -> 8.46 ms (10 of 10), (4096, 2048) FLOAT16 1.63 -> 1.51 (9 of
// 10), (5461, 1536) BF16 8 of 10. Measured again with 16 pairs (twentieth session; rows that long
// were never kept), longer rows gained by L1 too: (4096, 4096) FLOAT 4.87 -> 4.65 ms (16 of
// 16; the other order 15 of 16), FLOAT16 2.61 -> 2.49 (13 of 16), BF16 11 of 12 and 11 of 16 in the
// two orders; (16384, 5120) FLOAT16 11.69 -> 11.10 (16 of 16), BF16 14 of 16, FLOAT 12 of 16;
// (1024, 32768) BF16 5.44 -> 5.25 (15 of 16), FLOAT16 11 and FLOAT 12 of 16. So Zen 5 fetches into
// L1 whatever the row's length.
inline bool FetchesNextRowsIntoL2(int64_t cols, size_t element_size, CacheVendor vendor) {
  if (FetchesNextRowsIntoL1Only(vendor)) return false;
  return cols >= (element_size == sizeof(float) ? 512 : 1536);
}

// Whether a call's three row operands (gradOut, input, gradInput) are in cache together
// (RowsInCache): such calls fetch no next rows (FetchesNextRows) and group their short rows
// (GroupRows).
inline bool CallInCache(int64_t rows, int64_t cols, size_t element_size) {
  return RowsInCache(3 * rows * cols * static_cast<int64_t>(element_size));
}

// Whether the passes fetch the rows that follow while they work: not where the call's three row
// operands are in cache (RowsInCache), where the fetches only take load slots (pass 2 of a kept
// group issued two a block beside its three loads).
// Zen 4, one thread, in cache, bench/ab_builds both orders, pairs faster without them: (64, 256)
// FLOAT 95 and 98 % of 20,000 (medians 4.7 -> 4.5 us), (128, 128) 77 and 78 %, (256, 64) 78 and
// 88 %, (16, 4096) BF16 95 and 92 %, (64, 1024) BF16 79 and 97 %; even: (16, 4096) FLOAT 94 and 51 %,
// (64, 256) BF16 53 and 39 %, (32, 2048) FLOAT16 54 and 40 %, (1, 1024) FLOAT. Calls from L3 or
// memory need them: without them (kept rows only) (8192, 256) BF16, 4 MiB an operand, 718 -> 976 us
// (3 and 2 % of 500 pairs), (262144, 128) BF16 7 and 1 of 30. Other CPUs unmeasured.
inline bool FetchesNextRows(int64_t rows, int64_t cols, size_t element_size) { return !CallInCache(rows, cols, element_size); }

// Whether pass 2 over a group of 4 FLOAT rows (RowPasses::kHalfGroups) takes the rows in turn,
// each row's columns all before the next row's, rather than a line of each row at a time: rows of
// up to 20 KiB, whose gradInput then streams out one row after another. Zen 5, two threads, alternating builds call by
// call, against a line of each row at a time, medians: (4096, 4096) 3.06 -> 2.83 ms next to fast
// triads (55 of 56 pairs in seven runs), (16384, 5120) 14.9 -> 13.9 (16 of 16); next to slow
// triads even ((4096, 4096) 170 of 314 pairs, (16384, 5120) 45 of 98). Longer rows lost: (2048,
// 16384) 5.38 -> 5.60 ms next to a fast triad (0 of 8 pairs), 1 to 2 of 8 next to slow ones;
// (4096, 8192) 11 of 84 pairs faster and (2048, 12288) 27 of 84, all next to slow triads. Pass 1
// taking them in turn as well (it would load and store the column partials once a row rather than
// once a group) measured slower: (4096, 4096) 2.75 -> 3.55 ms next to a fast triad, 1 to 4 of 8
// pairs faster in each of fourteen runs.
inline bool TakesGroupRowsInTurn(int64_t row_bytes) { return row_bytes <= (int64_t{20} << 10); }

// Whether pass 1 over a group of 2 FLOAT rows (RowPasses::kTiledPass1) takes 4 blocks (256 bytes)
// of a row before the next row's rather than a block of each row at a time: on Zen 5, where
// memory serves fewer, longer runs of a stream faster (layer_norm_backward_bench's floors of
// (1024, 32768) FLOAT in groups of 2, next to 68-83 GB/s triads: two_pass_rows_by_lines 0.92-0.94
// x triad, two_pass_rows_by_tiles 0.95-0.97, two_pass_rows 1.04-1.07). Twenty-sixth session, two
// threads, alternating builds call by call (bench/ab_builds, an environment switch in one build),
// next to slow triads, medians: (1024, 32768) 8.83 -> 8.64 ms (33 of 36 pairs), 6.11 -> 5.86 (28
// of 30), 7.42 -> 7.25 (13 of 18), 8.59 -> 8.48 (20 of 24); (512, 32768) 4.67 -> 4.56 (29 of 36);
// (1536, 24576) 9.75 -> 9.53 (25 of 36); (1024, 20480) 5.52 -> 5.32 (24 of 36). 8 blocks 17 of 24
// and 2 blocks 11 of 24 on (1024, 32768); groups of 4 FLOAT rows and of 2 16-bit ones measured even
// to slower with tiles of 2, 4 or 8 blocks (docs/PERFORMANCE.md). Other CPUs unmeasured.
inline bool TilesGroupPass1(CacheVendor vendor) { return vendor == CacheVendor::kAmdZen5; }

// Whether a row that goes through pass 1 alone (not in a group) keeps its g and xhat for pass 2
// (kKeptFloats): on Intel always; elsewhere only rows of up to 128 columns and 16-bit
// rows of up to 512 (1 KiB); longer ones are read again in pass 2 (the split fetch then covers
// them). Two threads, alternating builds call by call, against keeping them, medians:
// - Zen 5 (twentieth session), unkept from 129 columns on: FLOAT (8192, 768) 1.30 -> 1.17 ms (13
//   of 16 pairs), its sequence-first view [16, 512, 768] 2.65 -> 1.95 (16 of 16), (174762, 192)
//   9.04 -> 8.40 (15 of 16); FLOAT16 (8192, 768) 0.86 -> 0.80 (13 of 16), (32768, 1024) 6.91 ->
//   5.82 (12 of 16), (4096, 2048) 1.38 -> 1.23 (16 of 16); BF16 (8192, 768) 0.95 -> 0.83 (15 of
//   16); 16-bit rows of 512 even (kept since the twenty-eighth session, with Zen 4's rule).
// - Zen 4 (twenty-eighth session): (32768, 1024) FLOAT16 7.05 -> 5.44 ms (10 of 10), BF16 6.43 ->
//   5.20 (9 of 10), FLOAT 12.2 -> 10.1 (9 of 10); (8192, 2048) BF16 3.86 -> 2.76 (10 of 10);
//   (16384, 1536) FLOAT16 4.48 -> 4.07 (10 of 10); 16-bit (37449, 896) 10 of 10, (52428, 640) 8
//   of 10; FLOAT (87381, 384) 9.58 -> 8.96 (16 of 16), (174762, 192) 15 of 16, (131072, 256) 14
//   of 16, rows of 512 and 768 even (8 and 7 of 16); sequence-first [16, 512, 768] FLOAT 2.38 ->
//   2.03 (10 of 10), BF16 1.56 -> 1.39 (10 of 10). But 16-bit rows of up to 1 KiB lost unkept:
//   (65536, 512) FLOAT16 4.92 -> 5.37 (0 of 10), BF16 4.76 -> 5.20 (1 of 10), (87381, 384) FLOAT16
//   3 of 10.
// - Rows of 128 FLOAT columns and fewer measured faster kept on Zen 5: (262144, 128) 7.47 -> 8.21
//   ms unkept (1 of 16), heads of 64 columns 3.23 -> 3.35 (1 of 16).
inline bool KeepsRowAlone(int64_t cols, size_t element_size, CacheVendor vendor) {
  constexpr int64_t kKeptAloneCols = 128, kKept16BitAloneCols = 512;
  if (vendor == CacheVendor::kIntel || cols <= kKeptAloneCols) return true;
  return element_size < sizeof(float) && cols <= kKept16BitAloneCols;
}

// Whether streamed gradInput rows (or a row's segment) of range_bytes that begin within a cache
// line write their columns up to the first line boundary (the head) with ordinary stores, so that
// every whole line after it streams: rows whose byte length is no multiple of 64 (1,000 FLOAT16
// columns) begin at every offset in turn. Shorter ones stream only the rows that begin a line, as
// every row did before the twenty-ninth session. Zen 4, two threads, alternating call by call an
// environment switch in one build (heads on every range against none), medians: (16384, 750)
// FLOAT 5.21 -> 4.24 ms, (32768, 270) FLOAT 3.53 -> 2.86, (16384, 1100) FLOAT 7.38 -> 6.03,
// (16384, 1250) FLOAT16 4.46 -> 3.83, (16384, 1500) BF16 5.58 -> 4.40 (12 of 12 pairs each);
// (24576, 700) FLOAT16 3.91 -> 3.46 (11 of 12). Under 1 KiB most lost: (98304, 300) FLOAT16 6.60
// -> 10.24 (1 of 12), (65536, 150) FLOAT 3.94 -> 6.00 (0 of 12), (131072, 100) FLOAT 5.81 -> 8.86
// (0 of 16), (262144, 100) FLOAT16 7.93 -> 11.72 (0 of 10), (49152, 500) BF16 7.01 -> 7.23 (1 of
// 12); rows of 800 bytes gained ((65536, 400) FLOAT16 7.83 -> 4.93, (65536, 200) FLOAT 6.66 ->
// 3.91, 16 of 16 each) but 720 did not ((65536, 180) FLOAT 2 of 12, (65536, 360) FLOAT16 5 of 12),
// and (32768, 520) FLOAT16, 1,040 bytes, measured even (3.96 -> 4.00, 3 of 12).
inline bool StreamsAfterHead(int64_t range_bytes) { return range_bytes >= 1024; }

// Bytes from the 64-byte line boundary at or before `at` to `at`.
inline int64_t LineOffset(const void *at) { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(at) % 64); }

// Elements of element_size bytes from line_offset (a multiple of element_size) to the next line
// boundary: the head of a streamed run that begins there, 0 where it begins a line.
inline int64_t ElementsToLine(int64_t line_offset, int64_t element_size) { return (64 - line_offset) % 64 / element_size; }

// Floats from a chunk's gradWeight partials to its gradBias partials, and from those to the next
// chunk's: PaddedCols(cols), then as many more as put the two half a page apart. Pass 1 stores a
// block of one and then loads the same block of the other; a page apart, that load would wait on
// the store (kPageBytes).
inline int64_t PartialsStride(int64_t cols) {
  constexpr int64_t kPageFloats = kPageBytes / sizeof(float), kHalfPageFloats = kPageFloats / 2;
  const int64_t padded = PaddedCols(cols);
  return padded + ((kHalfPageFloats - padded) % kPageFloats + kPageFloats) % kPageFloats;
}

// Per chunk: gradWeight partials, then gradBias partials, PartialsStride(cols) floats apart.
inline float *ChunkPartials(float *partials, int64_t cols, int64_t chunk) { return partials + chunk * 2 * PartialsStride(cols); }

// Zeroes a chunk's gradWeight and gradBias partials (not the gap between them).
inline void ClearChunkPartials(float *chunk_partials, int64_t cols) {
  const size_t bytes = static_cast<size_t>(PaddedCols(cols)) * sizeof(float);
  std::memset(chunk_partials, 0, bytes);
  std::memset(chunk_partials + PartialsStride(cols), 0, bytes);
}

// Whether a row's gradInput may hold a NaN, from its rstd and its means of g and g * xhat (the
// latter times rstd, RstdMeanGx). A NaN or infinity among its gradOut, input, mean and the weight,
// or a product or difference that overflows, makes a sum of pass 1 NaN or infinite; where none did
// and rstd is finite and not 0, no element meets 0 * inf or inf - inf. Such a row's NaNs are
// rewritten as the one quiet NaN once it is written (CanonicalizeNaNs): which NaN an operation
// passes on depends on operand orders that compilers choose per target and on the FMA being the
// CPU's or emulated, so NaN results would differ between targets. Checked a row, not an element:
// one thread, in cache, bench/ab_builds both orders, (256, 1024) FLOAT 48.1 -> 48.4 us medians
// (606 of 2000 pairs faster) and 47.5 -> 47.9, BF16 48.3 -> 49.5 (455 of 2000) and 48.1 -> 48.6,
// (64, 256) FLOAT 2.9 -> 3.0 (25 % of 5,000 pairs faster);
// canonical results straight from the arithmetic cost 5-9 % ((256, 1024) FLOAT 49.1 -> 51.4 us,
// BF16 46.9 -> 51.3), a flag tested a block 1-16 %.
inline bool RowMayMakeNaN(float rstd, float mean_g, float rstd_mean_gx) {
  // NaN where any of the three is infinite or NaN (or where their sum overflows: a needless scan).
  const float probe = (rstd + mean_g + rstd_mean_gx) * 0.0f;
  return probe != probe || rstd == 0.0f;
}

// Operands in columns (args.input_columns): a task is a block of whole chunks, about
// ColumnBlockRows rows, cut where batches end, and after kMaxColumnRunRows rows (the chunks of a
// very tall call), into runs; each run's rows are summed while their columns stream past (pass 1,
// 16 columns a piece at a time through per-thread tiles), then its gradInput is written column by
// column (pass 2). A run that ends within a chunk leaves its partials for the next run to add to.
constexpr int64_t kMaxColumnRunRows = 1024;

// Where the run that starts at row a ends: at end, at its batch's end, or kMaxColumnRunRows on.
inline int64_t ColumnRunEnd(int64_t a, int64_t end, int64_t batch_rows) {
  return std::min({end, (a / batch_rows + 1) * batch_rows, a + kMaxColumnRunRows});
}

// Rows a block aims at: the length of every column's run that pass 1 and pass 2 read. Two threads,
// alternating builds call by call, against 256 rows: on AMD's Zen 4 (ninth session of 2026-12-03)
// 512 even, 1,024 and more slower for FLOAT (8192, 768); on an Intel Xeon (Emerald Rapids, tenth
// session) 1,024 faster: (8192, 768) FLOAT 5.71 -> 4.77 ms medians (11 of 12 pairs) and 5.45 ->
// 4.51 (12 of 12), (4096, 4096) BF16 12.2 -> 9.4 (8 of 8), NCHW memory (32, 3136, 128) 11.0 -> 8.8
// (10 of 10); 512 gained less (10 %, 16 %, even), 2,048 as much as 1,024, 128 lost.
// On Zen 5 (thirty-eighth session) 16-bit operands take 512 rows, runs of 1 KiB as FLOAT's 256
// rows are, in calls from memory (gradInput streamed, StreamsOutput) where every thread gets such
// a block. Two threads, alternating builds call by call from cold caches, medians: (4096, 4096)
// BF16 transposed 3.78 -> 3.49 ms (15 of 16 pairs; the other order 16 of 16), 4.61 -> 4.25 (15 of
// 16; 15 of 16); (8192, 768) BF16 1.49 -> 1.33 (13 of 16), (16384, 1024) BF16 3.56 -> 3.38 (9 of
// 12), FLOAT16 (4096, 4096) 9 of 12, NCHW memory (32, 3136, 128) BF16 5 and 9 of 12. 1,024 rows
// were even on (4096, 4096); FLOAT at 512 slower ((8192, 768) 2.32 -> 2.40 ms, 3 of 16). In cache,
// (1024, 1024) BF16 lost a little (one thread a block: 87 and 131 of 300 pairs), even from cold
// caches; a call with fewer blocks than threads left threads idle ((512, 4096) 0.73 -> 1.32 ms).
constexpr int64_t kLongColumnBlockRows = 512;

inline int64_t ColumnBlockRows(const KernelConfig &config, int64_t rows, int64_t cols, size_t element_size) {
  if (config.vendor == CacheVendor::kIntel) return 1024;
  const bool long_runs = config.vendor == CacheVendor::kAmdZen5 && element_size == 2 &&
                         StreamsOutput(rows * cols * static_cast<int64_t>(element_size)) &&
                         rows >= kLongColumnBlockRows * config.threads;
  return long_runs ? kLongColumnBlockRows : 256;
}

inline bool InColumns(const LayerNormBackwardArgs &args) { return args.input_columns.batch_rows > 0; }

// Whether pass 2 of a block of operands in columns fetches the next block's runs (Task::
// fetch_next_run), in calls from memory (gradInput streamed), so that their reads from memory
// overlap pass 2's work rather than wait for the next pass 1: 16-bit blocks whose gradOut and
// input take at most 512 KiB (the next block's fit L2 beside them; 16-bit pass 1 keeps up with its
// own fetch, ColumnRunFetch, but for each block's first 16 columns, which it leaves to come as
// they are read: with few groups of columns, a large share), FLOAT blocks of at most 2 MiB (FLOAT
// pass 1 waits on memory: perf, (8192, 768) transposed, two threads, its copy of crowded runs
// into the tiles took 36 % of the columns path's samples from memory, 16 % in cache). Zen 5,
// alternating builds call by call from cold caches, medians: NCHW memory (32, 3136, 128), two
// threads, BF16 3.69 -> 3.08 ms (9 of 10 pairs), 3.78 -> 3.14 (10 of 10); FLOAT 5.73 -> 5.35 (7 of
// 10), 4.85 -> 4.57 (6 of 10), earlier 5.07 -> 3.92 (9 of 10), 4.46 -> 3.93 (9 of 10); one thread,
// FLOAT 7.61 -> 6.32 (6 of 6; the other order 6 of 6), BF16 6.51 -> 5.00 (6 of 6; 6 of 6).
// (8192, 768) FLOAT transposed (1.5 MiB blocks), two threads: 2.17 -> 2.04, 2.34 -> 2.19, 2.33 ->
// 2.16, 1.94 -> 1.83 (21, 19, 19 and 22 of 24 pairs; the other order 19, 22, 20 and 24 of 24), this
// rule 2.47 -> 2.26 (19 of 24; 22 of 24); in the hour before, from slower to faster (5 to 9 of 16
// or of 24 in eight runs, then 15 to 26 of 32 in six); one thread 3.52 -> 3.39 (7 of 8; 8 of 8).
// Those two-thread figures ran with the vCPUs together, before ab_builds evicted the caches on
// every thread (31efc35); with the vCPUs apart, mended, against the build before: (8192, 768)
// FLOAT even (13 and 12 of 24), NCHW BF16 10 and 2 of 10, FLOAT 4 and 10 of 10.
// BF16 (8192, 768), 1.5 MiB, slower (4 and 1 of 12 pairs; one thread 3 and 2 of 8), and (16384,
// 1024) (5 and 2 of 12); FLOAT (8192, 2048), 4 MiB, even (6 and 3 of 12).
inline bool FetchesNextColumnBlock(int64_t block_rows, int64_t cols, size_t element_size, bool stream) {
  const int64_t block_bytes = 2 * block_rows * cols * static_cast<int64_t>(element_size);
  return stream && block_bytes <= (element_size == 4 ? int64_t{2} << 20 : int64_t{512} << 10);
}

inline int64_t ColumnBlockChunks(const KernelConfig &config, int64_t rows, int64_t cols, size_t element_size) {
  const int64_t chunks = ColumnBlockRows(config, rows, cols, element_size) / RowsPerChunk(rows);
  return chunks > 1 ? chunks : 1;
}

// The most rows a run holds.
inline int64_t ColumnRunRows(const KernelConfig &config, int64_t rows, int64_t cols, size_t element_size) {
  const int64_t block = ColumnBlockChunks(config, rows, cols, element_size) * RowsPerChunk(rows);
  return std::min({block, rows, kMaxColumnRunRows});
}

// Whether threads take a call's blocks of operands in columns in turn (ParallelForInTurn), each
// the next block, so that they read and write neighbouring runs of each column together, rather
// than in ParallelFor's long runs of consecutive blocks, far apart in each column: where
// neighbouring blocks share no line of gradInput (one batch, every column and every block starting
// on a line), as threads that write one line by turns wait on each other. Two threads, alternating
// builds call by call, medians: (4096, 4096) BF16 transposed 4.98 -> 4.70 ms (23 of 24 pairs),
// 4.96 -> 4.70 (23 of 24), 5.16 -> 5.06 (21 of 24), then 20, 22 and 18 of 24 but in one minute 8
// and 14 of 24 (blocks in turn by a static split lost 0 of 24 once: a thread that falls behind
// keeps its share); FLOAT16 11 and 15 of 16; (4000, 4096) BF16 4.67 -> 4.22 (12 of 16), 4.40 ->
// 4.14 (15 of 16); (8192, 768) FLOAT 13 and 9 of 16. Blocks in turn whose ends share lines (NCHW
// memory (32, 3136, 128), blocks of 392 rows) lost: FLOAT 1 and 2 of 12, BF16 1 and 0 of 12.
inline bool TakesColumnBlocksInTurn(const void *grad_input, const ColumnLayout &grad_input_columns, int64_t rows, int64_t block_rows,
                                    size_t element_size) {
  const int64_t size = static_cast<int64_t>(element_size);
  return grad_input_columns.batch_rows >= rows && reinterpret_cast<uintptr_t>(grad_input) % 64 == 0 &&
         grad_input_columns.col_stride * size % 64 == 0 && block_rows * size % 64 == 0;
}

// Pass 1 transposes a run's 16 columns a piece of this many bytes of each at a time (64 FLOAT
// rows, 128 16-bit ones), into tiles of 4 KiB that stay in L1, and fetches later runs into L2
// meanwhile (ColumnRunFetch; what follows measured the next piece fetched at once); whole runs
// made tiles of up to 64 KiB (FLOAT, 1,024 rows) that went through L2, whose sets the runs'
// power-of-two strides crowd. Two threads, alternating builds call by call, every call from cold
// caches, medians: (8192, 768) FLOAT transposed 7.15 -> 5.19 ms (9 of 10 pairs), 6.73 -> 5.59 (10
// of 10), 7.13 -> 5.99 (9 of 10); pieces of 32 or 128 rows gained less, 256 nothing; without the
// fetch, 4 to 10 of 10 pairs faster. Short runs (short calls and batches)
// fetch the next 16 columns' runs this way too: (256, 4096) BF16 transposed, runs of 512 bytes,
// 814 -> 774 us (140 of 200) against whole-run tiles and those runs fetched at the block's start.
constexpr int64_t kColumnPieceBytes = 256;

inline int64_t ColumnPieceRows(size_t element_size) { return kColumnPieceBytes / static_cast<int64_t>(element_size); }

// A thread's scratch for runs of up to `rows` rows (rounded up to whole blocks of kLanes): per row
// its lane sums of g and g * xhat (kLanes floats each, and as many again for a later segment's),
// its mean, rstd, mean of g and RstdMeanGx, and two tiles of kLanes columns of a piece of
// gradOut and input (ColumnPieceRows). Placed at `base` (nullptr: only its size, bytes, is wanted).
struct ColumnScratch {
  ColumnScratch(char *base, int64_t rows, int64_t cols, size_t element_size) {
    const int64_t padded_rows = PaddedCols(rows);
    const size_t lanes_bytes = static_cast<size_t>(padded_rows * kLanes) * sizeof(float);
    // One block more: pass 2's blocks may start at any of a run's first 16 rows (RunColumnRows'
    // head, the rows before a run's first whole line of gradInput).
    const size_t row_bytes = static_cast<size_t>(padded_rows + kLanes) * sizeof(float);
    const size_t tile_bytes = static_cast<size_t>(std::min(padded_rows, ColumnPieceRows(element_size)) * kLanes) * element_size;
    size_t at = 0;
    auto take = [&](size_t size) {
      char *place = base != nullptr ? base + at : nullptr;
      at += (size + 63) / 64 * 64;
      return place;
    };
    sum_g = reinterpret_cast<float *>(take(lanes_bytes));
    sum_gx = reinterpret_cast<float *>(take(lanes_bytes));
    if (SegmentCount(cols) > 1) {
      segment_g = reinterpret_cast<float *>(take(lanes_bytes));
      segment_gx = reinterpret_cast<float *>(take(lanes_bytes));
    }
    mean = reinterpret_cast<float *>(take(row_bytes));
    rstd = reinterpret_cast<float *>(take(row_bytes));
    mean_g = reinterpret_cast<float *>(take(row_bytes));
    rstd_mean_gx = reinterpret_cast<float *>(take(row_bytes));
    grad_out_tile = take(tile_bytes);
    input_tile = take(tile_bytes);
    bytes = at;
  }

  float *sum_g, *sum_gx, *segment_g = nullptr, *segment_gx = nullptr;
  float *mean, *rstd, *mean_g, *rstd_mean_gx;
  char *grad_out_tile, *input_tile;
  size_t bytes;
};

}  // namespace lnb
}  // namespace kernels
}  // namespace aclhost
#endif

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {

static_assert(kBlockLanes == lnb::kLanes, "one block width");

// A row's lane sums (g, g * xhat) += a later segment's, lane by lane: how segments are folded.
HWY_INLINE void FoldSegment(BlockVec *sum_g, BlockVec *sum_gx, const BlockVec *segment_g, const BlockVec *segment_gx) {
  for (int64_t v = 0; v < kBlockVecs; ++v) {
    sum_g[v] = hn::Add(sum_g[v], segment_g[v]);
    sum_gx[v] = hn::Add(sum_gx[v], segment_gx[v]);
  }
}

// The block of `row` at n: whole, straight from memory, else the zero-padded block of the
// elements below end.
template <ElementType kType>
HWY_INLINE void LoadOrReadBlock(const void *row, int64_t n, int64_t end, bool whole, BlockVec *out) {
  if (whole) {
    LoadBlock<kType>(row, n, out);
  } else {
    ReadBlock<kType>(row, n, end, out);
  }
}

// The blocks of gradOut and input at n (LoadOrReadBlock).
template <ElementType kData>
HWY_INLINE void ReadGradOutAndInput(const void *grad_out, const void *input, int64_t n, int64_t end, bool whole, BlockVec *go,
                                    BlockVec *x) {
  LoadOrReadBlock<kData>(grad_out, n, end, whole, go);
  LoadOrReadBlock<kData>(input, n, end, whole, x);
}

// g = gradOut * weight, one vector: pass 1, pass 2 and the kept rows' pass 2 (which forms g
// again) share this multiply, so that their bits agree.
template <bool kHasWeight>
HWY_INLINE BlockVec WeightedGrad(BlockVec go, BlockVec w) {
  return kHasWeight ? hn::Mul(go, w) : go;
}

// One vector of a row's block, in pass 1: its share of the row's lane sums of g and g * xhat and,
// with kColumnSums, of the column partials, the two products fused into their sums. Rows in memory
// and rows in columns both add through here, so that their bits agree.
template <bool kHasWeight, bool kColumnSums>
HWY_INLINE void AccumulateVector(BlockVec go, BlockVec x, BlockVec w, BlockVec mean, BlockVec rstd, BlockVec *sum_g,
                                 BlockVec *sum_gx, BlockVec *partial_w, BlockVec *partial_b, BlockVec *kept_g = nullptr,
                                 BlockVec *kept_centered = nullptr) {
  const BlockTag d;
  const auto centered = hn::Sub(x, mean);
  const auto xhat = hn::Mul(centered, rstd);
  const auto g = WeightedGrad<kHasWeight>(go, w);
  if (kept_g != nullptr) {  // for pass 2 (RowPasses' kKeep)
    *kept_g = g;
    *kept_centered = centered;
  }
  *sum_g = hn::Add(*sum_g, g);
  *sum_gx = FusedMulAdd(d, g, xhat, *sum_gx);
  if (kColumnSums) {
    *partial_w = FusedMulAdd(d, go, xhat, *partial_w);
    *partial_b = hn::Add(*partial_b, go);
  }
}

// A row's mean of g * xhat times its rstd, the factor pass 2 applies to input - mean: one
// multiply a row instead of forming xhat again for every element.
inline float RstdMeanGx(float rstd, float mean_gx) { return rstd * mean_gx; }

// One vector of gradInput, in pass 2, from g, input - mean and the row's mean of g and
// RstdMeanGx: (g - (mean(g) + xhat * mean(g * xhat))) * rstd, the term in xhat one multiply-add.
// The one expression of both orders.
HWY_INLINE BlockVec GradInputFromTerms(BlockVec g, BlockVec centered, BlockVec rstd, BlockVec mean_g, BlockVec rstd_mean_gx) {
  const BlockTag d;
  return hn::Mul(hn::Sub(g, FusedMulAdd(d, centered, rstd_mean_gx, mean_g)), rstd);
}

template <bool kHasWeight>
HWY_INLINE BlockVec GradInputVector(BlockVec go, BlockVec x, BlockVec w, BlockVec mean, BlockVec rstd, BlockVec mean_g,
                                    BlockVec rstd_mean_gx) {
  const auto g = WeightedGrad<kHasWeight>(go, w);
  return GradInputFromTerms(g, hn::Sub(x, mean), rstd, mean_g, rstd_mean_gx);
}

// A pass over rows names the rows it works on by a tag: one row's index, or all of them.
using AllRows = std::integral_constant<int, -1>;

// body(row_tag) for each row of the sequence, in order, with the row's index as a constant.
template <int... kRow, class Body>
HWY_INLINE void ForEachRow(std::integer_sequence<int, kRow...>, Body body) {
  (body(std::integral_constant<int, kRow>()), ...);
}

// The two passes over columns [c0, c1) of rows of one chunk (c0 a multiple of kSegmentCols, c1
// the next one or cols). partials: the chunk's column partial sums (nullptr when neither gradWeight
// nor gradBias is wanted).
template <ElementType kData, bool kHasWeight, bool kColumnSums>
class RowPasses {
 public:
  // FLOAT rows keep input - mean alone (the kept xhat of the measurements below, until the
  // thirty-sixth session); pass 2 multiplies gradOut (still in L1) by the weight again for g,
  // pass 1's multiply (WeightedGrad), so the same bits. Zen 4 stores a 64-byte vector in two cycles
  // (one 32-byte store a cycle; a loop of the instructions alone, outside the repo), and pass 1 of
  // a kept group of 4 rows stored 10 vectors for every 4 row blocks (8 of them kept g and xhat):
  // its store port bound it. Thirty-first session, bench/ab_builds, builds in both orders, pairs
  // faster: in cache (64, 256) 83 and 88 % of 20,000 (fastest call 4.9 -> 4.7 us), (128, 128) 97
  // and 84 % (medians 9.6 -> 8.7 us), (256, 64) and (1024, 128) even (52-54 %); from memory
  // (262144, 128) 22 and 18 of 30 (medians 12.6 -> 12.2 ms, 10.5 -> 10.1), (98304, 64) even (14
  // and 13 of 30). 16-bit rows keep both: their gradOut would be widened again, and BF16 (64, 256)
  // measured slower on balance keeping xhat alone (2 % of 20,000 pairs with that build second, 72 %
  // with it first), (262144, 128) BF16 11 and 6 of 20, where (65536, 512) FLOAT16 gained (17 and
  // 12 of 20). Other CPUs unmeasured.
  static constexpr bool kKeepsCenteredOnly = kData == ElementType::kFloat32;

  // BF16 on targets below AVX-512 (its rounding to BF16 in integer operations) keeps pass 2 row by
  // row and all of the next rows' fetch in pass 2: AVX2 on the Xeon (ACLNN_HOST_ISA=avx2),
  // alternating builds from cold caches, measured a group's pass 2 in one sweep slower ((4096,
  // 4096) 6.44 -> 6.87 ms, 2 of 20 pairs faster; (1024, 32768) 13.4 -> 14.2, 2 of 12), and the
  // split fetch too ((4096, 4096) 7.11 -> 7.52, 0 of 12; (16384, 5120) 31.6 -> 33.6, 0 of 8),
  // where FLOAT16 gained by it (4.64 -> 4.01, 12 of 12).
  static constexpr bool kBf16BelowAvx512 = kData == ElementType::kBFloat16 && HWY_TARGET > HWY_AVX3;

  // Groups of kRows rows that fetch the next group half a group at a time (FetchNextHalf), and
  // whose pass 2 may take them in turn (lnb::TakesGroupRowsInTurn): groups of 4 FLOAT rows.
  template <int kRows>
  static constexpr bool kHalfGroups = kData == ElementType::kFloat32 && kRows >= 4;

  // Groups whose pass 1 may take kPass1TileBlocks blocks of a row before the next row's, the
  // weight's and the partials' blocks held in registers (lnb::TilesGroupPass1): groups of 2 FLOAT
  // rows on AVX-512 (rows of 64 to 128 KiB; LongRowGroupBytes), whose 32 registers hold a tile.
  template <int kRows>
  static constexpr bool kTiledPass1 = kData == ElementType::kFloat32 && kRows == 2 && kBlockVecs == 1;
  static constexpr int64_t kPass1TileBlocks = 4;

  RowPasses(const LayerNormBackwardArgs &args, float *partials)
      : args_(args),
        weight_partials_(partials),
        bias_partials_(kColumnSums ? partials + lnb::PartialsStride(args.cols) : nullptr),
        fetches_next_rows_(lnb::FetchesNextRows(args.rows, args.cols, ElementSize(kData))) {}

  // Pass 1: row m's lane sums of g and g * xhat over the columns (into 16 floats each), and the
  // row's share of the column sums. Whole blocks straight from memory, then the zero-padded last
  // block of the row.
  void Sums(int64_t m, const char *go_row, const char *x_row, int64_t c0, int64_t c1, float *lanes_g, float *lanes_gx) const {
    const BlockTag d;
    BlockVec acc_g[1][kBlockVecs], acc_gx[1][kBlockVecs];
    lnb::RowBlock row;
    row.grad_out = go_row;
    row.input = x_row;
    Sums<1>(m, row, c0, c1, acc_g, acc_gx);
    for (int64_t v = 0; v < kBlockVecs; ++v) {
      hn::StoreU(acc_g[0][v], d, lanes_g + v * kBlockWidth);
      hn::StoreU(acc_gx[0][v], d, lanes_gx + v * kBlockWidth);
    }
  }

  // The same for kRows consecutive rows m, m + 1, ... (the first kRows of `rows`) at once, into vectors: a
  // block of the weight and of the column partials is loaded once for the group and each row's
  // share added in row order, the same adds as row by row, with fewer trips to L2 on long rows.
  // kKeep: row r's g (unless kKeepsCenteredOnly) and input - mean also go to kept + 2 * r *
  // kept_cols and kept_cols further on.
  // first_halves: rows whose first halves are fetched meanwhile (FetchNextHalf; nullptr: none;
  // Rows says why).
  template <int kRows, bool kKeep = false>
  HWY_INLINE void Sums(int64_t m, const lnb::RowBlock &rows, int64_t c0, int64_t c1, BlockVec (*acc_g)[kBlockVecs],
                       BlockVec (*acc_gx)[kBlockVecs], float *kept = nullptr, int64_t kept_cols = 0,
                       const lnb::RowBlock *first_halves = nullptr) const {
    const BlockTag d;
    constexpr int64_t kSize = static_cast<int64_t>(ElementSize(kData));
    // Locals, not members: the partials' stores could otherwise alias them, forcing a reload of
    // every pointer on every block. The rows' own pointers too, in groups of up to 2 rows: read
    // through `rows`, GCC loaded them again for every block (two loads of a block's 27
    // instructions, BF16 rows alone on AVX-512, read). Zen 4: AVX2 (groups of 2) in cache, FLOAT
    // (64, 256) 6.1 % and (256, 768) 3.2 % fewer instructions (callgrind), kernel_bench (256, 768)
    // 0.305 -> 0.280 ns an element, (64, 256) 0.30 -> 0.26 (3 of 3 runs each); AVX-512 rows alone,
    // two threads, alternating builds call by call, both orders: (8192, 768) BF16 21 of 32 pairs
    // faster, (16384, 1000) FLOAT16 16 of 20, (32768, 1024) FLOAT 7 of 8. Groups of 4 (AVX-512)
    // keep reading them through `rows`: in locals beside the fetch pointers, (1024, 128) FLOAT in
    // cache measured about 2 % slower.
    constexpr bool kRowPointersInLocals = kRows <= 2;
    const char *fetch_go[kRows] = {}, *fetch_x[kRows] = {};
    const char *go_row[kRows], *x_row[kRows];
    for (int r = 0; r < kRows; ++r) {
      go_row[r] = rows.grad_out + r * rows.grad_out_step;
      x_row[r] = rows.input + r * rows.input_step;
    }
    for (int r = 0; r < kRows && first_halves != nullptr; ++r) {
      fetch_go[r] = first_halves->grad_out + r * first_halves->grad_out_step;
      fetch_x[r] = first_halves->input + r * first_halves->input_step;
    }
    const bool into_l2 = lnb::FetchesNextRowsIntoL2(args_.cols, kSize, args_.config.vendor);
    const int64_t row_bytes = args_.cols * kSize;
    const void *const weight = args_.weight;
    float *const weight_partials = weight_partials_, *const bias_partials = bias_partials_;
    BlockVec go[kBlockVecs], x[kBlockVecs];
    BlockVec mean[kRows], rstd[kRows];
    for (int r = 0; r < kRows; ++r) {
      mean[r] = hn::Set(d, static_cast<float>(LoadElement(args_.mean, args_.mean_type, m + r)));
      rstd[r] = hn::Set(d, static_cast<float>(LoadElement(args_.rstd, args_.rstd_type, m + r)));
      for (int64_t v = 0; v < kBlockVecs; ++v) acc_g[r][v] = acc_gx[r][v] = hn::Zero(d);
    }
    // Row r's block at column n is in go and x; adds its share, with the weight's block w, to the
    // row sums and to pw / pb.
    auto accumulate_row = [&](int r, int64_t n, const BlockVec *w, BlockVec *pw, BlockVec *pb) HWY_ATTR __attribute__((always_inline)) {
      BlockVec g[kBlockVecs], centered[kBlockVecs];
      for (int64_t v = 0; v < kBlockVecs; ++v) {
        AccumulateVector<kHasWeight, kColumnSums>(go[v], x[v], w[v], mean[r], rstd[r], &acc_g[r][v], &acc_gx[r][v], &pw[v], &pb[v],
                                                  kKeep ? &g[v] : nullptr, kKeep ? &centered[v] : nullptr);
      }
      if (kKeep) {
        if (!kKeepsCenteredOnly) StoreBlock<ElementType::kFloat32>(g, kept + 2 * r * kept_cols, n);
        StoreBlock<ElementType::kFloat32>(centered, kept + (2 * r + 1) * kept_cols, n);
      }
    };
    // Every row's kCount blocks from column n on, a row's blocks before the next row's (the weight's
    // and the partials' blocks held meanwhile); full: whole blocks straight from memory, else the
    // zero-padded last block of the rows (kCount 1).
    auto accumulate = [&](int64_t n, bool full, auto count_tag) HWY_ATTR __attribute__((always_inline)) {
      constexpr int64_t kCount = decltype(count_tag)::value;
      BlockVec pw[kCount][kBlockVecs], pb[kCount][kBlockVecs], w[kCount][kBlockVecs];
      for (int64_t b = 0; b < kCount; ++b) {
        const int64_t at = n + b * kBlockLanes;
        if (kColumnSums) {
          for (int64_t v = 0; v < kBlockVecs; ++v) {
            pw[b][v] = hn::LoadU(d, weight_partials + at + v * kBlockWidth);
            pb[b][v] = hn::LoadU(d, bias_partials + at + v * kBlockWidth);
          }
        }
        if (kHasWeight) LoadOrReadBlock<ElementType::kFloat32>(weight, at, c1, full, w[b]);
      }
      for (int64_t b = 0; b < kCount; ++b) {
        for (int r = 0; r < kRows && first_halves != nullptr && full; ++r) {
          FetchNextHalf<kRows>(fetch_go, fetch_x, r, n + b * kBlockLanes, row_bytes, false, false, into_l2);
        }
      }
      for (int r = 0; r < kRows; ++r) {
        for (int64_t b = 0; b < kCount; ++b) {
          const int64_t at = n + b * kBlockLanes;
          const char *const go_at = kRowPointersInLocals ? go_row[r] : rows.grad_out + r * rows.grad_out_step;
          const char *const x_at = kRowPointersInLocals ? x_row[r] : rows.input + r * rows.input_step;
          ReadGradOutAndInput<kData>(go_at, x_at, at, c1, full, go, x);
          accumulate_row(r, at, w[b], pw[b], pb[b]);
        }
      }
      if (kColumnSums) {
        for (int64_t b = 0; b < kCount; ++b) {
          for (int64_t v = 0; v < kBlockVecs; ++v) {
            hn::StoreU(pw[b][v], d, weight_partials + n + b * kBlockLanes + v * kBlockWidth);
            hn::StoreU(pb[b][v], d, bias_partials + n + b * kBlockLanes + v * kBlockWidth);
          }
        }
      }
    };
    using OneBlock = std::integral_constant<int64_t, 1>;
    int64_t n = c0;
    if constexpr (kTiledPass1<kRows>) {
      using Tile = std::integral_constant<int64_t, kPass1TileBlocks>;
      if (lnb::TilesGroupPass1(args_.config.vendor)) {
        for (; n + kPass1TileBlocks * kBlockLanes <= c1; n += kPass1TileBlocks * kBlockLanes) accumulate(n, true, Tile());
      }
    }
    for (; n + kBlockLanes <= c1; n += kBlockLanes) accumulate(n, true, OneBlock());
    if (n < c1) accumulate(n, false, OneBlock());
  }

  // Pass 2: the gradInput of the first kRows of `rows`, rows m, m + 1, ..., over the columns,
  // block by block, a block of the weight loaded once for the rows (long rows read it from L2).
  // Always inlined: GCC stopped inlining it into Rows<1> once RunChunk grew, a call per row that
  // cost dense (262144, 128) FLOAT about 1-4 % (docs/PERFORMANCE.md, sixth session). Each block is
  // read before it is written, which keeps exact in-place use correct. Row r of `next` is fetched
  // meanwhile unless the call is in cache (lnb::FetchesNextRows; lnb::FetchesNextRowsIntoL2 says
  // into which cache): otherwise each row's arithmetic waits behind its own first read from
  // memory. row_means: per row its means of g and g * xhat; stream: write whole lines of gradInput
  // with non-temporal stores (which, below); kept: the rows' input - mean and (unless
  // kKeepsCenteredOnly) g as pass 1 left them (Sums' kKeep), read instead of input (and gradOut);
  // fetch_second_halves: fetch only the second halves of `next` (FetchNextHalf; pass 1 fetched the
  // first; Rows says why); rows_in_turn: each row's columns all before the next row's (kHalfGroups
  // only; lnb::TakesGroupRowsInTurn), rather than a line of each row at a time.
  template <int kRows>
  HWY_INLINE void GradInput(int64_t m, const lnb::RowBlock &rows, int64_t c0, int64_t c1, const float (*row_means)[2],
                            bool stream, const lnb::RowBlock &next, const float *kept = nullptr, int64_t kept_cols = 0,
                            bool fetch_second_halves = false, bool rows_in_turn = false) const {
    const BlockTag d;
    const void *const weight = args_.weight;  // a local: the stores below could alias a member
    constexpr int64_t kSize = static_cast<int64_t>(ElementSize(kData));
    BlockVec mean[kRows], rstd[kRows], mean_g[kRows], rstd_mean_gx[kRows];
    // Each row's operands in locals: the stores below could alias `rows` and `next`, whose fields
    // would otherwise be loaded again for every block.
    const char *go_row[kRows], *x_row[kRows], *next_go[kRows], *next_x[kRows];
    char *grad_input_row[kRows];
    bool stream_row[kRows];
    for (int r = 0; r < kRows; ++r) {
      mean[r] = hn::Set(d, static_cast<float>(LoadElement(args_.mean, args_.mean_type, m + r)));
      const float row_rstd = static_cast<float>(LoadElement(args_.rstd, args_.rstd_type, m + r));
      rstd[r] = hn::Set(d, row_rstd);
      mean_g[r] = hn::Set(d, row_means[r][0]);
      rstd_mean_gx[r] = hn::Set(d, RstdMeanGx(row_rstd, row_means[r][1]));
      go_row[r] = rows.grad_out + r * rows.grad_out_step;
      x_row[r] = rows.input + r * rows.input_step;
      grad_input_row[r] = rows.grad_input + r * rows.grad_input_step;
      next_go[r] = next.grad_out + r * next.grad_out_step;
      next_x[r] = next.input + r * next.input_step;
    }
    // Where gradInput streams, whole lines of it only. Rows that begin element-aligned write their
    // columns up to the next line (their head) through the caches first where lnb::StreamsAfterHead
    // says so; otherwise only rows that begin a line stream. A group whose rows lie differently
    // within their lines then takes them in turn, each with its own head. Zen 4, two threads,
    // alternating call by call against streaming only its rows that begin a line, medians: (4096,
    // 3000) FLOAT 5.51 -> 4.76 ms (12 of 12 pairs), FLOAT16 3.44 -> 2.72 (11 of 12); (2048, 5000)
    // FLOAT 4.27 -> 3.81 (12 of 12); (1100, 4001) BF16 1.15 -> 1.02 (11 of 12), (2048, 6000) BF16
    // 2.54 -> 2.33 (9 of 12); (1024, 10000) FLOAT16 2.72 -> 2.42 (10 of 12). Streaming none of
    // them had measured slower than that ((4096, 3000) FLOAT 4.43 -> 4.90 ms, 1 of 12).
    int64_t line_offset[kRows];
    bool headed = stream && lnb::StreamsAfterHead((c1 - c0) * kSize);
    for (int r = 0; r < kRows; ++r) {
      line_offset[r] = lnb::LineOffset(grad_input_row[r] + c0 * kSize);
      headed = headed && line_offset[r] % kSize == 0;
    }
    int64_t head[kRows];
    bool heads_differ = false;
    for (int r = 0; r < kRows; ++r) {
      head[r] = headed ? lnb::ElementsToLine(line_offset[r], kSize) : 0;  // under a line: range_bytes >= 1 KiB
      heads_differ = heads_differ || head[r] != head[0];
      stream_row[r] = stream && (line_offset[r] + head[r] * kSize) % 64 == 0;
    }
    const bool into_l2 = lnb::FetchesNextRowsIntoL2(args_.cols, ElementSize(kData), args_.config.vendor);
    const bool fetch_next = fetches_next_rows_;  // a local: the vector stores below may alias the member
    const int64_t row_bytes = args_.cols * kSize;
    constexpr int64_t kLineBlocks = LineBlocks(kData);  // blocks a line of gradInput holds
    // Row r's kCount blocks from n on stored; full: whole blocks, else the zero-padded block of the
    // elements below end (the head's or the rows' last). The line of its next row at n is fetched
    // first. A BF16 line (two blocks) is rounded by one instruction and written by one store
    // (StoreBlockPair), as in the forward: in cache, (64, 4096) BF16 59.0 -> 53.8 us (287 of 300
    // pairs), (512, 768) 63.7 -> 60.3 (179 of 300); from memory even. FLOAT16 measured slower in one
    // line (its two halves joined by a shuffle: (8192, 768) 0.85 -> 0.92 ms, 5 of 16 pairs).
    auto finish_row = [&](int r, int64_t n, bool full, int64_t end, auto count_tag,
                          BlockVec (*out)[kBlockVecs]) HWY_ATTR __attribute__((always_inline)) {
      constexpr int64_t kCount = decltype(count_tag)::value;
      constexpr bool kLine = kCount == kLineBlocks;  // a 16-bit row's last half line goes through the caches
      if (!full) {
        WriteBlock<kData>(out[0], grad_input_row[r], n, end);
        return;
      }
      if (fetch_second_halves) {
        FetchNextHalf<kRows>(next_go, next_x, r, n - head[r], row_bytes, true, rows_in_turn, into_l2);
      } else if (fetch_next) {
        FetchForReading(next_go[r] + n * kSize, into_l2);
        FetchForReading(next_x[r] + n * kSize, into_l2);
      }
      if constexpr (kCount == 2 && kData == ElementType::kBFloat16) {
        StoreBlockPairStreamedIf<kData>(stream_row[r], out[0], out[1], grad_input_row[r], n);
      } else {
        #pragma GCC unroll 8
        for (int64_t b = 0; b < kCount; ++b) StoreBlockStreamedIf<kData>(kLine && stream_row[r], out[b], grad_input_row[r], n + b * kBlockLanes);
      }
    };
    // kCount blocks from n on of every row (row_tag: AllRows) or of one row (row_tag: that row's
    // index), row after row: a row's line of gradInput is written whole before the next row's, so
    // that no write-combining buffer of a non-temporal store waits half full while other rows'
    // lines open. Every row's blocks are read before the first row's are written: rows a multiple
    // of 4 KiB apart, in operands equally placed (aclrtMalloc puts large blocks on 2 MiB
    // boundaries), put the next row's loads at the low 12 address bits of the store just made,
    // and they waited behind it (4K aliasing). AMD Zen 4, two threads, alternating builds call by
    // call, against a row's loads after the row before it was written, medians: (4096, 4096) BF16
    // 4.45 -> 3.40 ms (10 of 10 pairs), FLOAT16 4.22 -> 3.18 (9 of 10); (2048, 8192) FLOAT16 5.71
    // -> 3.43 (8 of 8); (4096, 8192) BF16 7.83 -> 6.19 (11 of 12); (1024, 32768) BF16 6.19 -> 6.01
    // (10 of 12); (2048, 16384) FLOAT 11.7 -> 10.8 (10 of 12); FLOAT16 (1024, 32768) and FLOAT
    // (1024, 32768) even (4 of 10, 5 of 12), but in the other order later 6.30 -> 5.98 (15 of 16)
    // and 11.31 -> 11.05 (15 of 24).
    // Its loops over rows and blocks are unrolled whole, so that each row's pointers and vectors
    // stay in registers; GCC otherwise kept them in arrays on the stack and loaded them for every
    // block. Two threads, alternating builds call by call, in cache: (64, 4096) BF16 65.7 -> 58.7
    // us medians (290 of 300 pairs), FLOAT16 55.6 -> 52.4 (286 of 300), FLOAT and shorter rows
    // ((64, 256) FLOAT included) even; from memory even.
    auto blocks = [&](int64_t n, auto count_tag, bool full, int64_t end, auto row_tag) HWY_ATTR __attribute__((always_inline)) {
      constexpr int64_t kCount = decltype(count_tag)::value;
      constexpr int kOnlyRow = decltype(row_tag)::value;
      if (kept != nullptr) {
        BlockVec out[kCount][kBlockVecs];
        #pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
          if (kOnlyRow != AllRows::value && r != kOnlyRow) continue;
          #pragma GCC unroll 8
          for (int64_t b = 0; b < kCount; ++b) {
            BlockVec g[kBlockVecs], centered[kBlockVecs];
            const int64_t at = n + b * kBlockLanes;
            const float *const kept_centered = kept + (2 * r + 1) * kept_cols;
            if (kKeepsCenteredOnly) {  // g from gradOut and the weight again
              BlockVec go[kBlockVecs], w[kBlockVecs];
              LoadOrReadBlock<kData>(go_row[r], at, end, full, go);
              if (kHasWeight) LoadOrReadBlock<ElementType::kFloat32>(weight, at, end, full, w);
              LoadOrReadBlock<ElementType::kFloat32>(kept_centered, at, end, full, centered);
              for (int64_t v = 0; v < kBlockVecs; ++v) g[v] = WeightedGrad<kHasWeight>(go[v], w[v]);
            } else {
              // The kept rows are whole blocks long (pass 1 stores padded ones): only a block that a
              // head moved off their blocks may end past them.
              const bool whole = full || n + kBlockLanes <= kept_cols;
              LoadOrReadBlock<ElementType::kFloat32>(kept + 2 * r * kept_cols, at, end, whole, g);
              LoadOrReadBlock<ElementType::kFloat32>(kept_centered, at, end, whole, centered);
            }
            for (int64_t v = 0; v < kBlockVecs; ++v) {
              out[b][v] = GradInputFromTerms(g[v], centered[v], rstd[r], mean_g[r], rstd_mean_gx[r]);
            }
          }
          finish_row(r, n, full, end, count_tag, out);
        }
        return;
      }
      BlockVec w[kCount][kBlockVecs];
      #pragma GCC unroll 8
      for (int64_t b = 0; b < kCount && kHasWeight; ++b) LoadOrReadBlock<ElementType::kFloat32>(weight, n + b * kBlockLanes, end, full, w[b]);
      BlockVec rows_out[kRows][kCount][kBlockVecs];
      #pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        if (kOnlyRow != AllRows::value && r != kOnlyRow) continue;
        #pragma GCC unroll 8
        for (int64_t b = 0; b < kCount; ++b) {
          BlockVec go[kBlockVecs], x[kBlockVecs];
          ReadGradOutAndInput<kData>(go_row[r], x_row[r], n + b * kBlockLanes, end, full, go, x);
          for (int64_t v = 0; v < kBlockVecs; ++v) {
            rows_out[r][b][v] = GradInputVector<kHasWeight>(go[v], x[v], w[b][v], mean[r], rstd[r], mean_g[r], rstd_mean_gx[r]);
          }
        }
      }
      #pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        if (kOnlyRow != AllRows::value && r != kOnlyRow) continue;
        finish_row(r, n, full, end, count_tag, rows_out[r]);
      }
    };
    using Line = std::integral_constant<int64_t, kLineBlocks>;
    using Block = std::integral_constant<int64_t, 1>;
    // The columns of the rows row_tag names: the head, then a line of gradInput at a time where it
    // is whole. The lines are counted before their loop: tested line by line against c1 (n no
    // longer starting at a constant 0), each line of a kept BF16 row took GCC four more
    // instructions (its AVX-512 code, read).
    auto sweep = [&](auto row_tag) HWY_ATTR __attribute__((always_inline)) {
      constexpr int kOnlyRow = decltype(row_tag)::value;
      const int64_t lines_begin = c0 + head[kOnlyRow == AllRows::value ? 0 : kOnlyRow];
      int64_t n = c0;
      for (; n + kBlockLanes <= lines_begin; n += kBlockLanes) blocks(n, Block(), true, c1, row_tag);
      if (n < lines_begin) {
        blocks(n, Block(), false, lines_begin, row_tag);
        n = lines_begin;
      }
      for (const int64_t lines_end = n + (c1 - n) / (kLineBlocks * kBlockLanes) * (kLineBlocks * kBlockLanes); n < lines_end;
           n += kLineBlocks * kBlockLanes) {
        blocks(n, Line(), true, c1, row_tag);
      }
      for (; n + kBlockLanes <= c1; n += kBlockLanes) blocks(n, Block(), true, c1, row_tag);
      if (n < c1) blocks(n, Block(), false, c1, row_tag);
    };
    if constexpr (kRows > 1) {  // rows in turn where asked, and where their heads differ
      if ((kHalfGroups<kRows> && rows_in_turn) || heads_differ) {
        ForEachRow(std::make_integer_sequence<int, kRows>(), sweep);
        CanonicalizeNaNRows<kRows>(m, row_means, grad_input_row, c0, c1);
        return;
      }
    }
    sweep(AllRows());
    CanonicalizeNaNRows<kRows>(m, row_means, grad_input_row, c0, c1);
  }

  // Once written, the NaNs of columns [c0, c1) of those of the rows m, m + 1, ... whose gradInput
  // may hold one (lnb::RowMayMakeNaN) as the one quiet NaN.
  template <int kRows>
  HWY_INLINE void CanonicalizeNaNRows(int64_t m, const float (*row_means)[2], char *const *grad_input_row, int64_t c0,
                                      int64_t c1) const {
    for (int r = 0; r < kRows; ++r) {
      const float rstd = static_cast<float>(LoadElement(args_.rstd, args_.rstd_type, m + r));
      if (HWY_UNLIKELY(lnb::RowMayMakeNaN(rstd, row_means[r][0], RstdMeanGx(rstd, row_means[r][1])))) {
        CanonicalizeNaNs(grad_input_row[r] + c0 * static_cast<int64_t>(ElementSize(kData)), kData, c1 - c0, 1);
      }
    }
  }

  // The first kRows of `rows`, rows m, m + 1, ...: their sums segment by segment, folded in order
  // (as the segments shared among threads are), then each row's gradInput unless that is not
  // wanted. Row r's pass 2 fetches row r of `next`; stream: write whole lines of gradInput with
  // non-temporal stores (GradInput says which).
  template <int kRows>
  void Rows(int64_t m, const lnb::RowBlock &rows, bool stream, const lnb::RowBlock &next) const {
    const int64_t cols = args_.cols;
    BlockVec sum_g[kRows][kBlockVecs], sum_gx[kRows][kBlockVecs], segment_g[kRows][kBlockVecs], segment_gx[kRows][kBlockVecs];
    const int64_t kept_cols = lnb::PaddedCols(cols);
    const bool keep = rows.grad_input != nullptr && lnb::GroupKeepsRows(kRows, cols) &&
                      (kRows > 1 || lnb::KeepsRowAlone(cols, ElementSize(kData), args_.config.vendor));
    HWY_ALIGN float kept[2 * lnb::kKeptFloats];
    // Rows that pass 2 reads from L2 (not kept): pass 1 fetches the first half of the next rows and
    // pass 2 the second, at half the pace each (FetchNextHalf says which half), rather than pass 2
    // all of them; memory then streams through both passes instead of idling through pass 1. Two
    // threads, alternating builds call by call, every call from cold caches, medians: (4096, 4096)
    // FLOAT 9.18 -> 7.52 ms (16 of 16 pairs; L3 warm), FLOAT16 4.85 -> 4.39 (14 of 20), BF16 5.04
    // -> 4.63 (16 of 20); (16384, 5120) FLOAT 46.4 -> 36.5 (8 of 8; L3 warm), FLOAT16 36.7 ->
    // 33.2 and BF16 22.4 -> 20.7 (9 of 10 each); (1024, 32768) FLOAT 21.8 -> 18.5 (14 of 16; L3
    // warm). Not BF16 below AVX-512 (kBf16BelowAvx512).
    const bool split_fetch = !kBf16BelowAvx512 && rows.grad_input != nullptr && !keep && fetches_next_rows_;
    const lnb::RowBlock *const first_halves = split_fetch ? &next : nullptr;
    if (keep) {
      Sums<kRows, true>(m, rows, 0, cols, sum_g, sum_gx, kept, kept_cols);  // one segment: cols <= lnb::kKeptFloats
    } else {
      Sums<kRows>(m, rows, 0, cols < lnb::kSegmentCols ? cols : lnb::kSegmentCols, sum_g, sum_gx, nullptr, 0, first_halves);
      for (int64_t c0 = lnb::kSegmentCols; c0 < cols; c0 += lnb::kSegmentCols) {
        Sums<kRows>(m, rows, c0, lnb::SegmentEnd(cols, c0), segment_g, segment_gx, nullptr, 0, first_halves);
        for (int r = 0; r < kRows; ++r) FoldSegment(sum_g[r], sum_gx[r], segment_g[r], segment_gx[r]);
      }
    }
    if (rows.grad_input == nullptr) return;
    float row_means[kRows][2];
    for (int r = 0; r < kRows; ++r) {
      row_means[r][0] = SumBlockLanes(sum_g[r]) / static_cast<float>(cols);
      row_means[r][1] = SumBlockLanes(sum_gx[r]) / static_cast<float>(cols);
    }
    if (!keep && !kBf16BelowAvx512) {
      const bool rows_in_turn = kHalfGroups<kRows> && lnb::TakesGroupRowsInTurn(cols * static_cast<int64_t>(ElementSize(kData)));
      GradInput<kRows>(m, rows, 0, cols, row_means, stream, next, nullptr, 0, split_fetch, rows_in_turn);
      return;
    }
    // Row by row: (64, 256) FLOAT, in cache, took 10.0 us against 8.6 with the rows' kept blocks
    // interleaved (6 of 200 calls faster).
    for (int r = 0; r < kRows; ++r) {
      GradInput<1>(m + r, rows.Skip(r), 0, cols, row_means + r, stream, next.Skip(r), keep ? kept + 2 * r * kept_cols : nullptr,
                   kept_cols);
    }
  }

 private:
  // Row r's share, at column n, of fetching the next kRows rows (next_go and next_x, a row each)
  // half in pass 1 and half in pass 2 (Rows' split fetch), a line of them for every two lines of
  // these rows (rows_in_turn: the pass takes them in turn, else a line of each at a time). Groups
  // of 4 FLOAT rows fetch the first two rows, then the last two (FetchHalfGroup): in dense memory
  // two streams of lines in order, where halves of each row (FetchHalfRow, the other rows) make
  // eight. Zen 5, two threads, alternating builds call by call, against halves of each row,
  // medians: (4096, 4096) 4.50 -> 4.28 ms next to slow triads (47 of 50 pairs), 3.14 -> 3.07 next
  // to fast ones (36 of 50), one thread 6.53 -> 6.24 (11 of 12); (16384, 5120) 15.4 -> 15.0 (42 of
  // 48); (2048, 16384) 6.5 -> 5.5 (48 of 48). Groups of 2 keep halves of each row; fetched as
  // groups they measured: FLOAT (1024, 32768) faster next to slow triads (10 and 8 of 12 pairs)
  // and slower next to fast ones (2 and 1 of 12); BF16 (4096, 4096) slower (3 of 10), (16384,
  // 5120) too (1 of 10); FLOAT16 (4096, 4096) even (5 of 12). row_bytes: a row's bytes, taken by
  // the caller into a local: read here through args_, GCC loaded args_ and its cols again for
  // every line fetched. Zen 4, two threads, alternating builds call by call, both orders: (8192,
  // 768) FLOAT 2.07 -> 1.87 and 1.94 -> 1.68 ms medians (20 of 24 pairs faster), (32768, 1024)
  // FLOAT 8 of 8 the one order; BF16 (8192, 768) even (11 of 24), FLOAT16 (4096, 4096) 5 of 10.
  template <int kRows>
  HWY_INLINE void FetchNextHalf(const char *const *next_go, const char *const *next_x, int r, int64_t n, int64_t row_bytes,
                                bool second_half, bool rows_in_turn, bool into_l2) const {
    constexpr int64_t kSize = static_cast<int64_t>(ElementSize(kData));
    const int64_t byte = n * kSize;
    if constexpr (kHalfGroups<kRows>) {
      if (byte % 64 != 0) return;
      const int64_t row_lines = row_bytes / 64, line = byte / 64;
      const int64_t visit = rows_in_turn ? r * row_lines + line : line * kRows + r;
      FetchHalfGroup(next_go, kRows, row_lines, visit, second_half, into_l2);
      FetchHalfGroup(next_x, kRows, row_lines, visit, second_half, into_l2);
    } else {
      FetchHalfRow(next_go[r], row_bytes, byte, second_half, into_l2);
      FetchHalfRow(next_x[r], row_bytes, byte, second_half, into_l2);
    }
  }

  const LayerNormBackwardArgs &args_;
  float *weight_partials_;
  float *bias_partials_;
  bool fetches_next_rows_;  // lnb::FetchesNextRows for the call
};

// Rows passed through pass 1 together: as many as 4 vectors of lanes (a target's registers
// hold their sums), or half as many where those would exceed LongRowGroupBytes. Where one row's
// pass 1 (two rows, the weight and two rows of partials, float32) already overflows L1, which a
// group would otherwise push short rows out of. And rows whose arithmetic, not memory, bounds
// them, where a group loads and stores each block of the weight and the column partials once for
// its rows: 16-bit rows of up to 192 columns, and rows of up to 2 KiB whose call is in cache
// (RowsInCache: its three row operands take at most 512 KiB), there as many as keep their rows
// for pass 2 (lnb::kKeptFloats: 16-bit rows of more than 512 columns 2 at a time on AVX-512, where
// groups of 4 read theirs again; thirty-fifth session, one thread, alternating builds call by
// call, both orders: (64, 768) BF16 14.0 -> 11.8 us medians (99 and 99 % of 2,000 pairs), (96,
// 640) BF16 17.8 -> 14.5 (97 and 99 %), (80, 1024) FLOAT16 47.4 -> 43.3 (72 and 71 %)).
// Measured, two threads, alternating call by call with rows one at a time: (262144, 128) BF16
// 9.61 -> 8.87 ms (19 of 20 pairs), FLOAT16 8.33 -> 7.70 (17 of 20), (131072, 256) BF16 7.74 ->
// 7.61 (14 of 20); in cache (fifth session of 2026-12-03) (64, 256) FLOAT 7.1 -> 6.5 us (2,842
// of 3,000), (128, 512) BF16 22.2 -> 19.3 us (984 of 1,000), (2048, 1024) FLOAT16 628 -> 615 us
// (692 of 1,000), (8192, 128) FLOAT 730 -> 698 us (367 of 600). Rows from memory measured
// slower grouped: FLOAT rows of 128 and 256 columns much slower ((131072, 256) 10.4 -> 17.7 ms;
// (16384, 128), 8 MiB an operand, 1.45 -> 1.76 ms), 16-bit rows of 512 (6.38 -> 6.96 ms); and
// in cache FLOAT rows of 1024 columns ((64, 1024) 23.2 -> 24.2 us). On AVX2 (groups of 2) the
// cached rows measured even. Until the thirty-fifth session the cached rows were those of calls
// whose operands took up to 4 MiB each: from memory such groups read at about half the speed of
// rows one at a time (a group's pass 1 reads its rows a block of each in turn, likely a pattern
// the hardware's prefetchers do not follow as they follow one row after another; software
// fetches one to three groups ahead, or half a group in each pass, measured no better). Zen 4, one thread, alternating builds
// call by call, every call from cold caches, medians: (2048, 512) FLOAT 1000 -> 494 us, (4096,
// 256) FLOAT 1221 -> 582, (2048, 768) BF16 954 -> 591, (1024, 768) BF16 490 -> 326, (256, 768)
// BF16 169 -> 125; warm (back to back) one thread mixed ((512, 512) FLOAT 79 -> 74 us, (1024,
// 256) FLOAT 77 -> 83, (1024, 768) BF16 224 -> 228) and two threads even. The same session
// measured 16-bit rows of 256 columns (until then grouped) faster one at a time, two threads, both
// orders: (16384, 256) BF16 1317 -> 1059 us (16 and 15 of 16 pairs), (131072, 256) BF16 8.27 ->
// 7.80 ms (11 and 15 of 16), (65536, 256) FLOAT16 10 and 14 of 16, (32768, 256) FLOAT16 2051 ->
// 1826 us (13 and 15 of 16), 224 columns too ((65536, 224) BF16 12 and 10 of 16); 192 and 128
// columns stay grouped ((65536, 192) BF16 alone 5 and 3 of 16; (262144, 128) BF16 3 and 0 of 12).
constexpr int kGroupRows = kBlockVecs <= 4 ? static_cast<int>(4 / kBlockVecs) : 1;

// The most bytes of gradOut and input rows that go through pass 1 together when the rows are too
// long for L1: pass 2 reads them again, from L2 or, what has left it, from L3, while the weight,
// the column partials and the next rows' first halves (Rows' split fetch) share that L2. Two
// threads, alternating call by call: on AMD's Zen 4 (1 MiB L2, a victim L3; before the split
// fetch) groups of 4 FLOAT rows of 128 KiB (1 MiB) against none 13.8-16.2 -> 12.0-12.8 ms for
// (1024, 32768); on an Intel Xeon (Emerald Rapids, 2 MiB L2, a mesh L3; tenth session,
// 2026-12-04) those groups were slower than none (medians 23.5 -> 20.3 ms ungrouped, 11 of 12
// pairs) and groups of 2 rows (512 KiB) faster than groups of 4 (24.9 -> 21.6 ms, 11 of 12),
// while FLOAT (4096, 4096) and (16384, 5120) keep groups of 4 (128 and 160 KiB: groups of 2 were
// faster in 3 and 1 of 16 pairs). 16-bit rows on the Xeon in groups of 256 KiB (twelfth session,
// with pass 1 fetching half the next rows): (1024, 32768) FLOAT16 17.4 -> 14.9 ms (12 of 16
// pairs), BF16 11.3 -> 10.5 (15 of 16), every call from cold caches, against groups of 512 KiB
// without the split fetch. On AMD's Zen 5 (1 MiB L2; nineteenth session) the same sizes beat
// Zen 4's 1 MiB, which with the split fetch overflows its L2 (pass 2 then waits on its loads):
// (1024, 32768) FLOAT16 8.58 -> 5.68 ms medians, BF16 9.07 -> 6.62 (16 of 16 pairs each, either
// order), FLOAT 11.7 -> 11.1 (15 of 16; the other order 9 of 16).
inline int64_t LongRowGroupBytes(size_t element_size) {
  return element_size == sizeof(float) ? int64_t{512} << 10 : int64_t{256} << 10;
}

// The most rows in a group of long rows (those LongRowGroupBytes bounds). Zen 5 takes 2 16-bit
// rows where AVX-512 could take 4 (twenty-second session; in cache, one thread, (16, 4096) 0.148
// -> 0.140 ns an element, a group of 4's pass 2 keeps its rows' pointers on the stack). Two
// threads, alternating builds call by call, medians: FLOAT16 (4096, 4096) 1.57 -> 1.43 ms next to
// a fast triad (15 of 16 pairs), 2.20 -> 2.10 next to a slow one (14 of 16), (2048, 8192) 2.23 ->
// 2.11 (13 of 16); BF16 (4096, 4096) 1.66 -> 1.51 (10 of 12; slow: 14 of 16), (1024, 16384) 2.24
// -> 2.10 (15 of 16; 15 of 16 the other order); BF16 (2048, 8192), (8192, 2048) and (16384,
// 5120) even. FLOAT rows gained next to slow triads ((4096, 4096) 4.49 -> 4.37 ms, 16 of 16) but
// not next to fast ones, where the targets are missed ((4096, 4096) 34 of 70 pairs in seven runs,
// (16384, 5120) 16.0 -> 17.6 ms, 2 of 12), and keep 4. A group of 4 whose pass 2 takes its rows
// two at a time measured slower than groups of 2 for 16-bit rows (11-19 of 20 pairs for groups of
// 2 in 20 runs). The Xeon measured groups of 4 faster (LongRowGroupBytes); other CPUs keep them.
inline int LongRowGroupLimit(size_t element_size, CacheVendor vendor) {
  return vendor == CacheVendor::kAmdZen5 && element_size < sizeof(float) ? 2 : 4;
}

// The bytes one row's pass 1 may take (two rows, the weight and two rows of partials, as float32)
// for the row to go through it alone rather than in a group: 32 KiB, Zen 4's L1; Zen 5 uses its
// 48 KiB (twenty-second session). Two threads, alternating builds call by call, medians, rows
// alone against groups (of 4 FLOAT rows, of 2 16-bit ones), either order: FLOAT (8192, 2048) 4.69
// -> 4.28 ms (37 of 40 pairs over four runs; next to fast triads 3.27 -> 2.72, 10 of 10), (8192,
// 2304) 5.10 -> 4.76 (38 of 40); BF16 (8192, 2560) 2.85 -> 2.76 (28 of 40), (8192, 3072) 26 of
// 40; FLOAT16 (8192, 3072) even (21 of 40). Other CPUs keep 32 KiB, unmeasured.
inline int64_t RowAloneL1Bytes(CacheVendor vendor) {
  return vendor == CacheVendor::kAmdZen5 ? int64_t{48} << 10 : int64_t{32} << 10;
}

// How many rows after a row taken alone (GroupRows 1) begin the rows it fetches (Rows' split
// fetch), on Zen 5: 2 for rows of up to 4 KiB an operand that lie apart in memory (a view's rows
// at a stride, which the hardware's prefetcher does not follow from row to row) and for 16-bit
// rows of 1 to 3 KiB that follow one another; else 1, the next row. Other CPUs keep 1, unmeasured.
// Twenty-sixth session, two threads, alternating builds call by call, medians, pairs faster with 2
// (next to slow triads, 41-50 GB/s, unless said):
// - dense: (32768, 1024) FLOAT16 3.77 -> 3.55 ms (28 of 32) and 3.72 -> 3.66 (36 of 48), BF16
//   3.75 -> 3.65 (39 of 56) and 3.72 -> 3.59 (43 of 48), and where the triad fell from fast (67-73
//   GB/s) to slow FLOAT16 3.14 -> 2.86 and BF16 3.13 -> 2.86 (8 of 8 each); (16384, 1536) BF16
//   2.95 -> 2.90 (32 of 48); (8192, 768) FLOAT16 40 of 64 and 29 of 48, BF16 40 of 64 and 24 of 48
//   (medians 0-4 % faster); (16384, 512) FLOAT16 22 of 32; heads of 1,024 columns ((98304, 1024)
//   BF16 in runs of 12 rows) 9.86 -> 9.34 (17 of 18);
// - sequence-first views ([16, 512, N] over [512, 16, N] memory): (8192, 768) BF16 0.75 -> 0.63 ms
//   (22 of 24), FLOAT16 0.79 -> 0.70 (21 of 24), FLOAT 1.49 -> 1.37 (20 of 24), (8192, 256) FLOAT
//   0.78 -> 0.68 (23 of 24), (8192, 1024) FLOAT 1.45 -> 1.39 (19 of 24), (8192, 2048) BF16 1.53 ->
//   1.49 (22 of 24);
// - padded rows, (8192, 768) FLOAT, the benchmark with the builds before and after in turn, next
//   to fast triads: 1.20, 1.17 -> 0.95, 0.94 ms (0.86 -> 0.99-1.02 x triad).
// Not kept: dense 16-bit rows of 4 KiB (4 of 32 pairs, FLOAT16 and BF16) and dense FLOAT rows of
// 2 to 4 KiB (14 of 32, 24 of 40, 21 of 40); sequence-first rows of 6 KiB (FLOAT16, 7 of 24) and 8
// KiB (FLOAT, 4 of 24); 3 rows ahead (dense (8192, 768) FLOAT16 22 of 40; sequence-first FLOAT 10
// of 24, BF16 22 of 24 against 1, as 2 did) or 4 (dense FLOAT16 14 of 32); short rows in groups two
// groups ahead ((262144, 128) FLOAT16 25 of 64).
inline int64_t RowsAloneFetchAhead(int64_t row_bytes, size_t element_size, bool rows_follow, CacheVendor vendor) {
  constexpr int64_t kApartMostBytes = 4096, kFollowingLeastBytes = 1024, kFollowingMostBytes = 3072;
  if (vendor != CacheVendor::kAmdZen5) return 1;
  if (!rows_follow) return row_bytes <= kApartMostBytes ? 2 : 1;
  const bool short_16bit = element_size < sizeof(float) && row_bytes >= kFollowingLeastBytes && row_bytes <= kFollowingMostBytes;
  return short_16bit ? 2 : 1;
}

// Rows per group in pass 1 (1: one at a time).
inline int GroupRows(int64_t rows, int64_t cols, size_t element_size, CacheVendor vendor) {
  constexpr int64_t kShort16BitCols = 192;
  constexpr int64_t kCachedRowBytes = 2048;
  const int64_t row_bytes = cols * static_cast<int64_t>(element_size);
  if (element_size < sizeof(float) && cols <= kShort16BitCols) return kGroupRows;
  if (row_bytes <= kCachedRowBytes && lnb::CallInCache(rows, cols, element_size)) {
    int group = kGroupRows;  // as many as still keep their rows
    while (group > 1 && !lnb::GroupKeepsRows(group, cols)) group /= 2;
    return group;
  }
  if (2 * row_bytes + 3 * cols * static_cast<int64_t>(sizeof(float)) <= RowAloneL1Bytes(vendor)) return 1;
  int group = std::min(kGroupRows, LongRowGroupLimit(element_size, vendor));
  while (group > 1 && 2 * group * row_bytes > LongRowGroupBytes(element_size)) group /= 2;
  return group;
}

// Rows [begin, end), row begin the first of `rows`; in groups of group_rows (GroupRows), the
// rest one by one. fetch_ahead: fetch, during their passes, the rows that begin this many rows
// after a group's first (a group's size at least; RowsAloneFetchAhead) or those that end the rows,
// the last rows the first of `following`, where the rows after end lie; 0: fetch none (rows in a
// staged tile). `ahead` (where not nullptr) takes a row of later runs with each row.
// Against fetching their own rows again, alternating builds call by call (bench/ab_builds
// ... heads batches=12): (98304, 64) BF16 4.60 -> 3.78 ms (29 of 30 pairs), FLOAT 4.75 -> 4.57
// (21 of 30); dense and long runs even.
template <ElementType kData, bool kHasWeight, bool kColumnSums>
void RunRows(const RowPasses<kData, kHasWeight, kColumnSums> &passes, int64_t begin, int64_t end, const lnb::RowBlock &rows,
             int group_rows, bool stream, int64_t fetch_ahead, const lnb::RowBlock &following, RowsAhead<lnb::DirectRuns> *ahead) {
  auto at = [&](int64_t m) { return rows.Skip(m - begin); };
  // What rows m, m + 1, ... fetch: `count` rows from fetch_ahead (at least count) rows on, those
  // that end the rows where fewer are left, or the rows that follow.
  auto next = [&](int64_t m, int64_t count) {
    if (fetch_ahead == 0) return at(m);
    if (m + count >= end) return following.FirstRow();
    return at(std::min(m + std::max(count, fetch_ahead), end - count));
  };
  int64_t m = begin;
  auto groups_of = [&](auto rows_tag) {
    constexpr int kRows = decltype(rows_tag)::value;
    for (; m + kRows <= end; m += kRows) {
      if (ahead != nullptr) ahead->Fetch(kRows);
      passes.template Rows<kRows>(m, at(m), stream, next(m, kRows));
    }
  };
  if constexpr (kGroupRows >= 4) {
    if (group_rows == 4) groups_of(std::integral_constant<int, 4>());
  }
  if constexpr (kGroupRows >= 2) {
    if (group_rows == 2) groups_of(std::integral_constant<int, 2>());
  }
  for (; m < end; ++m) {
    if (ahead != nullptr) ahead->Fetch(1);
    passes.template Rows<1>(m, at(m), stream, next(m, 1));
  }
}

// Rows [row_begin, row_end) of one chunk, in order.
template <ElementType kData, bool kHasWeight, bool kColumnSums>
void RunChunk(const LayerNormBackwardArgs &args, const lnb::Task &task) {
  const int64_t cols = args.cols;
  const int64_t row_bytes = cols * static_cast<int64_t>(ElementSize(kData));
  if (kColumnSums) lnb::ClearChunkPartials(task.partials, cols);
  const RowPasses<kData, kHasWeight, kColumnSums> passes(args, task.partials);
  const int group_rows = GroupRows(args.rows, cols, ElementSize(kData), args.config.vendor);

  // Rows run in order, in runs that lie within one batch of every operand used in place (grouping
  // never changes the sums, so neither do the runs' ends).
  if (task.thread_scratch == nullptr) {
    // Each run's end and rows are found once: as the run that follows one, then as the run.
    int64_t begin = task.row_begin, end = lnb::DirectRowsEnd(args, begin, task.row_end);
    lnb::RowBlock rows = lnb::DirectRows(args, begin);
    const bool rows_follow = rows.grad_out_step == row_bytes && rows.input_step == row_bytes;
    const int64_t fetch_ahead = RowsAloneFetchAhead(row_bytes, ElementSize(kData), rows_follow, args.config.vendor);
    // Short runs have later runs' rows fetched as they go.
    RowsAhead<lnb::DirectRuns> ahead({&args}, begin, task.row_end, row_bytes);
    while (begin < task.row_end) {
      const bool last = end == task.row_end;
      const int64_t next_end = last ? end : lnb::DirectRowsEnd(args, end, task.row_end);
      const lnb::RowBlock following = last ? rows.Skip(end - 1 - begin) : lnb::DirectRows(args, end);
      RunRows(passes, begin, end, rows, group_rows, task.stream, fetch_ahead, following, &ahead);
      begin = end;
      end = next_end;
      rows = following;
    }
  } else {
    // Blocks of rows staged into this thread's tiles while they stay in cache; the rows still
    // run in order, so the sums are the same as without staging.
    const int64_t tile_rows = lnb::TileRows(args.rows, cols, ElementSize(kData), args.staged_row_multiple);
    const size_t tile_bytes = lnb::TileBytes(args.rows, cols, ElementSize(kData), args.staged_row_multiple);
    char *const go_tile = task.thread_scratch, *const x_tile = go_tile + tile_bytes, *const grad_input_tile = x_tile + tile_bytes;
    for (int64_t begin = task.row_begin, end; begin < task.row_end; begin = end) {
      end = lnb::DirectRowsEnd(args, begin, begin + tile_rows < task.row_end ? begin + tile_rows : task.row_end);
      lnb::RowBlock rows = lnb::DirectRows(args, begin);
      if (args.grad_out_rows.move != nullptr) {
        args.grad_out_rows.move(args.grad_out_rows.context, begin, end, go_tile);
        rows.grad_out = go_tile;
        rows.grad_out_step = row_bytes;
      }
      if (args.input_rows.move != nullptr) {
        args.input_rows.move(args.input_rows.context, begin, end, x_tile);
        rows.input = x_tile;
        rows.input_step = row_bytes;
      }
      if (args.grad_input_rows.move != nullptr) {
        rows.grad_input = grad_input_tile;
        rows.grad_input_step = row_bytes;
      }
      RunRows(passes, begin, end, rows, group_rows, false, 0, rows, nullptr);
      if (args.grad_input_rows.move != nullptr) args.grad_input_rows.move(args.grad_input_rows.context, begin, end, grad_input_tile);
    }
  }
  if (task.stream) hwy::FlushStream();  // make the non-temporal stores visible
}

// One segment of row task.row_begin (a long row whose segments threads share): pass 1 into
// task.lanes, or pass 2 with the row's folded sums.
template <ElementType kData, bool kHasWeight, bool kColumnSums>
void RunSegment(const LayerNormBackwardArgs &args, const lnb::Task &task) {
  const int64_t m = task.row_begin;
  const lnb::RowBlock row = lnb::DirectRows(args, m);
  const int64_t c1 = lnb::SegmentEnd(args.cols, task.col_begin);
  const RowPasses<kData, kHasWeight, kColumnSums> passes(args, task.partials);
  if (task.kind == lnb::Task::Kind::kSegmentSums) {
    passes.Sums(m, row.grad_out, row.input, task.col_begin, c1, task.lanes, task.lanes + kBlockLanes);
    return;
  }
  const lnb::RowBlock next = m + 1 < args.rows ? lnb::DirectRows(args, m + 1) : row;
  const float means[1][2] = {{task.mean_g, task.mean_gx}};
  passes.template GradInput<1>(m, row, task.col_begin, c1, means, task.stream, next);
  if (task.stream) hwy::FlushStream();
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// A square of 16 x 16 16-bit elements transposed in eight 512-bit vectors, two rows a vector, so
// that pass 1 adds its rows straight from registers (gradOut's and input's squares take 16 of
// the 32) rather than through the tiles, whose stores and loads the memory's stream hid less
// well. Vector j holds, 128-bit block by block, the square's columns j and 8 + j: its block 0
// column j's first 8 elements, block 2 their other 8; blocks 1 and 3 likewise column 8 + j.
struct WordSquare {
  hn::Vec<hn::Full512<uint16_t>> columns[8];
};

// The 16 x 16 square at src (rows stride elements apart): rows r and r + 8 in one vector, each
// block then transposed as 8 x 8.
HWY_INLINE void LoadWordSquare(const uint16_t *src, int64_t stride, WordSquare *square) {
  const hn::Full512<uint16_t> d;
  const hn::Full256<uint16_t> d_half;
  hn::Vec<decltype(d)> rows[8];
  for (int64_t r = 0; r < 8; ++r) rows[r] = hn::Combine(d, hn::LoadU(d_half, src + (r + 8) * stride), hn::LoadU(d_half, src + r * stride));
  TransposeWithinBlocks(d, rows, square->columns);
}

// The two 16 x 16 squares side by side at src (rows stride elements apart, 64 bytes of each): each
// row's line loaded once, its halves going to the two squares.
HWY_INLINE void LoadWordSquarePair(const uint16_t *src, int64_t stride, WordSquare *pair) {
  const hn::Full512<uint16_t> d;
  hn::Vec<decltype(d)> lines[16], first[8], second[8];
  for (int64_t r = 0; r < 16; ++r) lines[r] = hn::LoadU(d, src + r * stride);
  for (int64_t r = 0; r < 8; ++r) {
    first[r] = hn::ConcatLowerLower(d, lines[r + 8], lines[r]);
    second[r] = hn::ConcatUpperUpper(d, lines[r + 8], lines[r]);
  }
  TransposeWithinBlocks(d, first, pair[0].columns);
  TransposeWithinBlocks(d, second, pair[1].columns);
}

// Column k of the square (row k of the transposed one) as floats, the same bits as LoadBlock of
// it from memory: one word permutation gathers its 16 elements (element i: from block 0 for k < 8,
// block 1 for k >= 8, for i < 8; blocks 2 and 3 for i >= 8), for BF16 into the high halves of
// 32-bit lanes (the low halves zeroed), for FLOAT16 into the low 256 bits, widened by F16C.
template <ElementType T>
HWY_INLINE BlockVec SquareColumnAsFloat(const WordSquare &square, int64_t k) {
  const __m512i column = square.columns[k % 8].raw;
  if constexpr (T == ElementType::kBFloat16) {
    const __m512i source = k < 8 ? _mm512_set_epi16(23, 23, 22, 22, 21, 21, 20, 20, 19, 19, 18, 18, 17, 17, 16, 16, 7, 7, 6, 6, 5, 5, 4, 4,
                                                    3, 3, 2, 2, 1, 1, 0, 0)
                                 : _mm512_set_epi16(31, 31, 30, 30, 29, 29, 28, 28, 27, 27, 26, 26, 25, 25, 24, 24, 15, 15, 14, 14, 13,
                                                    13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8);
    return Bf16WordsToFloat(column, source);
  } else {
    static_assert(T == ElementType::kFloat16, "16-bit elements");
    const __m512i source = k < 8 ? _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23, 22, 21, 20, 19, 18, 17, 16, 7, 6,
                                                    5, 4, 3, 2, 1, 0)
                                 : _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 31, 30, 29, 28, 27, 26, 25, 24, 15, 14,
                                                    13, 12, 11, 10, 9, 8);
    return BlockVec{_mm512_cvtph_ps(_mm512_castsi512_si256(_mm512_permutexvar_epi16(source, column)))};
  }
}

// A square of 16 x 16 FLOAT elements transposed in sixteen 512-bit vectors: columns[k] is the
// square's column k, so that pass 1 adds its rows straight from registers, as WordSquare does for
// 16-bit ones, rather than through the tiles (8 x 8 squares of 256 bits stored and loaded again).
struct FloatSquare {
  BlockVec columns[16];
};

// Half `half` of the 16 x 16 square at src (rows stride elements apart, a 64-byte line each): its
// columns half * 8 .. half * 8 + 8, from eight vectors of two rows' halves, r and r + 4, whose
// 128-bit blocks are then transposed as 4 x 4: block 0 of vector j holds column j of rows 0-3 (of
// the group of eight rows), block 1 column 4 + j, blocks 2 and 3 the same of rows 4-7; one block
// shuffle of the two groups' vectors j puts a whole column's 16 rows in order.
HWY_INLINE void LoadFloatHalfSquare(const float *src, int64_t stride, int64_t half, BlockVec *columns) {
  const hn::Full512<float> d;
  const hn::Full256<float> d_half;
  auto row_pair = [&](int64_t r) HWY_ATTR __attribute__((always_inline)) {
    return hn::Combine(d, hn::LoadU(d_half, src + (r + 4) * stride + half * 8), hn::LoadU(d_half, src + r * stride + half * 8));
  };
  hn::Vec<decltype(d)> upper_rows[4], lower_rows[4], upper[4], lower[4];  // rows 0-7, rows 8-15
  for (int64_t r = 0; r < 4; ++r) {
    upper_rows[r] = row_pair(r);
    lower_rows[r] = row_pair(r + 8);
  }
  TransposeWithinBlocks(d, upper_rows, upper);
  TransposeWithinBlocks(d, lower_rows, lower);
  for (int64_t j = 0; j < 4; ++j) {
    columns[j] = BlockVec{_mm512_shuffle_f32x4(upper[j].raw, lower[j].raw, _MM_SHUFFLE(2, 0, 2, 0))};
    columns[4 + j] = BlockVec{_mm512_shuffle_f32x4(upper[j].raw, lower[j].raw, _MM_SHUFFLE(3, 1, 3, 1))};
  }
}

// The whole square at src, half by half.
HWY_INLINE void LoadFloatSquare(const float *src, int64_t stride, FloatSquare *square) {
  LoadFloatHalfSquare(src, stride, 0, square->columns);
  LoadFloatHalfSquare(src, stride, 1, square->columns + 8);
}
#endif

// Pass 1's runs fetched into L2 one group of 16 columns ahead: while pass 1 works on the 16
// columns from n0 on, the next 16 columns' runs, each whole run in turn, a line of gradOut and one
// of input with every FLOAT row pass 1 adds, every second 16-bit one (RunColumnRows'
// kRowsPerFetchedLine: as many lines as pass 1 reads meanwhile), rather than the next piece's 64
// lines of each at once before its transposition, whose loads then queued behind them (a core
// holds only so many misses in flight; twenty-first session, Zen 5: (8192, 768) FLOAT transposed
// 3.00 -> 2.15 ms, (4096, 4096) BF16 6.23 -> 4.90). Until the fortieth session the fetch ran two
// pieces (256 bytes of each of the 16 columns) ahead, four lines of a column before the next
// column's; a column's whole run in turn keeps each burst of fetches within one stretch of memory.
// (A variant of MemoryFloor's two_pass_columns with pass 1 in this order, run outside the repo,
// moved its bytes 7-12 % faster so: docs/PERFORMANCE.md, fortieth session; the figures below are
// the repo's bench/ab_builds.) Zen 5, two threads, alternating builds call by call from cold
// caches, medians: (4096, 4096) BF16 transposed 3.72 -> 3.46 ms (15 of 16 pairs; the other order
// 13 of 16), (8192, 768) FLOAT transposed 2.15 -> 1.98 (12 of 12; 9 of 12), NCHW memory (32, 3136,
// 128) BF16 3.21 -> 3.04 (6 of 8; 6 of 8), FLOAT even (4 of 8; 4 of 8), (4096, 4096) FLOAT16
// even (5 and 4 of 10), (256, 4096) from L3 FLOAT 85 and 92 of 100, BF16 76 and 81 of 100; one
// thread (4096, 4096) BF16 6.05 -> 5.31 ms (6 of 6; 6 of 6). In cache ((1024, 1024) BF16, warm)
// even in one run (104 of 200 pairs) and 3 % slower in another (28 of 200).
class ColumnRunFetch {
 public:
  ColumnRunFetch(const char *grad_out, int64_t grad_out_column_bytes, const char *input, int64_t input_column_bytes,
                 int64_t cols, int64_t run_bytes)
      : grad_out_(grad_out), input_(input), grad_out_column_bytes_(grad_out_column_bytes),
        input_column_bytes_(input_column_bytes), cols_(cols), run_bytes_(run_bytes) {
    NextGroup();  // the first group's runs come as pass 1 reads them
  }

  // One line of each operand of the group being fetched, if any is left.
  HWY_INLINE void Line() {
    if (column_ >= column_end_) return;
    FetchForReading(grad_out_ + column_ * grad_out_column_bytes_ + byte_, true);
    FetchForReading(input_ + column_ * input_column_bytes_ + byte_, true);
    byte_ += 64;
    if (byte_ >= run_bytes_) {
      byte_ = 0;
      ++column_;
    }
  }

  // Pass 1 is done with a group: the rest of the next one's lines, then the group after it is the
  // one to fetch.
  void FinishGroup() {
    while (column_ < column_end_) Line();
    NextGroup();
  }

 private:
  void NextGroup() {
    first_column_ += kBlockLanes;
    column_ = first_column_;
    column_end_ = std::min(first_column_ + kBlockLanes, cols_);
    byte_ = 0;
  }

  const char *grad_out_, *input_;
  int64_t grad_out_column_bytes_, input_column_bytes_, cols_, run_bytes_;
  int64_t first_column_ = 0;                     // the group being fetched
  int64_t column_ = 0, column_end_ = 0, byte_ = 0;  // its next line
};

// Rows [a, b) of one batch of operands in columns (lnb::InColumns), the first of them in chunk
// first_chunk, whose partials are at `partials`, with the same operations in the same order as
// rows in memory get (RowPasses): pass 1 moves 16 columns, a piece of their runs at a time, into
// the tiles, row after row of 16 lanes (the last block zero-padded as a row's is; AVX-512 takes
// squares of 16 rows from registers instead, WordSquare and FloatSquare), and adds each
// row's block to its lane sums, kept in scratch between blocks, and to the column partials of its
// chunk; pass 2 writes gradInput column by column, a line of its rows at a time.
template <ElementType kData, bool kHasWeight, bool kColumnSums>
void RunColumnRows(const LayerNormBackwardArgs &args, int64_t a, int64_t b, int64_t first_chunk, float *partials,
                   const lnb::ColumnScratch scratch, bool stream, int64_t next_a, int64_t next_b) {  // a copy: stores cannot alias its pointers
  const BlockTag d;
  const int64_t cols = args.cols, count = b - a, rows_per_chunk = lnb::RowsPerChunk(args.rows);
  const int64_t size = static_cast<int64_t>(ElementSize(kData));
  const int64_t go_stride = args.grad_out_columns.col_stride, x_stride = args.input_columns.col_stride;
  const char *const go = static_cast<const char *>(args.grad_out) + ColumnRowOffset(args.grad_out_columns, a) * size;
  const char *const x = static_cast<const char *>(args.input) + ColumnRowOffset(args.input_columns, a) * size;
  const float *const weight = static_cast<const float *>(args.weight);
  const int64_t piece_rows = lnb::ColumnPieceRows(ElementSize(kData));
  ColumnRunFetch fetch(go, go_stride * size, x, x_stride * size, cols, count * size);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // 16-bit squares (WordSquare): columns a multiple of kCrowdingStrideBytes apart put a square's
  // 16 lines into at most 4 of L1's 64 sets (8 ways each), where gradOut's and input's 32 evict
  // each other before the square beside them comes back for the lines' other halves: there pairs
  // of squares take each line once (spilling some of their 32 vectors). Two threads, alternating
  // builds, against the tiles: (4096, 4096) BF16 transposed, 8 KiB apart, 5.87 -> 5.45 ms with
  // pairs (14 of 16 pairs) but 5.96 -> 6.41 with single squares (2 of 24); (4000, 4096), 8,000
  // bytes apart, 5.83 -> 5.54 with single squares (12 of 16), 6.35 -> 6.92 with pairs (6 of 16).
  // FLOAT squares (FloatSquare) read straight from crowded columns in halves took (8192, 768)
  // FLOAT transposed, 32 KiB apart, 2.45 -> 2.63-2.68 ms against the tiles, and loading each line
  // whole was even (11 of 24 pairs; thirty-seventh session), but the square pair of whole lines
  // did not fit the registers (GCC stored every line on the stack and read it back). There each
  // piece's runs are now copied into the scratch tiles, where they do not crowd, and pass 1 takes
  // half squares from there, both operands' halves in registers (fortieth session): one thread, in
  // cache, (1024, 768) FLOAT transposed 334.4 -> 296.8 us medians (99 of 100 pairs; the other order
  // 98 of 100); two threads from memory, (8192, 768), even (7, 10, 9, 9, 9 and 10 of 16 pairs in six
  // runs). Where the columns do not crowd, whole squares in halves straight from memory: one
  // thread, in cache, (1200, 1024) FLOAT transposed 514 -> 445 us against the tiles (198 of 200
  // pairs); two threads, NCHW memory (32, 3136, 128) 5.09 -> 4.71 ms (16 of 16); half squares
  // there, both operands' at a time, measured 402 -> 427 us in cache (5 of 100).
  constexpr int64_t kCrowdingStrideBytes = 1024;
  const bool crowded_sets = (go_stride * size) % kCrowdingStrideBytes == 0 || (x_stride * size) % kCrowdingStrideBytes == 0;
  const uint16_t *const go_words = reinterpret_cast<const uint16_t *>(go), *const x_words = reinterpret_cast<const uint16_t *>(x);
#endif
  // A group's runs hold 16 columns of count * size / 64 lines: one line of each operand per row
  // (FLOAT) or per two rows (16-bit) fetches the next group's over this group's rows.
  constexpr int64_t kRowsPerFetchedLine = 4 / static_cast<int64_t>(ElementSize(kData));
  for (int64_t i = 0; i < count; ++i) {
    scratch.mean[i] = static_cast<float>(LoadElement(args.mean, args.mean_type, a + i));
    scratch.rstd[i] = static_cast<float>(LoadElement(args.rstd, args.rstd_type, a + i));
  }
  const size_t lanes_bytes = static_cast<size_t>(count * lnb::kLanes) * sizeof(float);
  std::memset(scratch.sum_g, 0, lanes_bytes);
  std::memset(scratch.sum_gx, 0, lanes_bytes);

  for (int64_t n0 = 0; n0 < cols; n0 += kBlockLanes) {
    const int64_t width = std::min<int64_t>(kBlockLanes, cols - n0);
    const int64_t segment_begin = n0 / lnb::kSegmentCols * lnb::kSegmentCols;
    // The first segment's lanes sum into the row's; a later one's from zero, folded in at its end.
    float *const lanes_g = segment_begin == 0 ? scratch.sum_g : scratch.segment_g;
    float *const lanes_gx = segment_begin == 0 ? scratch.sum_gx : scratch.segment_gx;
    if (segment_begin > 0 && n0 == segment_begin) {
      std::memset(lanes_g, 0, lanes_bytes);
      std::memset(lanes_gx, 0, lanes_bytes);
    }
    if (width < kBlockLanes) {  // the tiles' columns from width on stay zero for every piece
      const size_t tile_bytes = static_cast<size_t>(std::min(piece_rows, count) * kBlockLanes * size);
      std::memset(scratch.grad_out_tile, 0, tile_bytes);
      std::memset(scratch.input_tile, 0, tile_bytes);
    }
    BlockVec w[kBlockVecs], pw[kBlockVecs], pb[kBlockVecs];
    if (kHasWeight) ReadBlock<ElementType::kFloat32>(weight, n0, cols, w);
    // The row that starts the next chunk, whose partials then take over.
    int64_t chunk = a / rows_per_chunk, next_chunk_row = a;
    float *chunk_weight = nullptr, *chunk_bias = nullptr;
    auto store_partials = [&]() HWY_ATTR __attribute__((always_inline)) {
      for (int64_t v = 0; v < kBlockVecs; ++v) {
        hn::StoreU(pw[v], d, chunk_weight + n0 + v * kBlockWidth);
        hn::StoreU(pb[v], d, chunk_bias + n0 + v * kBlockWidth);
      }
    };
    for (int64_t p0 = 0; p0 < count; p0 += piece_rows) {
      const int64_t p1 = std::min(p0 + piece_rows, count);
      // Row i's block (its 16 columns from n0 on) added to its lane sums and its chunk's partials.
      auto add_row = [&](int64_t i, const BlockVec *go_block, const BlockVec *x_block) HWY_ATTR __attribute__((always_inline)) {
        if (kColumnSums && a + i == next_chunk_row) {
          if (i > 0) {
            store_partials();
            ++chunk;
          }
          next_chunk_row = (chunk + 1) * rows_per_chunk;
          chunk_weight = lnb::ChunkPartials(partials, cols, chunk - first_chunk);
          chunk_bias = chunk_weight + lnb::PartialsStride(cols);
          for (int64_t v = 0; v < kBlockVecs; ++v) {
            pw[v] = hn::LoadU(d, chunk_weight + n0 + v * kBlockWidth);
            pb[v] = hn::LoadU(d, chunk_bias + n0 + v * kBlockWidth);
          }
        }
        if ((i - p0) % kRowsPerFetchedLine == 0) fetch.Line();
        const auto mean = hn::Set(d, scratch.mean[i]), rstd = hn::Set(d, scratch.rstd[i]);
        float *const row_g = lanes_g + i * kBlockLanes, *const row_gx = lanes_gx + i * kBlockLanes;
        for (int64_t v = 0; v < kBlockVecs; ++v) {
          auto sum_g = hn::LoadU(d, row_g + v * kBlockWidth), sum_gx = hn::LoadU(d, row_gx + v * kBlockWidth);
          AccumulateVector<kHasWeight, kColumnSums>(go_block[v], x_block[v], w[v], mean, rstd, &sum_g, &sum_gx, &pw[v], &pb[v]);
          hn::StoreU(sum_g, d, row_g + v * kBlockWidth);
          hn::StoreU(sum_gx, d, row_gx + v * kBlockWidth);
        }
      };
      int64_t i = p0;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      if constexpr (kData == ElementType::kFloat32) {
        if (width == kBlockLanes) {
          const float *const go_floats = reinterpret_cast<const float *>(go) + n0 * go_stride;
          const float *const x_floats = reinterpret_cast<const float *>(x) + n0 * x_stride;
          if (crowded_sets) {
            // The piece's 16 column runs (their whole squares' rows) copied into the tiles, one
            // after another (at most a piece's rows apart: in distinct sets), each line once; then
            // half squares from there, so that both operands' halves fit the registers.
            const int64_t tile_rows = (p1 - p0) / kBlockLanes * kBlockLanes;
            float *const go_tile = reinterpret_cast<float *>(scratch.grad_out_tile);
            float *const x_tile = reinterpret_cast<float *>(scratch.input_tile);
            const hn::Full512<float> d_line;
            for (int64_t c = 0; c < kBlockLanes; ++c) {
              for (int64_t r = 0; r < tile_rows; r += kBlockLanes) {
                hn::StoreU(hn::LoadU(d_line, go_floats + c * go_stride + p0 + r), d_line, go_tile + c * tile_rows + r);
                hn::StoreU(hn::LoadU(d_line, x_floats + c * x_stride + p0 + r), d_line, x_tile + c * tile_rows + r);
              }
            }
            for (; i < p0 + tile_rows; i += kBlockLanes) {
              for (int64_t half = 0; half < 2; ++half) {
                BlockVec go_columns[8], x_columns[8];
                LoadFloatHalfSquare(go_tile + i - p0, tile_rows, half, go_columns);
                LoadFloatHalfSquare(x_tile + i - p0, tile_rows, half, x_columns);
#pragma GCC unroll 8
                for (int64_t k = 0; k < 8; ++k) add_row(i + half * 8 + k, &go_columns[k], &x_columns[k]);
              }
            }
          }
          for (; i + kBlockLanes <= p1; i += kBlockLanes) {
            FloatSquare go_square, x_square;
            LoadFloatSquare(go_floats + i, go_stride, &go_square);
            LoadFloatSquare(x_floats + i, x_stride, &x_square);
#pragma GCC unroll 16
            for (int64_t k = 0; k < kBlockLanes; ++k) add_row(i + k, &go_square.columns[k], &x_square.columns[k]);
          }
        }
      } else {
        if (width == kBlockLanes) {
          // Rows first .. first + 16, the squares' columns.
          auto add_square = [&](int64_t first, const WordSquare &go_square, const WordSquare &x_square)
                                HWY_ATTR __attribute__((always_inline)) {
            // Unrolled, so that the squares' vectors are named by constants: GCC kept the loop and read
            // them back from the stack by a computed index. One thread, in cache, bench/ab_builds
            // both orders: (256, 512) BF16 transposed (single squares) 59.4 -> 55.3 us medians (91 %
            // of 3,000 pairs) and 87.4 -> 76.0 (95 %); (1024, 128) (pairs) 107.9 -> 93.1 (96 % of
            // 2,000) and 106.8 -> 92.1 (95 %).
#pragma GCC unroll 16
            for (int64_t k = 0; k < kBlockLanes; ++k) {
              const BlockVec go_block[1] = {SquareColumnAsFloat<kData>(go_square, k)}, x_block[1] = {SquareColumnAsFloat<kData>(x_square, k)};
              add_row(first + k, go_block, x_block);
            }
          };
          for (; crowded_sets && i + 2 * kBlockLanes <= p1; i += 2 * kBlockLanes) {
            WordSquare go_pair[2], x_pair[2];
            LoadWordSquarePair(go_words + n0 * go_stride + i, go_stride, go_pair);
            LoadWordSquarePair(x_words + n0 * x_stride + i, x_stride, x_pair);
            add_square(i, go_pair[0], x_pair[0]);
            add_square(i + kBlockLanes, go_pair[1], x_pair[1]);
          }
          for (; i + kBlockLanes <= p1; i += kBlockLanes) {
            WordSquare go_square, x_square;
            LoadWordSquare(go_words + n0 * go_stride + i, go_stride, &go_square);
            LoadWordSquare(x_words + n0 * x_stride + i, x_stride, &x_square);
            add_square(i, go_square, x_square);
          }
        }
      }
#endif
      if (i < p1) {  // rows no square covers, or every row where no square is transposed in registers
        Transpose(go + (n0 * go_stride + i) * size, go_stride, width, p1 - i, scratch.grad_out_tile, kBlockLanes,
                  ElementSize(kData), TransposeFar::kSource, args.config.isa);
        Transpose(x + (n0 * x_stride + i) * size, x_stride, width, p1 - i, scratch.input_tile, kBlockLanes, ElementSize(kData),
                  TransposeFar::kSource, args.config.isa);
        for (const int64_t first = i; i < p1; ++i) {
          BlockVec go_block[kBlockVecs], x_block[kBlockVecs];
          LoadBlock<kData>(scratch.grad_out_tile, (i - first) * kBlockLanes, go_block);
          LoadBlock<kData>(scratch.input_tile, (i - first) * kBlockLanes, x_block);
          add_row(i, go_block, x_block);
        }
      }
    }
    fetch.FinishGroup();
    if (kColumnSums) store_partials();
    if (segment_begin > 0 && n0 + kBlockLanes >= lnb::SegmentEnd(cols, segment_begin)) {
      for (int64_t i = 0; i < count; ++i) {
        BlockVec sum_g[kBlockVecs], sum_gx[kBlockVecs], segment_g[kBlockVecs], segment_gx[kBlockVecs];
        const int64_t at = i * kBlockLanes;
        LoadBlock<ElementType::kFloat32>(scratch.sum_g, at, sum_g);
        LoadBlock<ElementType::kFloat32>(scratch.sum_gx, at, sum_gx);
        LoadBlock<ElementType::kFloat32>(lanes_g, at, segment_g);
        LoadBlock<ElementType::kFloat32>(lanes_gx, at, segment_gx);
        FoldSegment(sum_g, sum_gx, segment_g, segment_gx);
        for (int64_t v = 0; v < kBlockVecs; ++v) {
          hn::StoreU(sum_g[v], d, scratch.sum_g + at + v * kBlockWidth);
          hn::StoreU(sum_gx[v], d, scratch.sum_gx + at + v * kBlockWidth);
        }
      }
    }
  }
  if (args.grad_input == nullptr) return;

  for (int64_t i = 0; i < count; ++i) {
    BlockVec sum[kBlockVecs];
    LoadBlock<ElementType::kFloat32>(scratch.sum_g, i * kBlockLanes, sum);
    scratch.mean_g[i] = SumBlockLanes(sum) / static_cast<float>(cols);
    LoadBlock<ElementType::kFloat32>(scratch.sum_gx, i * kBlockLanes, sum);
    scratch.rstd_mean_gx[i] = RstdMeanGx(scratch.rstd[i], SumBlockLanes(sum) / static_cast<float>(cols));
  }
  const int64_t gi_stride = args.grad_input_columns.col_stride;
  char *const gi = static_cast<char *>(args.grad_input) + ColumnRowOffset(args.grad_input_columns, a) * size;
  // Pass 2 reads each column's run again, from memory where the run's columns outgrow L2 (whose
  // sets power-of-two strides crowd): the run kFetchColumnsAhead columns on is fetched meanwhile, as
  // no prefetcher would fetch a short run's first lines, a line with each line of rows worked on.
  // Against the whole run 2 columns on fetched at each column's start (whose fetches waited on
  // full fill buffers), two threads, alternating builds call by call from cold caches, medians:
  // (8192, 768) FLOAT transposed 6.38 -> 5.64 ms (11 of 12 pairs), (4096, 4096) BF16 13.4 -> 12.2
  // (12 of 12) and 13.1 -> 12.0 (9 of 12), NCHW memory (32, 3136, 128) 8.97 -> 8.15 (8 of 10);
  // 1 to 4 columns ahead gained less.
  constexpr int64_t kFetchColumnsAhead = 8;
  // The next run's rows [next_a, next_b), up to this run's count of them, column by column with
  // this run's (lnb::FetchesNextColumnBlock).
  const int64_t next_count = std::min(next_b - next_a, count);
  const char *const next_go = static_cast<const char *>(args.grad_out) + ColumnRowOffset(args.grad_out_columns, next_a) * size;
  const char *const next_x = static_cast<const char *>(args.input) + ColumnRowOffset(args.input_columns, next_a) * size;
  for (int64_t n = 0; n < cols; ++n) {
    const char *const go_column = go + n * go_stride * size, *const x_column = x + n * x_stride * size;
    char *const gi_column = gi + n * gi_stride * size;
    const bool fetch = n + kFetchColumnsAhead < cols;
    const char *const fetch_go = fetch ? go_column + kFetchColumnsAhead * go_stride * size : nullptr;
    const char *const fetch_x = fetch ? x_column + kFetchColumnsAhead * x_stride * size : nullptr;
    // A FLOAT run that starts within a line of gradInput (chunks of rows that are no whole number
    // of lines: NCHW memory's (32, 3136, 128), 392 rows) writes its rows up to the next line with
    // ordinary stores (fewer than a block), so that the rest of it streams rather than the whole
    // run going through the caches. Pass 2 computes each element on its own: where its blocks
    // start changes no bit. Two threads, alternating builds call by call from cold caches, Zen 5:
    // (32, 3136, 128) FLOAT 6.04 -> 5.46 ms (8 of 10 pairs), 5.11 -> 4.58 (9 of 10), 5.06 -> 4.40
    // (10 of 10). 16-bit runs (a block half a line, written by two streaming stores) measured even
    // or slower so: BF16 3.83 -> 4.01 ms (2 of 10), (64, 3136, 256) 9.31 -> 9.36 (5 of 8).
    constexpr bool kBlockIsLine = LineBlocks(kData) == 1;
    const int64_t line_offset = lnb::LineOffset(gi_column);
    const int64_t head = kBlockIsLine && stream && line_offset % size == 0 ? std::min(count, lnb::ElementsToLine(line_offset, size)) : 0;
    const bool stream_column = stream && (line_offset + head * size) % 64 == 0;
    const auto w = hn::Set(d, kHasWeight ? weight[n] : 1.0f);
    // Rows i .. i + 16 * kBlocks of column n, those below end; whole: all of them. A line of 16-bit
    // gradInput (two blocks) is rounded and stored at once (StoreBlockPair), as dense rows' lines
    // are: one thread, in cache, alternating builds, against block by block, (256, 512) BF16
    // transposed 62.6 -> 59.8 us medians (96 % of 3,000 pairs) and 60.6 -> 57.7 (97 %).
    auto rows_blocks = [&](auto blocks_tag, int64_t i, int64_t end, bool whole) HWY_ATTR __attribute__((always_inline)) {
      constexpr int64_t kBlocks = decltype(blocks_tag)::value;
      BlockVec out[kBlocks][kBlockVecs];
      for (int64_t block = 0; block < kBlocks; ++block) {
        const int64_t at = i + block * kBlockLanes;
        BlockVec go_block[kBlockVecs], x_block[kBlockVecs], mean[kBlockVecs], rstd[kBlockVecs], mean_g[kBlockVecs],
            rstd_mean_gx[kBlockVecs];
        if (((at - head) * size) % 64 == 0) {  // a line of rows: one of each run fetched
          if (fetch) {
            FetchForReading(fetch_go + at * size, true);
            FetchForReading(fetch_x + at * size, true);
          }
          if (at < next_count) {
            FetchForReading(next_go + (n * go_stride + at) * size, true);
            FetchForReading(next_x + (n * x_stride + at) * size, true);
          }
        }
        ReadGradOutAndInput<kData>(go_column, x_column, at, end, whole, go_block, x_block);
        LoadBlock<ElementType::kFloat32>(scratch.mean, at, mean);
        LoadBlock<ElementType::kFloat32>(scratch.rstd, at, rstd);
        LoadBlock<ElementType::kFloat32>(scratch.mean_g, at, mean_g);
        LoadBlock<ElementType::kFloat32>(scratch.rstd_mean_gx, at, rstd_mean_gx);
        for (int64_t v = 0; v < kBlockVecs; ++v) {
          out[block][v] = GradInputVector<kHasWeight>(go_block[v], x_block[v], w, mean[v], rstd[v], mean_g[v], rstd_mean_gx[v]);
        }
      }
      if constexpr (kBlocks == 2) {
        StoreBlockPairStreamedIf<kData>(stream_column, out[0], out[1], gi_column, i);
      } else if (!whole) {
        WriteBlock<kData>(out[0], gi_column, i, end);
      } else {
        StoreBlockStreamedIf<kData>(stream_column, out[0], gi_column, i);
      }
    };
    using One = std::integral_constant<int64_t, 1>;
    using Line = std::integral_constant<int64_t, LineBlocks(kData)>;
    if (head > 0) rows_blocks(One(), 0, head, false);
    int64_t i = head;
    for (; i + Line::value * kBlockLanes <= count; i += Line::value * kBlockLanes) rows_blocks(Line(), i, count, true);
    for (; i + kBlockLanes <= count; i += kBlockLanes) rows_blocks(One(), i, count, true);
    if (i < count) rows_blocks(One(), i, count, false);
  }
  for (int64_t i = 0; i < count; ++i) {
    if (HWY_UNLIKELY(lnb::RowMayMakeNaN(scratch.rstd[i], scratch.mean_g[i], scratch.rstd_mean_gx[i]))) {
      CanonicalizeNaNs(gi + i * size, kData, cols, gi_stride);
    }
  }
}

// A block of whole chunks of operands in columns, batch by batch.
template <ElementType kData, bool kHasWeight, bool kColumnSums>
void RunColumns(const LayerNormBackwardArgs &args, const lnb::Task &task) {
  const int64_t rows_per_chunk = lnb::RowsPerChunk(args.rows), first_chunk = task.row_begin / rows_per_chunk;
  if (kColumnSums) {
    for (int64_t chunk = first_chunk; chunk * rows_per_chunk < task.row_end; ++chunk) {
      lnb::ClearChunkPartials(lnb::ChunkPartials(task.partials, args.cols, chunk - first_chunk), args.cols);
    }
  }
  const lnb::ColumnScratch scratch(task.thread_scratch, lnb::ColumnRunRows(args.config, args.rows, args.cols, ElementSize(kData)),
                                    args.cols, ElementSize(kData));
  const int64_t batch_rows = args.input_columns.batch_rows;
  for (int64_t a = task.row_begin, b; a < task.row_end; a = b) {
    b = lnb::ColumnRunEnd(a, task.row_end, batch_rows);
    int64_t next_a = 0, next_b = 0;
    if (task.fetch_next_run && b < task.row_end) {
      next_a = b;
      next_b = lnb::ColumnRunEnd(b, task.row_end, batch_rows);
    } else if (task.fetch_next_run && task.next_row_begin < task.next_row_end) {
      next_a = task.next_row_begin;
      next_b = lnb::ColumnRunEnd(next_a, task.next_row_end, batch_rows);
    }
    RunColumnRows<kData, kHasWeight, kColumnSums>(args, a, b, first_chunk, task.partials, scratch, task.stream, next_a, next_b);
  }
  if (task.stream) hwy::FlushStream();  // make the non-temporal stores visible
}

template <ElementType kData, bool kHasWeight, bool kColumnSums>
void RunTask(const LayerNormBackwardArgs &args, const lnb::Task &task) {
  switch (task.kind) {
    case lnb::Task::Kind::kChunk: RunChunk<kData, kHasWeight, kColumnSums>(args, task); return;
    case lnb::Task::Kind::kColumns: RunColumns<kData, kHasWeight, kColumnSums>(args, task); return;
    case lnb::Task::Kind::kSegmentSums:
    case lnb::Task::Kind::kSegmentGradInput: RunSegment<kData, kHasWeight, kColumnSums>(args, task); return;
  }
}

using TaskFunction = void (*)(const LayerNormBackwardArgs &, const lnb::Task &);

template <ElementType kData, bool kColumnSums>
TaskFunction TaskFunctionForWeight(const LayerNormBackwardArgs &args) {
  return args.weight != nullptr ? &RunTask<kData, true, kColumnSums> : &RunTask<kData, false, kColumnSums>;
}

template <bool kColumnSums>
TaskFunction TaskFunctionFor(const LayerNormBackwardArgs &args) {
  switch (args.data_type) {
    case ElementType::kFloat16: return TaskFunctionForWeight<ElementType::kFloat16, kColumnSums>(args);
    case ElementType::kBFloat16: return TaskFunctionForWeight<ElementType::kBFloat16, kColumnSums>(args);
    case ElementType::kFloat32: break;
  }
  return TaskFunctionForWeight<ElementType::kFloat32, kColumnSums>(args);
}

void RunTaskForTarget(const LayerNormBackwardArgs &args, const lnb::Task &task) {
  const TaskFunction run = task.partials != nullptr ? TaskFunctionFor<true>(args) : TaskFunctionFor<false>(args);
  run(args, task);
}

// means[0..1]: the means of g and g * xhat of a row whose segments' lane sums (2 x 16 floats
// each, in order) threads left at segment_lanes; folded and summed as RowPasses::Row does.
void SegmentMeans(const float *segment_lanes, int64_t segments, int64_t cols, float *means) {
  const BlockTag d;
  BlockVec sum_g[kBlockVecs], sum_gx[kBlockVecs], segment_g[kBlockVecs], segment_gx[kBlockVecs];
  for (int64_t segment = 0; segment < segments; ++segment) {
    const float *lanes = segment_lanes + segment * 2 * kBlockLanes;
    for (int64_t v = 0; v < kBlockVecs; ++v) {
      (segment == 0 ? sum_g : segment_g)[v] = hn::LoadU(d, lanes + v * kBlockWidth);
      (segment == 0 ? sum_gx : segment_gx)[v] = hn::LoadU(d, lanes + kBlockLanes + v * kBlockWidth);
    }
    if (segment > 0) FoldSegment(sum_g, sum_gx, segment_g, segment_gx);
  }
  means[0] = SumBlockLanes(sum_g) / static_cast<float>(cols);
  means[1] = SumBlockLanes(sum_gx) / static_cast<float>(cols);
}

// Chunk first's partials += chunk second's over columns [col_begin, col_end) (multiples of
// kBlockLanes, at most PaddedCols(cols)), the gradWeight and the gradBias sums.
void AddChunkPartials(float *partials, int64_t cols, int64_t first, int64_t second, int64_t col_begin, int64_t col_end) {
  const BlockTag d;
  float *into = lnb::ChunkPartials(partials, cols, first);
  const float *from = lnb::ChunkPartials(partials, cols, second);
  for (const int64_t base : {int64_t{0}, lnb::PartialsStride(cols)}) {
    for (int64_t n = base + col_begin; n < base + col_end; n += kBlockWidth) {
      hn::StoreU(hn::Add(hn::LoadU(d, into + n), hn::LoadU(d, from + n)), d, into + n);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclhost
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>
#include <cstring>
#include <initializer_list>

#include "common/parallel_for.h"
#include "kernels/common/convert.h"
#include "kernels/common/dispatch.h"

namespace aclhost {
namespace kernels {
namespace {

using RunTaskFunction = void (*)(const LayerNormBackwardArgs &, const lnb::Task &);
using AddPartialsFunction = void (*)(float *, int64_t, int64_t, int64_t, int64_t, int64_t);
using SegmentMeansFunction = void (*)(const float *, int64_t, int64_t, float *);

struct TargetFunctions {
  RunTaskFunction run_task;
  AddPartialsFunction add_partials;
  SegmentMeansFunction segment_means;
};

TargetFunctions FunctionsFor(Isa isa) {
  return {ACLHOST_FUNCTION_FOR_ISA(isa, RunTaskForTarget), ACLHOST_FUNCTION_FOR_ISA(isa, AddChunkPartials),
          ACLHOST_FUNCTION_FOR_ISA(isa, SegmentMeans)};
}

// The chunks' partials and a page before them to place them in (PlacePartials).
size_t PartialsBytes(int64_t rows, int64_t cols, bool column_sums) {
  const size_t chunks_bytes = static_cast<size_t>(lnb::ChunkCount(rows)) * 2 * static_cast<size_t>(lnb::PartialsStride(cols)) * sizeof(float);
  return column_sums ? lnb::kPageBytes + chunks_bytes : 0;
}

// Where in the first page of `region` the partials start: pass 1 stores a block of them and then
// loads the next blocks of gradOut, input and the weight; a load that comes to the stored block's
// place within a page soon after the store waits on it (kPageBytes). Of 16 places 256 bytes apart,
// the one whose stores lie farthest ahead of those loads within a page (exactly level counts as
// clear: the load of the same block came before the store). Rows that do not start at the same
// place within a page vary row by row; the first rows stand for them. Measured on one thread,
// FLOAT (64, 1024), with the PartialsStride change (a harness of the kernel alone, outside the
// repo): 0.37 -> 0.23 ns per element.
float *PlacePartials(char *region, int64_t cols, std::initializer_list<const void *> loads) {
  constexpr int64_t kStep = 256;
  const int64_t bias_offset = lnb::PartialsStride(cols) * static_cast<int64_t>(sizeof(float));
  auto lead = [](intptr_t store, intptr_t load) {
    const int64_t ahead = (store - load) & (lnb::kPageBytes - 1);
    return ahead == 0 ? lnb::kPageBytes : ahead;
  };
  int64_t best_offset = 0, best_lead = -1;
  for (int64_t offset = 0; offset < lnb::kPageBytes; offset += kStep) {
    const intptr_t weight_store = reinterpret_cast<intptr_t>(region + offset), bias_store = weight_store + bias_offset;
    int64_t least = lnb::kPageBytes;
    for (const void *load : loads) {
      if (load == nullptr) continue;
      const intptr_t at = reinterpret_cast<intptr_t>(load);
      least = std::min(least, std::min(lead(weight_store, at), lead(bias_store, at)));
    }
    if (least > best_lead) {
      best_lead = least;
      best_offset = offset;
    }
  }
  return reinterpret_cast<float *>(region + best_offset);
}

// Per thread: three row tiles where rows are staged, a ColumnScratch where they lie in columns.
size_t ThreadBytes(int64_t rows, int64_t cols, ElementType data_type, int64_t staged_row_multiple, bool in_columns,
                   const KernelConfig &config) {
  if (in_columns) {
    const size_t size = ElementSize(data_type);
    return lnb::ColumnScratch(nullptr, lnb::ColumnRunRows(config, rows, cols, size), cols, size).bytes;
  }
  return staged_row_multiple > 0 ? 3 * lnb::TileBytes(rows, cols, ElementSize(data_type), staged_row_multiple) : 0;
}

// The segments' lane sums of two consecutive rows whose segments threads may share (rows staged or
// in columns never do).
size_t SegmentLanesBytes(int64_t rows, int64_t cols, bool staged_or_in_columns) {
  return !staged_or_in_columns && lnb::MayShareRows(rows, cols) ? static_cast<size_t>(lnb::SegmentCount(cols)) * 2 * 2 * lnb::kLanes * sizeof(float) : 0;
}

// Where each part of the scratch starts: the chunks' column partials (their page to be placed in
// at 0), the threads' own (ThreadBytes each), the segments' lane sums, the widened weight; and the
// whole size.
struct ScratchLayout {
  size_t threads = 0, thread_bytes = 0, lanes = 0, weight = 0, size = 0;
};

ScratchLayout LayoutScratch(int64_t rows, int64_t cols, ElementType data_type, ElementType weight_type, bool column_sums,
                            int64_t staged_row_multiple, bool in_columns, const KernelConfig &config) {
  ScratchLayout layout;
  layout.threads = PartialsBytes(rows, cols, column_sums);
  layout.thread_bytes = ThreadBytes(rows, cols, data_type, staged_row_multiple, in_columns, config);
  layout.lanes = layout.threads + static_cast<size_t>(config.threads) * layout.thread_bytes;
  layout.weight = layout.lanes + SegmentLanesBytes(rows, cols, staged_row_multiple > 0 || in_columns);
  layout.size = layout.weight + WidenedBytesFor(weight_type, cols);
  return layout;
}

// The chunks' column partials meet in a fixed pairwise tree: at stride 1, 2, 4, ..., chunk `first`
// (a multiple of 2 * stride) takes in chunk first + stride, so that chunk 0 ends with the sums in
// an order fixed by the row count. A node is merged by the thread that ran all its chunks, as soon
// as it has, while they are still in its caches; the nodes whose chunks threads shared are merged
// after the loop. Merging every node after the loop, 16 columns at a time, took 5-10 % of a call
// (backward (8192, 768) FLOAT16 146 of 1,665 us; (1024, 32768) 609 of 9,276 us): it read the
// partials back from L3 a cache line at a time, 12 KiB apart.
class PartialsTree {
 public:
  PartialsTree(float *partials, int64_t cols, int64_t chunks, AddPartialsFunction add)
      : partials_(partials), cols_(cols), chunks_(chunks), add_(add) {
    std::fill(last_chunk_of_worker_, last_chunk_of_worker_ + chunks, int64_t{-2});  // workers <= chunks
  }

  // `worker` (below the chunk count) has run chunk `chunk`; a worker's chunks come in increasing order.
  // Merges the nodes that end with this chunk and lie within the worker's current run of chunks.
  void ChunkDone(int64_t chunk, int worker) {
    int64_t &last = last_chunk_of_worker_[worker];
    run_start_[chunk] = last == chunk - 1 ? run_start_[last] : chunk;
    last = chunk;
    for (int64_t stride = 1; stride < chunks_; stride *= 2) {
      const int64_t first = chunk / (2 * stride) * (2 * stride);
      if (NodeEnd(first, stride) - 1 != chunk || first < run_start_[chunk]) break;
      if (first + stride < chunks_) add_(partials_, cols_, first, first + stride, 0, lnb::PaddedCols(cols_));
    }
  }

  // The nodes no thread merged, level by level, their columns in ranges shared among threads.
  void MergeRest(const KernelConfig &config) {
    constexpr int64_t kRangeCols = 2048;
    const int64_t padded_cols = lnb::PaddedCols(cols_);
    int64_t nodes = 0;
    ForEachRestNode([&](int64_t, int64_t) { ++nodes; });
    const int64_t ranges = (padded_cols + kRangeCols - 1) / kRangeCols;
    ParallelFor(nodes > 0 ? ranges : 0, ThreadsForWork(config, ranges, nodes * 2 * padded_cols), [&](int64_t range, int) {
      const int64_t begin = range * kRangeCols, end = std::min(begin + kRangeCols, padded_cols);
      ForEachRestNode([&](int64_t first, int64_t second) { add_(partials_, cols_, first, second, begin, end); });
    });
  }

 private:
  int64_t NodeEnd(int64_t first, int64_t stride) const { return std::min(first + 2 * stride, chunks_); }

  // merge(first, second) for each node not merged yet, in the tree's order.
  template <typename Merge>
  void ForEachRestNode(Merge merge) const {
    for (int64_t stride = 1; stride < chunks_; stride *= 2) {
      for (int64_t first = 0; first + stride < chunks_; first += 2 * stride) {
        if (run_start_[NodeEnd(first, stride) - 1] > first) merge(first, first + stride);
      }
    }
  }

  float *const partials_;
  const int64_t cols_, chunks_;
  const AddPartialsFunction add_;
  // Per chunk, the first chunk of the run of consecutive chunks its worker ran up to it.
  int64_t run_start_[lnb::kMaxChunks];
  int64_t last_chunk_of_worker_[lnb::kMaxChunks];  // -2: none yet (the first `chunks` set)
};

// Rows [begin, end) of one chunk, one row at a time, each row's segments shared among threads:
// each thread owns a fixed range of segments, so that the column partials of a segment take their
// rows in order, and runs pass 2 of a row on a segment and then pass 1 of the next row on it (whose
// lines pass 2 fetched), one barrier a row. The lane sums of consecutive rows go to alternate
// halves of segment_lanes: a thread may start the next row's before another has read a row's.
void RunSharedRows(const LayerNormBackwardArgs &args, const TargetFunctions &target, int64_t begin, int64_t end, float *partials,
                   float *segment_lanes, bool stream) {
  const int64_t segments = lnb::SegmentCount(args.cols);
  if (partials != nullptr) lnb::ClearChunkPartials(partials, args.cols);
  const bool wants_grad_input = args.grad_input != nullptr;
  auto row_lanes = [&](int64_t m) { return segment_lanes + (m - begin) % 2 * segments * 2 * lnb::kLanes; };
  ParallelTeam(lnb::SharedRowThreads(args.config, args.cols), [&](const Team &team) {
    const int64_t first_segment = segments * team.worker / team.workers;
    const int64_t end_segment = segments * (team.worker + 1) / team.workers;
    auto run_segment = [&](lnb::Task::Kind kind, int64_t m, int64_t segment, const float *means) {
      lnb::Task task;
      task.kind = kind;
      task.row_begin = m;
      task.col_begin = segment * lnb::kSegmentCols;
      task.partials = partials;
      task.lanes = row_lanes(m) + segment * 2 * lnb::kLanes;
      task.mean_g = means[0];
      task.mean_gx = means[1];
      task.stream = stream;
      target.run_task(args, task);
    };
    float means[2] = {0, 0};
    for (int64_t m = begin; m <= end; ++m) {
      for (int64_t segment = first_segment; segment < end_segment; ++segment) {
        if (m > begin && wants_grad_input) run_segment(lnb::Task::Kind::kSegmentGradInput, m - 1, segment, means);
        if (m < end) run_segment(lnb::Task::Kind::kSegmentSums, m, segment, means);
      }
      if (m == end || !wants_grad_input) continue;
      team.Barrier();
      target.segment_means(row_lanes(m), segments, args.cols, means);
    }
  });
}

}  // namespace

int64_t LayerNormBackwardColumnBlockRows(const KernelConfig &config, int64_t rows, int64_t cols, ElementType data_type) {
  return lnb::ColumnBlockRows(config, rows, cols, ElementSize(data_type));
}

size_t LayerNormBackwardScratchBytes(int64_t rows, int64_t cols, ElementType data_type, ElementType weight_type,
                                     bool column_sums, int64_t staged_row_multiple, bool in_columns,
                                     const KernelConfig &config) {
  return LayoutScratch(rows, cols, data_type, weight_type, column_sums, staged_row_multiple, in_columns, config).size;
}

void LayerNormBackward(const LayerNormBackwardArgs &given) {
  const bool want_column_sums = given.grad_weight != nullptr || given.grad_bias != nullptr;
  const bool staged_rows = given.grad_out_rows.move != nullptr || given.input_rows.move != nullptr ||
                           given.grad_input_rows.move != nullptr;
  char *const scratch = static_cast<char *>(given.scratch);
  const bool in_columns = lnb::InColumns(given);
  const ScratchLayout layout = LayoutScratch(given.rows, given.cols, given.data_type,
                                             given.weight != nullptr ? given.weight_type : ElementType::kFloat32,
                                             want_column_sums, staged_rows ? given.staged_row_multiple : 0, in_columns,
                                             given.config);
  // The rows read a 16-bit weight as float32, widened here once.
  LayerNormBackwardArgs args = given;
  WidenNarrow(&args.weight, &args.weight_type, args.cols, reinterpret_cast<float *>(scratch + layout.weight), args.config.isa);
  const bool stream_grad_input = args.grad_input != nullptr && args.grad_input_rows.move == nullptr &&
                                 StreamsOutput(args.rows * args.cols * static_cast<int64_t>(ElementSize(args.data_type)));
  const TargetFunctions target = FunctionsFor(args.config.isa);
  const int64_t rows_per_chunk = lnb::RowsPerChunk(args.rows);
  const int64_t chunks = lnb::ChunkCount(args.rows);
  char *const thread_scratch = scratch + layout.threads;
  // Pass 1 reads gradOut and input from memory, or from the tiles they are staged or moved to.
  float *const partials =
      want_column_sums ? PlacePartials(scratch, args.cols,
                                       {args.grad_out_rows.move != nullptr || in_columns ? thread_scratch : args.grad_out,
                                        args.input_rows.move != nullptr || in_columns ? thread_scratch : args.input, args.weight})
                       : nullptr;
  auto chunk_partials = [&](int64_t chunk) { return want_column_sums ? lnb::ChunkPartials(partials, args.cols, chunk) : nullptr; };

  PartialsTree tree(partials, args.cols, chunks, target.add_partials);
  if (in_columns) {
    const int64_t block_chunks = lnb::ColumnBlockChunks(args.config, args.rows, args.cols, ElementSize(args.data_type));
    const int64_t blocks = (chunks + block_chunks - 1) / block_chunks, block_rows = block_chunks * rows_per_chunk;
    const int threads = ThreadsForWork(args.config, blocks, args.rows * args.cols);
    const bool in_turn = lnb::TakesColumnBlocksInTurn(args.grad_input, args.grad_input_columns, args.rows, block_rows,
                                                      ElementSize(args.data_type));
    // The block a thread likely takes next: in turn, the one the other threads leave it; else its
    // run's next.
    const int64_t next_block_step = in_turn ? threads : 1;
    const bool fetch_next_run = lnb::FetchesNextColumnBlock(block_rows, args.cols, ElementSize(args.data_type), stream_grad_input);
    auto run_block = [&](int64_t block, int worker) {
      const int64_t first_chunk = block * block_chunks, end_chunk = std::min(first_chunk + block_chunks, chunks);
      lnb::Task task;
      task.kind = lnb::Task::Kind::kColumns;
      task.row_begin = block * block_rows;
      task.row_end = std::min(task.row_begin + block_rows, args.rows);
      task.partials = chunk_partials(first_chunk);
      task.thread_scratch = thread_scratch + static_cast<size_t>(worker) * layout.thread_bytes;
      task.stream = stream_grad_input;
      task.fetch_next_run = fetch_next_run;
      task.next_row_begin = std::min((block + next_block_step) * block_rows, args.rows);
      task.next_row_end = std::min(task.next_row_begin + block_rows, args.rows);
      target.run_task(args, task);
      if (want_column_sums) {
        for (int64_t chunk = first_chunk; chunk < end_chunk; ++chunk) tree.ChunkDone(chunk, worker);
      }
    };
    if (in_turn) {
      ParallelForInTurn(blocks, threads, run_block);
    } else {
      ParallelFor(blocks, threads, run_block);
    }
  } else if (!staged_rows && lnb::SharesRows(args.rows, args.cols, args.config)) {
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
      const int64_t begin = chunk * rows_per_chunk;
      RunSharedRows(args, target, begin, std::min(begin + rows_per_chunk, args.rows), chunk_partials(chunk),
                    reinterpret_cast<float *>(scratch + layout.lanes), stream_grad_input);
      if (want_column_sums) tree.ChunkDone(chunk, 0);
    }
  } else {
    ParallelFor(chunks, lnb::ChunkThreads(args.config, args.rows, args.cols), [&](int64_t chunk, int worker) {
      lnb::Task task;
      task.row_begin = chunk * rows_per_chunk;
      task.row_end = std::min(task.row_begin + rows_per_chunk, args.rows);
      task.partials = chunk_partials(chunk);
      task.thread_scratch = staged_rows ? thread_scratch + static_cast<size_t>(worker) * layout.thread_bytes : nullptr;
      task.stream = stream_grad_input;
      target.run_task(args, task);
      if (want_column_sums) tree.ChunkDone(chunk, worker);
    });
  }
  if (!want_column_sums) return;

  // The tree's last nodes; then each sum is rounded once into its output.
  tree.MergeRest(args.config);
  const float *sums = lnb::ChunkPartials(partials, args.cols, 0);
  if (args.grad_weight != nullptr) ConvertFloats(sums, args.cols, args.grad_weight_type, args.grad_weight, args.config.isa);
  if (args.grad_bias != nullptr) ConvertFloats(sums + lnb::PartialsStride(args.cols), args.cols, args.grad_bias_type, args.grad_bias, args.config.isa);
}

}  // namespace kernels
}  // namespace aclhost
#endif  // HWY_ONCE
