#include "kernels/common/kernel_config.h"

#include <algorithm>

#include <cpuid.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "hwy/highway.h"

namespace aclhost {
namespace kernels {
namespace {

struct IsaInfo {
  Isa isa;
  const char *name;
  int64_t hwy_targets;  // the Highway targets that run it (a mask)
};

// Best first.
constexpr IsaInfo kIsas[] = {
    {Isa::kAvx512, "avx512", HWY_AVX3},
    {Isa::kAvx2, "avx2", HWY_AVX2},
    {Isa::kSse4, "sse4", HWY_SSE4},
    // The dispatch's fallback (ACLHOST_FUNCTION_FOR_ISA), whichever of the two a build compiles
    // (clang's builds the emulated 128-bit target instead of the scalar one): every build runs it.
    {Isa::kScalar, "scalar", HWY_SCALAR | HWY_EMU128},
};

Isa BestIsa() {
  for (const IsaInfo &info : kIsas) {
    if (IsaAvailable(info.isa)) return info.isa;
  }
  return Isa::kScalar;
}

// CPUID leaf 7, sub-leaf 1, EAX bit 5. Only AVX-512 code asks, which runs only where the CPU and
// the OS support AVX-512.
bool DetectAvx512Bf16() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax & (1u << 5)) != 0;
}

// CPUID leaf 0: the vendor string in EBX, EDX, ECX; for AMD, leaf 1's family (the base family,
// plus the extended family where the base is 0Fh). Asked once per process.
CacheVendor DetectVendor() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return CacheVendor::kOther;
  char vendor[12];
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  if (std::memcmp(vendor, "GenuineIntel", sizeof vendor) == 0) return CacheVendor::kIntel;
  if (std::memcmp(vendor, "AuthenticAMD", sizeof vendor) != 0 || __get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) {
    return CacheVendor::kOther;
  }
  const unsigned base_family = (eax >> 8) & 0xF;
  const unsigned family = base_family == 0xF ? base_family + ((eax >> 20) & 0xFF) : base_family;
  constexpr unsigned kZen5Family = 0x1A;
  return family == kZen5Family ? CacheVendor::kAmdZen5 : CacheVendor::kOther;
}

// Highway asks CPUID, which a hypervisor may trap: the answer is taken once per process.
int64_t SupportedTargets() {
  static const int64_t supported = hwy::SupportedTargets();
  return supported;
}

// Says once per distinct request that it cannot be honoured.
void WarnOnce(const std::string &text) {
  static std::mutex mutex;
  static std::set<std::string> *said = new std::set<std::string>;
  std::lock_guard<std::mutex> lock(mutex);
  if (said->insert(text).second) std::fprintf(stderr, "aclnn-host: %s\n", text.c_str());
}

Isa RequestedIsa() {
  const char *requested = std::getenv("ACLNN_HOST_ISA");
  const Isa best = BestIsa();
  if (requested == nullptr || *requested == '\0') return best;
  for (const IsaInfo &info : kIsas) {
    if (std::strcmp(requested, info.name) != 0) continue;
    if (IsaAvailable(info.isa)) return info.isa;
    WarnOnce(std::string("ACLNN_HOST_ISA=") + requested + " is not supported by this CPU; using " + IsaName(best));
    return best;
  }
  WarnOnce(std::string("ACLNN_HOST_ISA=") + requested + " is not one of scalar, sse4, avx2, avx512; using " + IsaName(best));
  return best;
}

int OnlineCpus() {
  // Reading it costs a file read; the count of online CPUs is taken once per process.
  static const int online = [] {
    const long count = sysconf(_SC_NPROCESSORS_ONLN);
    return count > 0 ? static_cast<int>(count) : 1;
  }();
  return online;
}

int RequestedThreads() {
  const int all = OnlineCpus();
  const char *requested = std::getenv("ACLNN_HOST_NUM_THREADS");
  if (requested == nullptr || *requested == '\0') return all;
  char *end = nullptr;
  const long value = std::strtol(requested, &end, 10);
  if (*end != '\0' || value < 1 || value > 1024) {
    WarnOnce(std::string("ACLNN_HOST_NUM_THREADS=") + requested + " is not a thread count from 1 to 1024; using " +
             std::to_string(all));
    return all;
  }
  return static_cast<int>(value);
}

}  // namespace

bool IsaAvailable(Isa isa) {
  for (const IsaInfo &info : kIsas) {
    if (info.isa == isa) return (HWY_TARGETS & info.hwy_targets) != 0 && (SupportedTargets() & info.hwy_targets) != 0;
  }
  return false;
}

const char *IsaName(Isa isa) {
  for (const IsaInfo &info : kIsas) {
    if (info.isa == isa) return info.name;
  }
  return "unknown";
}

KernelConfig CurrentKernelConfig() {
  KernelConfig config;
  config.isa = RequestedIsa();
  config.threads = RequestedThreads();
  static const CacheVendor vendor = DetectVendor();
  config.vendor = vendor;
  return config;
}

const bool kCpuHasAvx512Bf16 = DetectAvx512Bf16();

int ThreadsForWork(const KernelConfig &config, int64_t tasks, int64_t elements) {
  constexpr int64_t kMinElementsPerThread = 1 << 15;
  const int64_t threads = std::min<int64_t>({config.threads, tasks, elements / kMinElementsPerThread});
  return threads < 1 ? 1 : static_cast<int>(threads);
}

}  // namespace kernels
}  // namespace aclhost
