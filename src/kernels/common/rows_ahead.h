// Rows in short runs (a view's batches of a few rows with gaps between: a token's heads) fetched
// into L1 a fixed number of rows ahead of the rows a kernel works on, one row with each row it
// takes. The hardware's prefetcher does not follow such runs across their gaps; fetching the next
// run whole as a run begins makes a burst that the run's own loads queue behind.
#ifndef ACLNN_HOST_KERNELS_COMMON_ROWS_AHEAD_H_
#define ACLNN_HOST_KERNELS_COMMON_ROWS_AHEAD_H_

#include <cstdint>

namespace aclhost {
namespace kernels {

// How many rows ahead RowsAhead fetches where a kernel's rows lie in runs of run_rows rows of
// row_bytes an operand: at least 2 KiB of each operand and at least one run ahead; 0 (not so) for
// runs over 8 KiB an operand, which the hardware's prefetcher follows. Zen 5 (twenty-fourth
// session), two threads, alternating builds call by call (bench/ab_builds ... heads), against the
// next run fetched whole into L2 as a run began: backward (98304, 64) in runs of 12 rows FLOAT 2.59
// -> 1.40 ms (12 of 12 pairs), BF16 2.35 -> 1.35 (12 of 12); BF16 runs of 512 bytes (4 runs ahead)
// 1.72 -> 1.30 (10 of 12). One run ahead lost on those (1 of 10 against 2 KiB), 8 KiB on runs of
// 1.5 KiB (0 of 10); runs of 16 KiB fetched so into L1 or L2 lost against the burst (1 of 16, 1 of
// 10), not fetched they beat it (12 of 12). docs/PERFORMANCE.md, twenty-fourth session.
inline int64_t RowsFetchedAhead(int64_t run_rows, int64_t row_bytes) {
  constexpr int64_t kShortRunBytes = 8192, kFetchAheadBytes = 2048;
  const int64_t run_bytes = run_rows * row_bytes;
  if (run_bytes == 0 || run_bytes > kShortRunBytes) return 0;
  return (kFetchAheadBytes + run_bytes - 1) / run_bytes * run_rows;
}

// Where a run of rows of one or two operands read lies, from a given row on: each one's row and the
// bytes from a row to the next (rows[1] nullptr: no second operand), and the run's end.
struct RowRun {
  const char *rows[2] = {nullptr, nullptr};
  int64_t steps[2] = {0, 0};
  int64_t end = 0;
};

// Fetches rows [first, end) in order, `count` at a time; find_run(row, end) gives the RowRun from
// row on (at most end), asked once a run.
template <class FindRun>
class RowsAhead {
 public:
  RowsAhead(FindRun find_run, int64_t first, int64_t end, int64_t row_bytes)
      : find_run_(find_run), row_(first), end_(end), row_bytes_(row_bytes) {
    run_.end = first;
  }

  inline __attribute__((always_inline)) void Fetch(int64_t count) {
    constexpr int64_t kLine = 64;
    for (; count > 0 && row_ < end_; --count, ++row_) {
      if (row_ == run_.end) run_ = find_run_(row_, end_);
      for (int64_t byte = 0; byte < row_bytes_; byte += kLine) {
        __builtin_prefetch(run_.rows[0] + byte, 0, 3);
        if (run_.rows[1] != nullptr) __builtin_prefetch(run_.rows[1] + byte, 0, 3);
      }
      run_.rows[0] += run_.steps[0];
      if (run_.rows[1] != nullptr) run_.rows[1] += run_.steps[1];
    }
  }

 private:
  FindRun find_run_;
  int64_t row_, end_, row_bytes_;
  RowRun run_;  // row_'s run, its rows advanced to row_
};

}  // namespace kernels
}  // namespace aclhost

#endif  // ACLNN_HOST_KERNELS_COMMON_ROWS_AHEAD_H_
