// Element types the kernels read and write, and a scalar load and store for them. Kernels see only raw
// pointers and these tags, never an API type.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/float_convert.h"

namespace aclhost {
namespace kernels {

enum class ElementType : uint8_t { kFloat32, kFloat16, kBFloat16 };

inline size_t ElementSize(ElementType type) { return type == ElementType::kFloat32 ? 4 : 2; }

// Bytes from one row of type elements to the next, for a row stride in elements where 0 means
// dense rows of cols elements (the kernels' args' convention).
inline int64_t RowStepBytes(int64_t row_stride, int64_t cols, ElementType type) {
  return (row_stride != 0 ? row_stride : cols) * static_cast<int64_t>(ElementSize(type));
}

// Exact widening of element index of data.
inline double LoadElement(const void *data, ElementType type, int64_t index) {
  if (type == ElementType::kFloat32) {
    float value;
    std::memcpy(&value, static_cast<const char *>(data) + index * 4, sizeof value);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, static_cast<const char *>(data) + index * 2, sizeof bits);
  return type == ElementType::kFloat16 ? HalfToFloat(bits) : Bf16ToFloat(bits);
}

// Element index of data = value rounded to type, to nearest even.
inline void StoreElement(void *data, ElementType type, int64_t index, float value) {
  if (type == ElementType::kFloat32) {
    std::memcpy(static_cast<char *>(data) + index * 4, &value, sizeof value);
    return;
  }
  const uint16_t bits = type == ElementType::kFloat16 ? FloatToHalf(value) : FloatToBf16(value);
  std::memcpy(static_cast<char *>(data) + index * 2, &bits, sizeof bits);
}

}  // namespace kernels
}  // namespace aclhost
