// Software fetches of cache lines, shared by the kernels' per-target code and the helpers beside it.
#ifndef ACLNN_HOST_KERNELS_COMMON_CACHE_FETCH_H_
#define ACLNN_HOST_KERNELS_COMMON_CACHE_FETCH_H_

#include <cstdint>

namespace aclhost {
namespace kernels {

// Fetches the cache line at `at` for reading, into L2 or into L1 (__builtin_prefetch takes the
// level as a constant: locality 2 or 3): the kernels fetch the next rows while they work on these.
inline __attribute__((always_inline)) void FetchForReading(const void *at, bool into_l2) {
  if (into_l2) {
    __builtin_prefetch(at, 0, 2);
  } else {
    __builtin_prefetch(at, 0, 3);
  }
}

// A row fetched half at a time, at half the pace of a pass that is `byte` bytes into rows of
// row_bytes: the line at byte / 2 of the row's first half (second_half: of its second half), for
// every second line of the pass. Two passes over rows read from L2 share the next rows' fetch
// this way, so that memory streams through both.
inline __attribute__((always_inline)) void FetchHalfRow(const char *row, int64_t row_bytes, int64_t byte, bool second_half,
                                                        bool into_l2) {
  if (byte % 128 != 0) return;
  FetchForReading(row + (second_half ? row_bytes / 2 : 0) + byte / 2, into_l2);
}

// A group of `count` rows (an even number, row_lines lines each) fetched half a group at a time,
// by a pass over another group of as many rows: its first count / 2 rows (second_half: its last),
// one row after another, a line of them for every two lines of the pass. The pass's line number
// `visit` (in the order it works on its rows' lines) fetches the half's line visit / 2 where visit
// is even. Unlike FetchHalfRow on each row, the half's lines are fetched in the order they lie in
// memory when the rows are dense.
inline __attribute__((always_inline)) void FetchHalfGroup(const char *const *rows, int count, int64_t row_lines, int64_t visit,
                                                          bool second_half, bool into_l2) {
  if (visit % 2 != 0) return;
  int64_t at = visit / 2, row = second_half ? count / 2 : 0;
  for (; at >= row_lines; at -= row_lines) ++row;
  FetchForReading(rows[row] + at * 64, into_l2);
}

}  // namespace kernels
}  // namespace aclhost

#endif  // ACLNN_HOST_KERNELS_COMMON_CACHE_FETCH_H_
