#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/common/fused_mul_add.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "kernels/common/dispatch.h"
#include "kernels/common/fused_mul_add-inl.h"
#include "kernels/common/fused_mul_add.h"

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {

void FusedMulAddArraysForTarget(const float *a, const float *b, const float *c, int64_t count, float *out) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= count; i += lanes) {
    hn::StoreU(FusedMulAdd(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i), hn::LoadU(d, c + i)), d, out + i);
  }
  const hn::CappedTag<float, 1> d1;  // the rest one lane at a time
  for (; i < count; ++i) {
    hn::StoreU(FusedMulAdd(d1, hn::LoadU(d1, a + i), hn::LoadU(d1, b + i), hn::LoadU(d1, c + i)), d1, out + i);
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
