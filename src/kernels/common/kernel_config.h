// How kernels run: the SIMD target and the thread count, chosen from the CPU and the environment
// (ACLNN_HOST_ISA, ACLNN_HOST_NUM_THREADS). Results never depend on any of it.
#pragma once

#include <cstdint>

namespace aclhost {
namespace kernels {

enum class Isa { kScalar, kSse4, kAvx2, kAvx512 };

// Whose caches a kernel sizes its blocks and fetches for, where the best choice was measured to
// differ between CPUs (CPUID's vendor string and family): Intel's; AMD's family 1Ah (Zen 5); kOther
// every other CPU.
enum class CacheVendor { kOther, kIntel, kAmdZen5 };

// Whether a kernel fetches the rows it works on next into L1 whatever their length, rather than
// into L2 from some length on (each kernel's FetchesNextRowsIntoL2): Zen 5, where L1 measured
// faster for every row length in both kernels (docs/PERFORMANCE.md, nineteenth and twentieth
// sessions of 2026-12-04 and 2026-12-05).
inline bool FetchesNextRowsIntoL1Only(CacheVendor vendor) { return vendor == CacheVendor::kAmdZen5; }

struct KernelConfig {
  Isa isa = Isa::kScalar;
  int threads = 1;
  CacheVendor vendor = CacheVendor::kOther;
};

// The best target this CPU runs, unless ACLNN_HOST_ISA=scalar|sse4|avx2|avx512 asks for another;
// a target the CPU cannot run falls back to the best one, with a message on stderr. Threads: all
// online CPUs unless ACLNN_HOST_NUM_THREADS=N. The vendor: this CPU's (tests set either).
KernelConfig CurrentKernelConfig();

// Threads for `tasks` independent pieces of a problem of `elements` elements: at most
// config.threads and tasks, and few enough that each gets 2^15 elements (below that a thread
// team costs more than it saves); at least 1.
int ThreadsForWork(const KernelConfig &config, int64_t tasks, int64_t elements);

// Whether an output of `bytes` bytes is written around the caches with non-temporal stores: one
// larger than this would only evict the inputs, and a normal store first reads every line it
// writes, a third stream of memory traffic.
inline bool StreamsOutput(int64_t bytes) { return bytes > (int64_t{8} << 20); }

// Whether a call whose row operands take `bytes` together finds them in cache (half of a 1 MiB
// L2), where software fetches of the rows it works on next would only take load slots: the row
// passes of both kernels fetch no next rows then (the backward kernel's FetchesNextRows has the
// measurements). The fetch of later runs' rows (RowsAhead, rows in short runs) and the columns
// path's keep theirs: not measured in cache.
inline bool RowsInCache(int64_t bytes) { return bytes <= (int64_t{512} << 10); }

// Bytes of each operand moved through a per-thread tile at a time (a view the kernels cannot
// address row by row in place): three tiles stay in a 1 MiB L2, and a transposed view's columns
// move in runs that long (docs/PERFORMANCE.md, fifth session of 2026-12-03).
constexpr int64_t kTileBytes = int64_t{256} << 10;

const char *IsaName(Isa isa);

// Whether the CPU has AVX512_BF16 (vcvtneps2bf16: float32 to BF16 in one instruction), read once
// when the library loads. The AVX-512 code rounds to BF16 with it where it gives the same bits.
extern const bool kCpuHasAvx512Bf16;

// Whether the CPU (and this build) can run isa; scalar always (the build's fallback target).
bool IsaAvailable(Isa isa);

}  // namespace kernels
}  // namespace aclhost
