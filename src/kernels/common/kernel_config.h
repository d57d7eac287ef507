// How kernels run: the SIMD target and the thread count, chosen from the CPU and the environment
// (ACLNN_HOST_ISA, ACLNN_HOST_NUM_THREADS). Results never depend on either.
#pragma once

namespace aclhost {
namespace kernels {

enum class Isa { kScalar, kSse4, kAvx2, kAvx512 };

struct KernelConfig {
  Isa isa = Isa::kScalar;
  int threads = 1;
};

// The best target this CPU runs, unless ACLNN_HOST_ISA=scalar|sse4|avx2|avx512 asks for another;
// a target the CPU cannot run falls back to the best one, with a message on stderr. Threads: all
// online CPUs unless ACLNN_HOST_NUM_THREADS=N.
KernelConfig CurrentKernelConfig();

const char *IsaName(Isa isa);

// Whether the CPU (and this build) can run isa.
bool IsaAvailable(Isa isa);

}  // namespace kernels
}  // namespace aclhost
