#include "dtype_codec.h"

#include <cstring>

#include "common/float_convert.h"

namespace aclhost {
namespace testing {

void EncodeInto(aclDataType dtype, const std::vector<double> &values, void *bytes) {
  char *out = static_cast<char *>(bytes);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == ACL_FLOAT) {
      const float rounded = static_cast<float>(values[i]);
      std::memcpy(out + 4 * i, &rounded, 4);
    } else {
      const uint16_t bits = dtype == ACL_FLOAT16 ? DoubleToHalf(values[i]) : DoubleToBf16(values[i]);
      std::memcpy(out + 2 * i, &bits, 2);
    }
  }
}

std::vector<uint8_t> Encode(aclDataType dtype, const std::vector<double> &values) {
  std::vector<uint8_t> bytes(values.size() * aclDataTypeSize(dtype));
  EncodeInto(dtype, values, bytes.data());
  return bytes;
}

double DecodeAt(aclDataType dtype, const void *bytes, size_t index) {
  const char *in = static_cast<const char *>(bytes);
  if (dtype == ACL_FLOAT) {
    float value;
    std::memcpy(&value, in + 4 * index, 4);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, in + 2 * index, 2);
  return dtype == ACL_FLOAT16 ? HalfToFloat(bits) : Bf16ToFloat(bits);
}

std::vector<double> Decode(aclDataType dtype, const void *bytes, size_t count) {
  std::vector<double> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = DecodeAt(dtype, bytes, i);
  return values;
}

double RoundTo(aclDataType dtype, double value) {
  uint8_t bytes[4];
  EncodeInto(dtype, {value}, bytes);
  return DecodeAt(dtype, bytes, 0);
}

}  // namespace testing
}  // namespace aclhost
