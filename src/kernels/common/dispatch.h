// Picking a kernel's per-target instance for an Isa, for use in a foreach_target file's HWY_ONCE
// section: a target this build did not compile falls back to the scalar one.
#pragma once

#include "hwy/highway.h"
#include "kernels/common/kernel_config.h"

namespace aclhost {
namespace kernels {

template <typename Function>
Function PickForIsa(Isa isa, Function avx512, Function avx2, Function sse4, Function scalar) {
  Function chosen = scalar;
  switch (isa) {
    case Isa::kAvx512: chosen = avx512; break;
    case Isa::kAvx2: chosen = avx2; break;
    case Isa::kSse4: chosen = sse4; break;
    case Isa::kScalar: break;
  }
  return chosen != nullptr ? chosen : scalar;
}

}  // namespace kernels
}  // namespace aclhost

#define ACLHOST_FUNCTION_FOR_ISA(isa, FUNCTION)                                                     \
  ::aclhost::kernels::PickForIsa<decltype(HWY_CHOOSE_FALLBACK(FUNCTION))>(                         \
      isa, HWY_CHOOSE_AVX3(FUNCTION), HWY_CHOOSE_AVX2(FUNCTION), HWY_CHOOSE_SSE4(FUNCTION), \
      HWY_CHOOSE_FALLBACK(FUNCTION))
