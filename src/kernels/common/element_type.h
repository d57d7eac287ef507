// Element types the kernels read and write, and a scalar load for them. Kernels see only raw
// pointers and these tags, never an API type.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/float_convert.h"

namespace aclhost {
namespace kernels {

enum class ElementType : uint8_t { kFloat32, kFloat16, kBFloat16 };

inline size_t ElementSize(ElementType type) { return type == ElementType::kFloat32 ? 4 : 2; }

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

}  // namespace kernels
}  // namespace aclhost
