// Rows in short runs (a view's batches of a few rows with gaps between: a token's heads) fetched
// into L1 a fixed number of rows ahead of the rows a kernel works on, one row with each row it
// takes. The hardware's prefetcher does not follow such runs across their gaps; fetching the next
// run whole as a run begins makes a burst that the run's own loads queue behind.
#ifndef ACLNN_HOST_KERNELS_COMMON_ROWS_AHEAD_H_
#define ACLNN_HOST_KERNELS_COMMON_ROWS_AHEAD_H_

#include <algorithm>
#include <cstdint>

#include "kernels/common/cache_fetch.h"

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

// Fetches rows from a lead of RowsFetchedAhead rows after `first` on, up to `end`, in order,
// `count` with each call, where the rows [first, end) lie in more than one run; else none. The
// longer of the first two runs stands for the runs: rows [first, end) (a chunk) may begin or end
// within a run. find_run(row, end) gives the RowRun from row on (at most end), asked once a run.
template <class FindRun>
class RowsAhead {
 public:
  RowsAhead(FindRun find_run, int64_t first, int64_t end, int64_t row_bytes)
      : find_run_(find_run), end_(end), row_bytes_(row_bytes) {
    const int64_t first_run_end = first < end ? find_run_(first, end).end : end;
    const int64_t run_rows = first_run_end < end ? std::max(first_run_end - first, find_run_(first_run_end, end).end - first_run_end) : 0;
    const int64_t lead = RowsFetchedAhead(run_rows, row_bytes);
    row_ = lead > 0 ? std::min(first + lead, end) : end;
    run_.end = row_;
  }

  inline __attribute__((always_inline)) void Fetch(int64_t count) {
    constexpr int64_t kLine = 64;
    for (; count > 0 && row_ < end_; --count, ++row_) {
      if (row_ == run_.end) run_ = find_run_(row_, end_);
      for (int64_t byte = 0; byte < row_bytes_; byte += kLine) {
        FetchForReading(run_.rows[0] + byte, false);
        if (run_.rows[1] != nullptr) FetchForReading(run_.rows[1] + byte, false);
      }
      run_.rows[0] += run_.steps[0];
      if (run_.rows[1] != nullptr) run_.rows[1] += run_.steps[1];
    }
  }

 private:
  FindRun find_run_;
  int64_t end_, row_bytes_;
  int64_t row_;  // the next row to fetch
  RowRun run_;  // row_'s run, its rows advanced to row_
};

}  // namespace kernels
}  // namespace aclhost

#endif  // ACLNN_HOST_KERNELS_COMMON_ROWS_AHEAD_H_
