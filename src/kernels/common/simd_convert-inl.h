// Per-target SIMD loads and stores of float32 / float16 / bfloat16 as float32, rounding to
// nearest even with integer arithmetic that gives the same bits on every target (Highway's own
// 16-bit demotions truncate on some targets), plus the 16-lane block helpers the kernels share.
// Included once per target from a foreach_target translation unit.
#if defined(ACLNN_HOST_SIMD_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_HOST_SIMD_CONVERT_INL_H_
#undef ACLNN_HOST_SIMD_CONVERT_INL_H_
#else
#define ACLNN_HOST_SIMD_CONVERT_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "kernels/common/element_type.h"
#include "kernels/common/kernel_config.h"

HWY_BEFORE_NAMESPACE();
namespace aclhost {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Kernels work in blocks of this many logical lanes, whatever the vector width.
constexpr int64_t kBlockLanes = 16;
using BlockTag = hn::CappedTag<float, kBlockLanes>;
using BlockVec = hn::Vec<BlockTag>;
// Vectors per block, known at compile time so that a block lives in registers.
constexpr int64_t kBlockWidth = static_cast<int64_t>(hn::MaxLanes(BlockTag()));
constexpr int64_t kBlockVecs = kBlockLanes / kBlockWidth;
static_assert(kBlockVecs * kBlockWidth == kBlockLanes, "a block is a whole number of vectors");

// float16 bits (in 32-bit lanes) to float32, exactly: the exponent is rebased by a multiply by
// 2^112, which also turns subnormals into the right normals; Inf and NaN keep their payload.
template <class D>
HWY_INLINE hn::Vec<D> HalfBitsToFloat(D d, hn::Vec<hn::RebindToUnsigned<D>> bits) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto magnitude = hn::And(bits, hn::Set(du, 0x7FFFu));
  const auto sign = hn::ShiftLeft<16>(hn::And(bits, hn::Set(du, 0x8000u)));
  const auto finite = hn::Mul(hn::BitCast(d, hn::ShiftLeft<13>(magnitude)), hn::Set(d, 0x1p112f));
  const auto inf_or_nan = hn::BitCast(d, hn::Or(hn::Set(du, 0x7F800000u), hn::ShiftLeft<13>(hn::And(magnitude, hn::Set(du, 0x3FFu)))));
  const auto is_inf_or_nan = hn::RebindMask(d, hn::Gt(hn::BitCast(di, magnitude), hn::Set(di, 0x7BFF)));
  return hn::Or(hn::IfThenElse(is_inf_or_nan, inf_or_nan, finite), hn::BitCast(d, sign));
}

// float32 to float16 bits (in 32-bit lanes), round to nearest even; same results as
// aclhost::FloatToHalf. Subnormal results come from adding 0.5, whose ulp is 2^-24.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<D>> FloatToHalfBits(D d, hn::Vec<D> value) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(du, value);
  const auto magnitude = hn::And(bits, hn::Set(du, 0x7FFFFFFFu));
  const auto sign = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 0x8000u));
  const auto subnormal = hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(d, magnitude), hn::Set(d, 0.5f))), hn::Set(du, 0x3F000000u));
  const auto odd = hn::And(hn::ShiftRight<13>(magnitude), hn::Set(du, 1u));
  const auto normal = hn::ShiftRight<13>(hn::Add(hn::Add(magnitude, hn::Set(du, 0xFFFu - 0x38000000u)), odd));
  const auto nan = hn::Or(hn::Set(du, 0x7E00u), hn::And(hn::ShiftRight<13>(magnitude), hn::Set(du, 0x3FFu)));
  const auto signed_magnitude = hn::BitCast(di, magnitude);
  auto half = hn::IfThenElse(hn::RebindMask(du, hn::Lt(signed_magnitude, hn::Set(di, 0x38800000))), subnormal, normal);
  half = hn::IfThenElse(hn::RebindMask(du, hn::Gt(signed_magnitude, hn::Set(di, 0x477FFFFF))), hn::Set(du, 0x7C00u), half);
  half = hn::IfThenElse(hn::RebindMask(du, hn::Gt(signed_magnitude, hn::Set(di, 0x7F800000))), nan, half);
  return hn::Or(half, sign);
}

