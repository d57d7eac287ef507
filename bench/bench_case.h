// What both operator benchmarks share: timing a case against a bandwidth reference measured next
// to it, the workspace their calls grow, and the dtypes' short names.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "acl/acl.h"
#include "stream_bandwidth.h"

namespace aclhost {
namespace bench {

// Runs call() (the whole user sequence; false: it failed) in the benchmark loop and reports
// effective GB/s, the reference's GB/s and their ratio (counters "GB/s", "<name>_GB/s",
// "x_<name>"). measure(threads) is the reference, taken before and after the case; the better of
// the two counts, since this machine's bandwidth drifts while a benchmark runs.
template <typename Call>
void TimeAgainst(benchmark::State &state, const char *name, double (*measure)(int), int threads, double effective_bytes,
                 Call call) {
  if (!call()) {  // the first call also sizes the workspace, outside the timing
    state.SkipWithError("the operator failed");
    return;
  }
  const double before = measure(threads);
  for (auto _ : state) {
    if (!call()) {
      state.SkipWithError("the operator failed");
      return;
    }
  }
  const double reference = std::max(before, measure(threads));
  state.counters["GB/s"] = benchmark::Counter(effective_bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters[std::string(name) + "_GB/s"] = reference / 1e9;
  state.counters[std::string("x_") + name] = benchmark::Counter(effective_bytes / reference, benchmark::Counter::kIsIterationInvariantRate);
}

// A workspace that grows to the largest size asked, so that timed calls do not allocate.
class GrowingWorkspace {
 public:
  GrowingWorkspace() = default;
  GrowingWorkspace(const GrowingWorkspace &) = delete;
  GrowingWorkspace &operator=(const GrowingWorkspace &) = delete;
  ~GrowingWorkspace() {
    if (memory_ != nullptr) aclrtFree(memory_);
  }

  // At least size bytes (NULL for 0), or NULL when the allocation fails.
  void *Get(uint64_t size) {
    if (size > size_) {
      if (memory_ != nullptr) aclrtFree(memory_);
      memory_ = nullptr;
      size_ = 0;
      if (aclrtMalloc(&memory_, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return nullptr;
      size_ = size;
    }
    return memory_;
  }

 private:
  void *memory_ = nullptr;
  uint64_t size_ = 0;
};

inline const char *DtypeName(aclDataType dtype) { return dtype == ACL_FLOAT ? "fp32" : dtype == ACL_FLOAT16 ? "fp16" : "bf16"; }

}  // namespace bench
}  // namespace aclhost
