#include "column_runs_floor.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "acl/acl.h"
#include "hwy/cache_control.h"
#include "simd_passes.h"
#include "warm_case.h"

namespace aclhost {
namespace bench {

namespace {

constexpr int64_t kLine = FloorOperands::kLineBytes;

void *AllocateTouched(size_t bytes, unsigned char fill) {
  void *memory = nullptr;
  if (aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) throw std::bad_alloc();
  std::memset(memory, fill, bytes);
  return memory;
}

void FetchIntoL2(const char *at, int64_t bytes) {
  for (int64_t byte = 0; byte < bytes; byte += kLine) __builtin_prefetch(at + byte, 0, 2);
}

}  // namespace

FloorOperands::FloorOperands(int64_t rows, int64_t cols, size_t element_size)
    : rows_(rows), cols_(cols), element_size_(element_size) {
  if (rows * static_cast<int64_t>(element_size) % kLine != 0) throw std::invalid_argument("rows must fill whole 64-byte lines");
  const size_t bytes = static_cast<size_t>(rows * cols) * element_size;
  grad_out_ = AllocateTouched(bytes, 0x3c);
  input_ = AllocateTouched(bytes, 0x5a);
  grad_input_ = AllocateTouched(bytes, 0);
}

FloorOperands::~FloorOperands() {
  for (void *memory : {grad_out_, input_, grad_input_}) aclrtFree(memory);
}

double FloorOperands::effective_bytes() const {
  return EffectiveBytes(static_cast<double>(rows_ * cols_), static_cast<double>(element_size_), false);
}

void FloorOperands::DensePass(int threads) {
  const int64_t lines = rows_ * cols_ * static_cast<int64_t>(element_size_) / kLine;
  const char *const go = static_cast<const char *>(grad_out_), *const x = static_cast<const char *>(input_);
  char *const gi = static_cast<char *>(grad_input_);
  constexpr int64_t kLinesATask = 1024;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t first = 0; first < lines; first += kLinesATask) {
    const int64_t at = first * kLine, bytes = std::min(kLinesATask, lines - first) * kLine;
    WriteFromBoth(go + at, x + at, gi + at, bytes);
  }
  hwy::FlushStream();
}

void FloorOperands::TwoPassColumns(int threads, int64_t block_rows) {
  const int64_t size = static_cast<int64_t>(element_size_), column_bytes = rows_ * size;
  if (block_rows * size % kLine != 0) throw std::invalid_argument("blocks must fill whole 64-byte lines");
  const char *const go = static_cast<const char *>(grad_out_), *const x = static_cast<const char *>(input_);
  char *const gi = static_cast<char *>(grad_input_);
  const int64_t blocks = (rows_ + block_rows - 1) / block_rows;
  constexpr int64_t kFetchColumnsAhead = 2;
  uint64_t checksum = 0;
  // Each thread the next block, as the operator takes blocks of whole lines in one batch
  // (TakesColumnBlocksInTurn); consecutive blocks a thread measured 5-8 % slower.
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(^ : checksum)
  for (int64_t block = 0; block < blocks; ++block) {
    const int64_t first = block * block_rows * size, run_bytes = std::min(block_rows * size, column_bytes - first);
    auto fetch_ahead = [&](int64_t n) {
      if (n + kFetchColumnsAhead >= cols_) return;
      const int64_t at = (n + kFetchColumnsAhead) * column_bytes + first;
      FetchIntoL2(go + at, run_bytes);
      FetchIntoL2(x + at, run_bytes);
    };
    for (int64_t n = 0; n < cols_; ++n) {
      fetch_ahead(n);
      checksum ^= ReadBoth(go + n * column_bytes + first, x + n * column_bytes + first, run_bytes);
    }
    for (int64_t n = 0; n < cols_; ++n) {
      fetch_ahead(n);
      const int64_t at = n * column_bytes + first;
      WriteFromBoth(go + at, x + at, gi + at, run_bytes);
    }
  }
  hwy::FlushStream();
  benchmark::DoNotOptimize(checksum);
}

void FloorOperands::TwoPassWholeColumns(int threads) {
  const int64_t column_bytes = rows_ * static_cast<int64_t>(element_size_);
  const char *const go = static_cast<const char *>(grad_out_), *const x = static_cast<const char *>(input_);
  char *const gi = static_cast<char *>(grad_input_);
  uint64_t checksum = 0;
#pragma omp parallel num_threads(threads) reduction(^ : checksum)
  {
    const int64_t team = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t begin = cols_ * thread / team * column_bytes, bytes = cols_ * (thread + 1) / team * column_bytes - begin;
    checksum ^= ReadBoth(go + begin, x + begin, bytes);
#pragma omp barrier
    WriteFromBoth(go + begin, x + begin, gi + begin, bytes);
  }
  hwy::FlushStream();
  benchmark::DoNotOptimize(checksum);
}

void FloorOperands::TwoPassRows(int threads, int64_t group_rows, int64_t pass1_burst, int64_t pass2_burst) {
  const int64_t row_bytes = cols_ * static_cast<int64_t>(element_size_), groups = (rows_ + group_rows - 1) / group_rows;
  if (row_bytes % kLine != 0) throw std::invalid_argument("rows must fill whole 64-byte lines");
  if (group_rows < 1) throw std::invalid_argument("a group holds a row at least");
  for (const int64_t burst : {pass1_burst, pass2_burst}) {
    if (burst < 0 || burst % kLine != 0) throw std::invalid_argument("bursts must be whole 64-byte lines");
  }
  const char *const go = static_cast<const char *>(grad_out_), *const x = static_cast<const char *>(input_);
  char *const gi = static_cast<char *>(grad_input_);
  uint64_t checksum = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(^ : checksum)
  for (int64_t group = 0; group < groups; ++group) {
    const int64_t first = group * group_rows * row_bytes, count = std::min(group_rows, rows_ - group * group_rows);
    // visit(offset, bytes) for each burst of the group's rows, the rows' first bursts first.
    auto in_bursts = [&](int64_t burst, auto visit) {
      if (burst == kWholeRow || burst > row_bytes) burst = row_bytes;
      for (int64_t begin = 0; begin < row_bytes; begin += burst) {
        for (int64_t row = 0; row < count; ++row) visit(first + row * row_bytes + begin, std::min(burst, row_bytes - begin));
      }
    };
    in_bursts(pass1_burst, [&](int64_t at, int64_t bytes) { checksum ^= ReadBoth(go + at, x + at, bytes); });
    in_bursts(pass2_burst, [&](int64_t at, int64_t bytes) { WriteFromBoth(go + at, x + at, gi + at, bytes); });
  }
  hwy::FlushStream();
  benchmark::DoNotOptimize(checksum);
}

}  // namespace bench
}  // namespace aclhost
