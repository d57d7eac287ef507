// Host-side encoding of values in the operator's dtypes (round to nearest even) and back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"

namespace aclhost {
namespace testing {

// value rounded to dtype (FLOAT, FLOAT16 or BF16), as a double.
double RoundTo(aclDataType dtype, double value);
// Writes values, rounded to dtype, into count consecutive elements at bytes.
void EncodeInto(aclDataType dtype, const std::vector<double> &values, void *bytes);
std::vector<uint8_t> Encode(aclDataType dtype, const std::vector<double> &values);
// Reads element index of bytes in dtype.
double DecodeAt(aclDataType dtype, const void *bytes, size_t index);
std::vector<double> Decode(aclDataType dtype, const void *bytes, size_t count);

}  // namespace testing
}  // namespace aclhost