// float32 to bfloat16 bits (in 32-bit lanes), round to nearest even; same as aclhost::FloatToBf16.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<D>> FloatToBf16Bits(D /*d*/, hn::Vec<D> value) {
  const hn::RebindToUnsigned<D> du;
  const auto bits = hn::BitCast(du, value);
  const auto high = hn::ShiftRight<16>(bits);
  const auto rounded = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7FFFu), hn::And(high, hn::Set(du, 1u)))));
  const auto is_nan = hn::RebindMask(du, hn::IsNaN(value));
  return hn::IfThenElse(is_nan, hn::Or(high, hn::Set(du, 0x40u)), rounded);
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// 16 BF16 values at `at` as floats: one word permutation puts each in the high half of its 32-bit
// lane, the mask zeroes the low halves. The other targets' widening and shift is two
// instructions, and the shift takes a port the kernels' adds need (Zen 4: a BF16 load and 4 adds
// 0.56 -> 0.39 ns, measured in a loop of the instructions alone, outside the repo).
// Float i from the BF16 word of `words` that word 2i + 1 of source_word names (the odd words
// only are read), the way Bf16ToFloatByPermutation and the kernels' in-register squares widen.
HWY_INLINE hn::Vec<hn::Full512<float>> Bf16WordsToFloat(__m512i words, __m512i source_word) {
  return hn::Vec<hn::Full512<float>>{_mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(0xAAAAAAAAu, source_word, words))};
}

HWY_INLINE hn::Vec<hn::Full512<float>> Bf16ToFloatByPermutation(const uint16_t *at) {
  const __m512i words = _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(at)));
  const __m512i source_word = _mm512_set_epi16(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 4, 4,
                                               3, 3, 2, 2, 1, 1, 0, 0);  // word 2i + 1 takes word i
  return Bf16WordsToFloat(words, source_word);
}
#endif

