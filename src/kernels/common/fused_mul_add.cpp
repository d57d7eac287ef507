#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/common/fused_mul_add.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cstring>

#include "kernels/common/dispatch.h"
#include "kernels/common/fused_mul_add-inl.h"
#include "kernels/common/fused_mul_add.h"

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {

void FusedMulAddArraysForTarget(const float *a, const float *b, const float *c, int64_t count, float *out) {
  const hn::ScalableTag<float> d;
  constexpr size_t kLanes = hn::MaxLanes(d);
  for (int64_t i = 0; i < count; i += static_cast<int64_t>(kLanes)) {
    // Whole vectors, as the kernels take them: the last one's missing lanes are zeros.
    const size_t lanes = std::min(kLanes, static_cast<size_t>(count - i));
    HWY_ALIGN float lanes_a[kLanes] = {}, lanes_b[kLanes] = {}, lanes_c[kLanes] = {}, lanes_out[kLanes];
    std::memcpy(lanes_a, a + i, lanes * sizeof(float));
    std::memcpy(lanes_b, b + i, lanes * sizeof(float));
    std::memcpy(lanes_c, c + i, lanes * sizeof(float));
    hn::Store(FusedMulAdd(d, hn::Load(d, lanes_a), hn::Load(d, lanes_b), hn::Load(d, lanes_c)), d, lanes_out);
    std::memcpy(out + i, lanes_out, lanes * sizeof(float));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclhost
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclhost {
namespace kernels {

void FusedMulAddArrays(const float *a, const float *b, const float *c, int64_t count, float *out, Isa isa) {
  ACLHOST_FUNCTION_FOR_ISA(isa, FusedMulAddArraysForTarget)(a, b, c, count, out);
}

}  // namespace kernels
}  // namespace aclhost
#endif  // HWY_ONCE
