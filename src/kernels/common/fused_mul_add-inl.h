// a * b + c rounded once (a fused multiply-add) with the same bits on every target: the CPU's
// FMA where the target has one, else computed exactly. Included once per target from a
// foreach_target translation unit.
#if defined(ACLNN_HOST_FUSED_MUL_ADD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_HOST_FUSED_MUL_ADD_INL_H_
#undef ACLNN_HOST_FUSED_MUL_ADD_INL_H_
#else
#define ACLNN_HOST_FUSED_MUL_ADD_INL_H_
#endif

#include <cmath>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if !HWY_NATIVE_FMA && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
// Targets without an FMA compute a * b + c in double: the product of two floats is exact there,
// and the sum's rounding to double then to float gives the exact value's nearest float except
// where the double sum is a tie between two floats (the 29 bits below float's last one a 1 and
// zeros) or lies among float's subnormals (whose ties sit higher); an exact zero is exact.
template <class DD>
HWY_INLINE hn::Mask<DD> MayRoundTwice(DD dd, hn::Vec<DD> sum) {
  const hn::RebindToUnsigned<DD> du;
  const auto below_float = hn::And(hn::BitCast(du, sum), hn::Set(du, (uint64_t{1} << 29) - 1));
  const auto tie = hn::RebindMask(dd, hn::Eq(below_float, hn::Set(du, uint64_t{1} << 28)));
  const auto magnitude = hn::Abs(sum);
  const auto subnormal = hn::And(hn::Lt(magnitude, hn::Set(dd, 0x1p-126)), hn::Lt(hn::Zero(dd), magnitude));
  return hn::Or(tie, subnormal);
}

// There the sum is rounded to odd instead: the nearest double `sum`, moved one step toward the
// exact sum where that was inexact and `sum` is even. Rounded on to float (nearest even), it
// gives the exact sum's nearest float, double having more than two bits beyond float's (Boldo
// and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding
// to odd", IEEE Trans. Computers 57(4), 2008). Exact products and their float addends neither
// overflow nor underflow in double, so the error term below is exact (NaN where an operand is
// infinite or NaN, which leaves the sum alone).
template <class DD>
HWY_INLINE hn::Vec<DD> RoundedToOdd(DD dd, hn::Vec<DD> product, hn::Vec<DD> addend, hn::Vec<DD> sum) {
  const hn::RebindToUnsigned<DD> du;
  const auto addend_part = hn::Sub(sum, product);  // Knuth's two-sum: the rounding error exactly
  const auto error = hn::Add(hn::Sub(product, hn::Sub(sum, addend_part)), hn::Sub(addend, addend_part));
  const auto bits = hn::BitCast(du, sum);
  const auto one = hn::Set(du, uint64_t{1});
  const auto inexact = hn::RebindMask(du, hn::Lt(hn::Zero(dd), hn::Abs(error)));
  const auto even = hn::Eq(hn::And(bits, one), hn::Zero(du));
  // A step away from zero where the error has the sum's sign, else toward zero.
  const auto away = hn::Eq(hn::ShiftRight<63>(hn::Xor(hn::BitCast(du, error), bits)), hn::Zero(du));
  const auto odd = hn::IfThenElse(away, hn::Add(bits, one), hn::Sub(bits, one));
  return hn::BitCast(dd, hn::IfThenElse(hn::And(inexact, even), odd, bits));
}

// a * b + c with one rounding, the float lanes of df through as many double lanes of dd.
template <class DF, class DD>
HWY_INLINE hn::Vec<DF> FusedMulAddInDouble(DF df, DD dd, hn::Vec<DF> a, hn::Vec<DF> b, hn::Vec<DF> c) {
  const auto addend = hn::PromoteTo(dd, c);
  const auto product = hn::Mul(hn::PromoteTo(dd, a), hn::PromoteTo(dd, b));  // exact
  auto sum = hn::Add(product, addend);
  if (HWY_UNLIKELY(!hn::AllFalse(dd, MayRoundTwice(dd, sum)))) sum = RoundedToOdd(dd, product, addend, sum);
  return hn::DemoteTo(df, sum);
}
#endif

// a * b + c with one rounding, float vectors of two lanes or more, or the scalar target's one.
// Targets without an FMA (SSE4 and below) go through double (FusedMulAddInDouble), half of a
// vector's lanes at a time; the scalar target calls the C library's fma, which uses the CPU's
// where it has one (Zen 4, one thread, (256, 1024) FLOAT in cache: 3.7 times the unfused scalar
// code's time; the double path took 4.6 times). So does the emulated 128-bit target, lane by
// lane, where a build has it instead of the scalar one (clang's: the sanitizer build): its
// double-to-float DemoteTo clamps what lies beyond float's range, infinities included, to the
// largest float, where rounding makes them infinite.
template <class D>
HWY_INLINE hn::Vec<D> FusedMulAdd(D d, hn::Vec<D> a, hn::Vec<D> b, hn::Vec<D> c) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulAdd(a, b, c);
#elif HWY_TARGET == HWY_SCALAR
  return hn::Set(d, std::fma(hn::GetLane(a), hn::GetLane(b), hn::GetLane(c)));
#elif HWY_TARGET == HWY_EMU128
  constexpr size_t kLanes = hn::MaxLanes(D());
  HWY_ALIGN float as[kLanes], bs[kLanes], cs[kLanes];
  hn::Store(a, d, as);
  hn::Store(b, d, bs);
  hn::Store(c, d, cs);
  for (size_t i = 0; i < kLanes; ++i) as[i] = std::fma(as[i], bs[i], cs[i]);
  return hn::Load(d, as);
#else
  const hn::Half<D> dh;
  const hn::Rebind<double, decltype(dh)> dd;
  const auto low = FusedMulAddInDouble(dh, dd, hn::LowerHalf(dh, a), hn::LowerHalf(dh, b), hn::LowerHalf(dh, c));
  const auto high = FusedMulAddInDouble(dh, dd, hn::UpperHalf(dh, a), hn::UpperHalf(dh, b), hn::UpperHalf(dh, c));
  return hn::Combine(d, high, low);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclhost
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_HOST_FUSED_MUL_ADD_INL_H_
