#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/common/convert.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <limits>

#include "kernels/common/convert.h"
#include "kernels/common/dispatch.h"
#include "kernels/common/simd_convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {

// Every NaN of v as the one quiet NaN (aclhost::CanonicalNaN), so that a NaN result has the same
// bits on every target.
HWY_INLINE BlockVec CanonicalNaNs(BlockVec v) {
  const BlockTag d;
  return hn::IfThenElse(hn::IsNaN(v), hn::Set(d, std::numeric_limits<float>::quiet_NaN()), v);
}

template <ElementType T>
void NarrowBlocks(const float *in, int64_t count, void *out) {
  BlockVec block[kBlockVecs];
  auto canonical_nans = [&]() HWY_ATTR {
    for (int64_t v = 0; v < kBlockVecs; ++v) block[v] = CanonicalNaNs(block[v]);
  };
  int64_t n = 0;
  for (; n + kBlockLanes <= count; n += kBlockLanes) {
    LoadBlock<ElementType::kFloat32>(in, n, block);
    canonical_nans();
    StoreBlock<T>(block, out, n);
  }
  if (n < count) {
    ReadBlock<ElementType::kFloat32>(in, n, count, block);
    canonical_nans();
    WriteBlock<T>(block, out, n, count);
  }
}

void ConvertFloatsForTarget(const float *in, int64_t count, ElementType type, void *out) {
  switch (type) {
    case ElementType::kFloat16: return NarrowBlocks<ElementType::kFloat16>(in, count, out);
    case ElementType::kBFloat16: return NarrowBlocks<ElementType::kBFloat16>(in, count, out);
    case ElementType::kFloat32: return NarrowBlocks<ElementType::kFloat32>(in, count, out);
  }
}

template <ElementType T>
void WidenBlocks(const void *in, int64_t count, float *out) {
  const BlockTag d;
  BlockVec block[kBlockVecs];
  for (int64_t n = 0; n < count; n += kBlockLanes) {
    ReadBlock<T>(in, n, count, block);  // the last block zero-padded: out has room for it
    for (int64_t v = 0; v < kBlockVecs; ++v) hn::StoreU(block[v], d, out + n + v * kBlockWidth);
  }
}

void WidenToFloatsForTarget(const void *in, ElementType type, int64_t count, float *out) {
  switch (type) {
    case ElementType::kFloat16: return WidenBlocks<ElementType::kFloat16>(in, count, out);
    case ElementType::kBFloat16: return WidenBlocks<ElementType::kBFloat16>(in, count, out);
    case ElementType::kFloat32: return WidenBlocks<ElementType::kFloat32>(in, count, out);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclhost
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclhost {
namespace kernels {

void ConvertFloats(const float *in, int64_t count, ElementType type, void *out, Isa isa) {
  ACLHOST_FUNCTION_FOR_ISA(isa, ConvertFloatsForTarget)(in, count, type, out);
}

void WidenToFloats(const void *in, ElementType type, int64_t count, float *out, Isa isa) {
  ACLHOST_FUNCTION_FOR_ISA(isa, WidenToFloatsForTarget)(in, type, count, out);
}

void WidenNarrow(const void **vector, ElementType *type, int64_t count, float *into, Isa isa) {
  if (*vector == nullptr || *type == ElementType::kFloat32) return;
  WidenToFloats(*vector, *type, count, into, isa);
  *vector = into;
  *type = ElementType::kFloat32;
}

}  // namespace kernels
}  // namespace aclhost
#endif  // HWY_ONCE
