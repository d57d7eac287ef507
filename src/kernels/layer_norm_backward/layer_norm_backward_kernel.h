// The LayerNorm backward kernel seam: dense row-major operands as raw pointers, the problem
// size (rows x cols), element types and how to run (SIMD target, threads).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/element_type.h"
#include "kernels/common/kernel_config.h"

namespace aclhost {
namespace kernels {

// Moves dense rows [row_begin, row_end) of an operand the kernel cannot address directly (a
// strided view, another dtype) between its own layout and a dense buffer: into dense for inputs,
// out of dense for outputs. Called from the kernel's threads, each with its own buffer.
struct RowStaging {
  void (*move)(const void *context, int64_t row_begin, int64_t row_end, void *dense) = nullptr;
  const void *context = nullptr;
};

struct LayerNormBackwardArgs {
  int64_t rows = 0;  // M: rows >= 1
  int64_t cols = 0;  // N: cols >= 1

  ElementType data_type = ElementType::kFloat32;  // grad_out, input and grad_input
  ElementType mean_type = ElementType::kFloat32;
  ElementType rstd_type = ElementType::kFloat32;
  ElementType weight_type = ElementType::kFloat32;
  ElementType grad_weight_type = ElementType::kFloat32;
  ElementType grad_bias_type = ElementType::kFloat32;

  const void *grad_out = nullptr;  // rows x cols
  const void *input = nullptr;     // rows x cols
  const void *mean = nullptr;      // rows
  const void *rstd = nullptr;      // rows
  const void *weight = nullptr;    // cols; nullptr means all ones

  void *grad_input = nullptr;   // rows x cols, or nullptr when not wanted
  void *grad_weight = nullptr;  // cols, or nullptr when not wanted
  void *grad_bias = nullptr;    // cols, or nullptr when not wanted

  // Where the rows of grad_out / input / grad_input lie (each row dense; the defaults: back to
  // back), e.g. rows sliced out of wider ones, or batches of them.
  RowSpacing grad_out_spacing, input_spacing, grad_input_spacing;

  // When set, the operand is moved through these in blocks of rows that stay in cache, and the
  // pointer above is not used. grad_input's rows come out in data_type.
  RowStaging grad_out_rows, input_rows, grad_input_rows;
  // The blocks hold a multiple of this many rows where they can (a transposition moves a whole
  // cache line of each column at once).
  int64_t staged_row_multiple = 1;

  // When input_columns.batch_rows > 0: gradOut, input and gradInput (when wanted) all lie so, with
  // the same batch_rows, and the kernel reads and writes them in that order (their rows' sums taken
  // while it streams the columns), neither by rows nor through the stagings above.
  ColumnLayout grad_out_columns, input_columns, grad_input_columns;

  // LayerNormBackwardScratchBytes(rows, cols, ...) bytes, 64-byte aligned, when grad_weight or
  // grad_bias is wanted, any operand is staged by rows or lies in columns, or weight is FLOAT16 or
  // BFLOAT16. The kernel allocates nothing itself.
  void *scratch = nullptr;

  KernelConfig config;
};

// weight_type: ElementType::kFloat32 when weight is absent; staged_row_multiple: 0 when no operand
// will be moved through RowStaging, else the args' staged_row_multiple; in_columns: whether the
// row operands will lie in columns (input_columns); config: the args' (its threads are at most how
// many threads the call may use). 0 when the kernel needs no scratch.
size_t LayerNormBackwardScratchBytes(int64_t rows, int64_t cols, ElementType data_type, ElementType weight_type,
                                     bool column_sums, int64_t staged_row_multiple, bool in_columns,
                                     const KernelConfig &config);

// The rows a block of operands in columns (input_columns) aims at in a (rows, cols) call: the
// length of the run of every column that its two passes read (1,024 on Intel CPUs; 512 for 16-bit
// operands of calls from memory on Zen 5 where every thread gets a block; 256 otherwise).
// Benchmarks that measure the columns' memory floor use the same blocks.
int64_t LayerNormBackwardColumnBlockRows(const KernelConfig &config, int64_t rows, int64_t cols, ElementType data_type);

// grad_input[m,n] = (g - (mean_n(g) + xhat * mean_n(g * xhat))) * rstd_m with g = grad_out * weight
// and xhat = (input - mean_m) * rstd_m; grad_weight[n] = sum_m grad_out * xhat;
// grad_bias[n] = sum_m grad_out. Float32 arithmetic (three multiply-adds fused, emulated exactly
// on SIMD targets without an FMA) in an order fixed by (rows, cols) alone, so the bits do not
// depend on the SIMD target or the thread count; each result is rounded once to its element type
// (nearest even). Exact aliasing of grad_input with grad_out or input is allowed.
void LayerNormBackward(const LayerNormBackwardArgs &args);

}  // namespace kernels
}  // namespace aclhost
