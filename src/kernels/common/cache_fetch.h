// Software fetches of cache lines, shared by the kernels' per-target code and the helpers beside it.
#ifndef ACLNN_HOST_KERNELS_COMMON_CACHE_FETCH_H_
#define ACLNN_HOST_KERNELS_COMMON_CACHE_FETCH_H_

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

}  // namespace kernels
}  // namespace aclhost

#endif  // ACLNN_HOST_KERNELS_COMMON_CACHE_FETCH_H_