// Lanes(d) elements of type T at base + index, as float32.
template <ElementType T, class D>
HWY_INLINE hn::Vec<D> LoadAsFloat(D d, const void *base, int64_t index) {
  if constexpr (T == ElementType::kFloat32) {
    return hn::LoadU(d, static_cast<const float *>(base) + index);
  } else {
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<uint16_t, D> du16;
#if HWY_TARGET <= HWY_AVX2
    // F16C converts exactly, like HalfBitsToFloat.
    if constexpr (T == ElementType::kFloat16) {
      const hn::Rebind<hwy::float16_t, D> df16;
      return hn::PromoteTo(d, hn::LoadU(df16, static_cast<const hwy::float16_t *>(base) + index));
    }
#endif
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (T == ElementType::kBFloat16 && hn::MaxLanes(D()) == 16) {
      return Bf16ToFloatByPermutation(static_cast<const uint16_t *>(base) + index);
    }
#endif
    const auto bits = hn::PromoteTo(du, hn::LoadU(du16, static_cast<const uint16_t *>(base) + index));
    if constexpr (T == ElementType::kBFloat16) return hn::BitCast(d, hn::ShiftLeft<16>(bits));
    return HalfBitsToFloat(d, bits);
  }
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// The lanes of value that are subnormal (vfpclassps class 0x20), which the CPU's BF16 rounding
// reads as zero.
HWY_INLINE __mmask16 SubnormalLanes(hn::Vec<hn::Full512<float>> value) { return _mm512_fpclass_ps_mask(value.raw, 0x20); }

// 16 floats rounded to BF16 bits by vcvtneps2bf16 where the CPU has it: nearest even and NaNs
// quieted (bit 6 set) as FloatToBf16Bits does, but subnormal inputs read as zero, so a vector
// holding one (SubnormalLanes) is left to the integer path. False when not rounded.
HWY_INLINE bool RoundToBf16Natively(hn::Vec<hn::Full512<float>> value, hn::Vec<hn::Full256<uint16_t>> *bits) {
  if (!kCpuHasAvx512Bf16 || SubnormalLanes(value) != 0) return false;
  __m256i rounded;
  // Inline assembly: Highway 1.0.3 has no target with AVX512_BF16 to compile the intrinsic for.
  asm("vcvtneps2bf16 %1, %0" : "=v"(rounded) : "v"(value.raw));
  bits->raw = rounded;
  return true;
}

// The same for 32 floats, first's in the low half: one vcvtne2ps2bf16 instead of two
// vcvtneps2bf16, and one 64-byte store instead of two of 32 (StoreBlockPair).
HWY_INLINE bool RoundPairToBf16Natively(hn::Vec<hn::Full512<float>> first, hn::Vec<hn::Full512<float>> second,
                                        hn::Vec<hn::Full512<uint16_t>> *bits) {
  if (!kCpuHasAvx512Bf16 || (SubnormalLanes(first) | SubnormalLanes(second)) != 0) return false;
  __m512i rounded;
  asm("vcvtne2ps2bf16 %2, %1, %0" : "=v"(rounded) : "v"(second.raw), "v"(first.raw));
  bits->raw = rounded;
  return true;
}
#endif

// kStream: a non-temporal store, which skips reading the line into the cache first; the address
// must be aligned to the vector and FlushStream must follow before anyone reads the data. A vector
// of less than 16 bytes (16-bit lanes from SSE4's four floats) is stored as usual: Highway's Stream
// writes 16 bytes whatever the vector, past its end and, at an address 8 bytes off, faulting.
template <bool kStream, class D, typename Lane>
HWY_INLINE void Put(hn::Vec<D> value, D d, Lane *at) {
  if constexpr (kStream && hn::MaxLanes(D()) * sizeof(Lane) >= 16) {
    hn::Stream(value, d, at);
  } else {
    hn::StoreU(value, d, at);
  }
}

// value rounded to T at base + index (see Put for kStream).
template <ElementType T, bool kStream = false, class D>
HWY_INLINE void StoreFromFloat(D d, hn::Vec<D> value, void *base, int64_t index) {
  if constexpr (T == ElementType::kFloat32) {
    Put<kStream>(value, d, static_cast<float *>(base) + index);
  } else {
    const hn::Rebind<uint16_t, D> du16;
    uint16_t *const at = static_cast<uint16_t *>(base) + index;
#if HWY_TARGET <= HWY_AVX2
    // F16C rounds to nearest even and quiets NaNs exactly as FloatToHalfBits does.
    if constexpr (T == ElementType::kFloat16) {
      const hn::Rebind<hwy::float16_t, D> df16;
      Put<kStream>(hn::BitCast(du16, hn::DemoteTo(df16, value)), du16, at);
      return;
    }
#endif
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (T == ElementType::kBFloat16 && hn::MaxLanes(D()) == 16) {
      hn::Vec<decltype(du16)> rounded;
      if (RoundToBf16Natively(value, &rounded)) {
        Put<kStream>(rounded, du16, at);
        return;
      }
    }
#endif
    const hn::RebindToSigned<D> di;
    const auto bits = T == ElementType::kBFloat16 ? FloatToBf16Bits(d, value) : FloatToHalfBits(d, value);
    Put<kStream>(hn::DemoteTo(du16, hn::BitCast(di, bits)), du16, at);
  }
}

// kBlockLanes elements of type T from base + index, as float32, in kBlockLanes / Lanes vectors.
template <ElementType T>
HWY_INLINE void LoadBlock(const void *base, int64_t index, BlockVec *out) {
  const BlockTag d;
  for (int64_t v = 0; v < kBlockVecs; ++v) out[v] = LoadAsFloat<T>(d, base, index + v * kBlockWidth);
}

// The lanes of one vector summed in the fixed pairwise tree ((lane l + lane l + half) for half =
// lanes / 2, then / 4, ...), with shuffles instead of a trip through memory.
template <class D>
HWY_INLINE float SumWithinVector(D d, hn::Vec<D> x) {
#if HWY_TARGET == HWY_SCALAR
  (void)d;
  return hn::GetLane(x);  // one lane
#else
  if constexpr (hn::MaxLanes(D()) > 4) {
    const hn::Half<D> dh;
    return SumWithinVector(dh, hn::Add(hn::LowerHalf(dh, x), hn::UpperHalf(dh, x)));
  } else {
    static_assert(hn::MaxLanes(D()) == 4, "float vectors of 4, 8 or 16 lanes");
    (void)d;
    x = hn::Add(x, hn::Shuffle1032(x));
    x = hn::Add(x, hn::Shuffle2301(x));
    return hn::GetLane(x);
  }
#endif
}

// The 16 logical lanes of a block summed in the fixed pairwise tree ((l0 + l8) + (l4 + l12)) + ...:
// the same adds in the same order as lane by lane in memory, on every target.
HWY_INLINE float SumBlockLanes(const BlockVec *block) {
  BlockVec v[kBlockVecs];
  for (int64_t i = 0; i < kBlockVecs; ++i) v[i] = block[i];
  for (int64_t count = kBlockVecs; count > 1; count /= 2) {
    for (int64_t i = 0; i < count / 2; ++i) v[i] = hn::Add(v[i], v[i + count / 2]);
  }
  return SumWithinVector(BlockTag(), v[0]);
}

// Reads the block of a row that starts at column n; the row's last block is zero-padded, so that
// every block looks the same to the arithmetic.
template <ElementType T>
HWY_INLINE void ReadBlock(const void *row, int64_t n, int64_t cols, BlockVec *out) {
  if (n + kBlockLanes <= cols) {
    LoadBlock<T>(row, n, out);
    return;
  }
  const size_t size = ElementSize(T);
  const char *const from = static_cast<const char *>(row) + n * static_cast<int64_t>(size);
  const size_t bytes = static_cast<size_t>(cols - n) * size;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // One masked load, which reads no byte past the row's end (AVX-512 masks suppress faults), and
  // the block stored whole: a memcpy's small stores made the block's wide load wait (no store
  // forwarding), in every partial block of a row or a column's run. Same bytes. Zen 5, two
  // threads, alternating builds call by call: backward (65536, 100) FLOAT 1.79 -> 1.33 ms (12 of
  // 12 pairs), (65536, 197) BF16 2.25 -> 1.99 (12 of 12), NCHW memory (32, 3136, 128) BF16 3.89 ->
  // 3.20 (9 of 10); forward (65536, 197) BF16 2.19 -> 1.43 (11 of 12). Writes keep the memcpy: a
  // masked store measured slower ((65536, 100) FLOAT backward 1.84 -> 2.13 ms, 0 of 12).
  constexpr size_t kBlockBytes = kBlockLanes * ElementSize(T);
  const hn::FixedTag<uint8_t, kBlockBytes> d8;
  alignas(64) uint8_t whole[kBlockBytes];
  hn::Store(hn::MaskedLoad(hn::FirstN(d8, bytes), d8, reinterpret_cast<const uint8_t *>(from)), d8, whole);
  LoadBlock<T>(whole, 0, out);
#else
  alignas(64) uint8_t padded[kBlockLanes * 4] = {};
  std::memcpy(padded, from, bytes);
  LoadBlock<T>(padded, 0, out);
#endif
}

// Writes the whole block at column n, rounding to T; kStream: with non-temporal stores (row + n
// must then be 64-byte aligned). Loops over whole blocks call this rather than WriteBlock, whose
// path for a partial block (a memcpy call) made GCC keep such a loop's vectors on the stack.
template <ElementType T, bool kStream = false>
HWY_INLINE void StoreBlock(const BlockVec *values, void *row, int64_t n) {
  const BlockTag d;
  for (int64_t v = 0; v < kBlockVecs; ++v) StoreFromFloat<T, kStream>(d, values[v], row, n + v * kBlockWidth);
}

// StoreBlock of two whole blocks, first at column n and second after it: 16-bit values from
// 16-lane vectors written as one line (BF16 rounded by one instruction: RoundPairToBf16Natively),
// else block by block.
template <ElementType T, bool kStream = false>
HWY_INLINE void StoreBlockPair(const BlockVec *first, const BlockVec *second, void *row, int64_t n) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (T == ElementType::kBFloat16 && kBlockVecs == 1) {
    const hn::Full512<uint16_t> du16;
    hn::Vec<hn::Full512<uint16_t>> rounded;
    if (RoundPairToBf16Natively(first[0], second[0], &rounded)) {
      Put<kStream>(rounded, du16, static_cast<uint16_t *>(row) + n);
      return;
    }
  }
  if constexpr (T == ElementType::kFloat16 && kBlockVecs == 1) {
    // F16C as in StoreFromFloat, the two halves joined into one line.
    const hn::Full256<hwy::float16_t> dh;
    const hn::Full512<hwy::float16_t> dh2;
    const hn::Full512<uint16_t> du16;
    const auto line = hn::Combine(dh2, hn::DemoteTo(dh, second[0]), hn::DemoteTo(dh, first[0]));
    Put<kStream>(hn::BitCast(du16, line), du16, static_cast<uint16_t *>(row) + n);
    return;
  }
#endif
  StoreBlock<T, kStream>(first, row, n);
  StoreBlock<T, kStream>(second, row, n + kBlockLanes);
}

