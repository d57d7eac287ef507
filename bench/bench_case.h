// What both operator benchmarks share: timing a case against a bandwidth reference measured next
// to it, the workspace their calls grow, their operands' layouts, and the dtypes' short names.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "dtype_codec.h"
#include "stream_bandwidth.h"
#include "warm_case.h"

namespace aclhost {
namespace bench {

inline double Median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
  return values[values.size() / 2];
}

// The seconds of one call() (the whole user sequence; false: it failed, and so is the result),
// from cold caches where `cold`: right after one pass of the reference, reference_pass(threads),
// whose rate goes to *reference_rate, and LeaveCachesClean, so that the call does not write back
// the pass's lines.
template <typename Call>
std::optional<double> TimeCall(Call &&call, bool cold, double (*reference_pass)(int), int threads, double *reference_rate) {
  if (cold) {
    *reference_rate = reference_pass(threads);
    LeaveCachesClean(threads);
  }
  const auto start = std::chrono::steady_clock::now();
  const bool called = call();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!called) return std::nullopt;
  return elapsed;
}

// Runs call() (the whole user sequence; false: it failed) in the benchmark loop, timing each call
// on its own (the benchmark must UseManualTime), and reports the median call ("median_us") and
// its effective GB/s. Cases of kWarmCaseBytes or more take one pass of the reference,
// reference_pass(threads) (the triad's or copy's bytes a second), right before each call (then
// LeaveCachesClean: the call starts cold and does not write back the pass's lines), and report the
// median of the passes ("<name>_GB/s") and the median of each call's GB/s over its own pass's
// ("x_<name>"): this machine's bandwidth drifts by tens of per cent within seconds, and a call
// compared with the pass next to it shares its drift. "x_<name>_best" is STREAM's way, the best
// call over the best pass, for comparison. "xcore_ns" (those cases, two threads or more): the
// median of a cross-core round trip (CoreRoundTripNs) taken after each call, which tells which of
// its two states a virtual machine's vCPUs were in.
template <typename Call>
void TimeAgainst(benchmark::State &state, const char *name, double (*reference_pass)(int), int threads, double effective_bytes,
                 Call call) {
  if (!call()) {  // the first call also sizes the workspace, outside the timing
    state.SkipWithError("the operator failed");
    return;
  }
  const bool against_reference = effective_bytes >= kWarmCaseBytes;
  std::vector<double> seconds, reference_rates, ratios, round_trips;
  for (auto _ : state) {
    double reference_rate = 0.0;
    const std::optional<double> timed = TimeCall(call, against_reference, reference_pass, threads, &reference_rate);
    if (!timed) {
      state.SkipWithError("the operator failed");
      return;
    }
    const double elapsed = *timed;
    state.SetIterationTime(elapsed);
    seconds.push_back(elapsed);
    if (against_reference) {
      reference_rates.push_back(reference_rate);
      ratios.push_back(effective_bytes / elapsed / reference_rate);
      round_trips.push_back(CoreRoundTripNs(threads));
    }
  }
  if (seconds.empty()) return;
  const double median_seconds = Median(seconds);
  state.counters["median_us"] = median_seconds * 1e6;
  state.counters["GB/s"] = effective_bytes / median_seconds / 1e9;
  if (!against_reference) return;
  state.counters[std::string(name) + "_GB/s"] = Median(reference_rates) / 1e9;
  state.counters[std::string("x_") + name] = Median(ratios);
  state.counters[std::string("x_") + name + "_best"] =
      effective_bytes / *std::min_element(seconds.begin(), seconds.end()) / *std::max_element(reference_rates.begin(), reference_rates.end());
  if (threads > 1) state.counters["xcore_ns"] = Median(round_trips);
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

// How a benchmark lays out its row operands: dense, rows padded by 64 elements, the last two dims
// stored swapped (a transposed view; with a leading batch dim, NCHW memory as [N, H*W, C]), the
// first two ([B, S, H] over sequence-first [S, B, H] memory: batches of evenly spaced rows), or
// [T, heads, N] as the queries of [T, 3, heads, N] memory (a fused projection: runs of heads rows
// with gaps between).
enum class Layout { kContiguous, kPaddedRows, kTransposed, kSequenceFirst, kHeads };

// Device tensors a benchmark makes and frees, their values placed through the layout's strides.
class DeviceTensors {
 public:
  DeviceTensors() = default;
  DeviceTensors(const DeviceTensors &) = delete;
  DeviceTensors &operator=(const DeviceTensors &) = delete;
  ~DeviceTensors() {
    for (auto &tensor : owned_) {
      aclDestroyTensor(tensor.first);
      aclrtFree(tensor.second);
    }
  }

  // A tensor of dims in layout holding values (in row-major order of dims), touched outside the
  // timing.
  aclTensor *Make(const std::vector<int64_t> &dims, aclDataType dtype, Layout layout, const std::vector<double> &values) {
    const size_t rank = dims.size();
    // The dims in the order memory holds them, outermost first.
    std::vector<size_t> order(rank);
    for (size_t d = 0; d < rank; ++d) order[d] = d;
    if (layout == Layout::kTransposed && rank >= 2) std::swap(order[rank - 2], order[rank - 1]);
    if (layout == Layout::kSequenceFirst && rank >= 3) std::swap(order[0], order[1]);
    const int64_t pad = layout == Layout::kPaddedRows ? 64 : 0;
    std::vector<int64_t> strides(rank, 1);
    int64_t storage = 1;
    for (size_t k = rank; k-- > 0;) {
      if (k == 0 && layout == Layout::kHeads) storage *= 3;  // the keys and values after the queries
      strides[order[k]] = storage;
      storage *= dims[order[k]] + (k + 1 == rank ? pad : 0);
    }
    void *memory = nullptr;
    const size_t bytes = static_cast<size_t>(storage) * aclDataTypeSize(dtype);
    aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    std::memset(memory, 0, bytes);  // first touch outside the timing
    aclTensor *tensor = aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, &storage, 1, memory);
    // Values through a dense staging copy; the layout only matters to the operator.
    std::vector<uint8_t> dense = aclhost::testing::Encode(dtype, values);
    const size_t size = aclDataTypeSize(dtype);
    std::vector<int64_t> index(rank, 0);
    for (size_t linear = 0; linear < values.size(); ++linear) {
      int64_t position = 0;
      for (size_t d = 0; d < rank; ++d) position += index[d] * strides[d];
      std::memcpy(static_cast<char *>(memory) + position * static_cast<int64_t>(size), dense.data() + linear * size, size);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < dims[d]) break;
        index[d] = 0;
      }
    }
    owned_.emplace_back(tensor, memory);
    return tensor;
  }
 private:
  std::vector<std::pair<aclTensor *, void *>> owned_;
};

inline const char *DtypeName(aclDataType dtype) { return dtype == ACL_FLOAT ? "fp32" : dtype == ACL_FLOAT16 ? "fp16" : "bf16"; }

}  // namespace bench
}  // namespace aclhost
