// Enum parameters as the C caller passed them. A C enum argument is any int; in C++ loading an
// enum object whose value is outside the enum's range is undefined, so the API reads such
// parameters as bytes, never as the enum type.
#pragma once

#include <cstring>

namespace aclhost {

template <typename Enum>
int CallerInt(const Enum &value) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are passed as int");
  int raw;
  std::memcpy(&raw, &value, sizeof raw);
  return raw;
}

// The values every aclDataType / aclFormat object may hold in C++: enumerators span -1..54, so
// the enum's range is that of a 7-bit signed field.
constexpr int kLowestAclEnumValue = -64;
constexpr int kHighestAclEnumValue = 63;

}  // namespace aclhost
