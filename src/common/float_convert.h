// Scalar conversions between float/double and the 16-bit float formats, rounding to nearest
// even. Header-only so that every layer (runtime helpers, tensor views, kernels) shares one
// definition without a cross-library call.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace aclhost {

inline uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float FloatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// value, or the one quiet NaN (bits 0x7FC00000) where value is any NaN. Which NaN an operation
// passes on (its sign and payload) depends on the order of its operands, which compilers choose
// per SIMD target, and an emulated FMA passes on another than the CPU's: whether the result is a
// NaN does not. So the backward kernel writes every NaN result as this one (rounded to 16 bits:
// 0x7E00 FLOAT16, 0x7FC0 BF16), the same bits on every target.
inline float CanonicalNaN(float value) { return std::isnan(value) ? std::numeric_limits<float>::quiet_NaN() : value; }

inline float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  const uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0x1Fu) return FloatFromBits(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {
    // Subnormal (or zero): exactly mantissa * 2^-24.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return FloatFromBits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline uint16_t FloatToHalf(float value) {
  const uint32_t bits = FloatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((abs_bits >> 13) & 0x3FFu));
  if (abs_bits >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7C00u);  // overflow to Inf
  if (abs_bits < 0x38800000u) {
    // Result is subnormal or zero: let the FPU round |value| * 2^24 to an integer (RNE).
    const float scaled = FloatFromBits(abs_bits) * 0x1p24f;
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
  }
  const uint32_t rounding = 0xFFFu + ((abs_bits >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((abs_bits - 0x38000000u + rounding) >> 13));
}

inline float Bf16ToFloat(uint16_t bf16) { return FloatFromBits(static_cast<uint32_t>(bf16) << 16); }

inline uint16_t FloatToBf16(float value) {
  const uint32_t bits = FloatBits(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

// double -> float rounding to odd: a later RNE step to a format with at most 22 significand bits
// then yields the correctly rounded result of the double (no double-rounding error).
inline float DoubleToFloatRoundToOdd(double value) {
  float rounded = static_cast<float>(value);
  if (!std::isfinite(rounded) || static_cast<double>(rounded) == value) return rounded;
  uint32_t bits = FloatBits(rounded);
  if ((bits & 1u) == 0) {
    // Step one ulp back towards value; the neighbour is odd and also brackets value.
    const bool rounded_away_from_zero = std::fabs(static_cast<double>(rounded)) > std::fabs(value);
    bits = rounded_away_from_zero ? bits - 1 : bits + 1;
  }
  return FloatFromBits(bits);
}

inline uint16_t DoubleToHalf(double value) { return FloatToHalf(DoubleToFloatRoundToOdd(value)); }
inline uint16_t DoubleToBf16(double value) { return FloatToBf16(DoubleToFloatRoundToOdd(value)); }

}  // namespace aclhost
