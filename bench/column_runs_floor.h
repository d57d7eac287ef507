// The memory traffic of a LayerNorm backward without its arithmetic, for the transposed views'
// ratio to their dense case: what any design that reads a block of rows twice (once for the row
// sums, once for gradInput) must pay when the rows lie in columns ([cols][rows] memory, a row's
// elements a column apart), against one pass over the same bytes in memory order; and the same two
// passes over groups of long rows in memory, the operator's way with rows too long for L1.
// docs/PERFORMANCE.md reads the two against each other and against the operator's transposed and
// dense cases of the same run.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aclhost {
namespace bench {

// Three [cols][rows] arrays of element_size-byte elements (gradOut, input, gradInput), from
// aclrtMalloc as the operator benchmark's operands are (huge pages where the system gives them),
// touched once. rows * element_size must be a multiple of 64 bytes.
class FloorOperands {
 public:
  FloorOperands(int64_t rows, int64_t cols, size_t element_size);
  FloorOperands(const FloorOperands &) = delete;
  FloorOperands &operator=(const FloorOperands &) = delete;
  ~FloorOperands();

  // One pass in memory order: gradInput's words from gradOut's and input's, streaming stores.
  void DensePass(int threads);
  // Blocks of block_rows rows (a multiple of 64 bytes of them), each thread taking the next: every
  // column's run of the block read from gradOut and input (pass 1), then read again and
  // gradInput's run written with streaming stores (pass 2); each pass fetches the run two columns
  // on into L2 at each column's start (a bound on the traffic, not a copy of the operator's
  // fetching, which docs/PERFORMANCE.md describes).
  void TwoPassColumns(int threads, int64_t block_rows);
  // Each thread a share of the columns, whole (a stretch of memory): all of it read (pass 1), then
  // read again and gradInput written (pass 2). The order a design would take that gave threads
  // whole columns: it adds a row's columns on several threads, which the determinism rule (each
  // row's sums in column order, whatever the thread count) rules out. For comparison only.
  void TwoPassWholeColumns(int threads);
  // How many bytes of a row a pass of TwoPassRows takes before the next row's: a whole row (one
  // row after another), or a burst of whole 64-byte lines (row 0's first burst, row 1's first
  // burst, ..., then every row's second burst).
  static constexpr int64_t kWholeRow = 0;
  // The cache line: rows, blocks and bursts are whole ones.
  static constexpr int64_t kLineBytes = 64;

  // The operands as [rows][cols] (rows in memory), in groups of group_rows rows, a thread's at a
  // time: the group's rows read from gradOut and input (pass 1, in bursts of pass1_burst bytes),
  // then read again (from L2 where the group fits) and gradInput's rows written with streaming
  // stores (pass 2, in bursts of pass2_burst), as the operator takes long rows; no software fetch
  // (the hardware's prefetcher streams such rows).
  void TwoPassRows(int threads, int64_t group_rows, int64_t pass1_burst, int64_t pass2_burst);

  // The operator's effective bytes for the same operands (bench/warm_case.h).
  double effective_bytes() const;

 private:
  int64_t rows_, cols_;
  size_t element_size_;
  void *grad_out_ = nullptr, *input_ = nullptr, *grad_input_ = nullptr;
};

}  // namespace bench
}  // namespace aclhost