// Blocks of T a 64-byte line holds (1 FLOAT, 2 16-bit): what StoreBlockPair writes at once.
constexpr int64_t LineBlocks(ElementType T) { return 64 / (kBlockLanes * static_cast<int64_t>(ElementSize(T))); }

// StoreBlock and StoreBlockPair streamed or not as `stream` says at run time.
template <ElementType T>
HWY_INLINE void StoreBlockStreamedIf(bool stream, const BlockVec *values, void *row, int64_t n) {
  if (stream) {
    StoreBlock<T, true>(values, row, n);
  } else {
    StoreBlock<T>(values, row, n);
  }
}
template <ElementType T>
HWY_INLINE void StoreBlockPairStreamedIf(bool stream, const BlockVec *first, const BlockVec *second, void *row, int64_t n) {
  if (stream) {
    StoreBlockPair<T, true>(first, second, row, n);
  } else {
    StoreBlockPair<T>(first, second, row, n);
  }
}

// Writes the block that starts at column n, rounding to T; only columns below cols are touched.
template <ElementType T>
HWY_INLINE void WriteBlock(const BlockVec *values, void *row, int64_t n, int64_t cols) {
  const BlockTag d;
  if (n + kBlockLanes <= cols) {
    StoreBlock<T>(values, row, n);
    return;
  }
  alignas(64) uint8_t padded[kBlockLanes * 4];
  for (int64_t v = 0; v < kBlockVecs; ++v) StoreFromFloat<T>(d, values[v], padded, v * kBlockWidth);
  const size_t size = ElementSize(T);
  // At most the block (bounded for GCC's -Warray-bounds, which cannot see it from the test above).
  const size_t bytes = std::min(static_cast<size_t>(cols - n) * size, sizeof(padded));
  std::memcpy(static_cast<char *>(row) + n * static_cast<int64_t>(size), padded, bytes);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclhost
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_HOST_SIMD_CONVERT_INL_H_
