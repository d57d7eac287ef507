// Draws typed values from a fuzzer's input bytes; past the end every draw is zero, so any input,
// however short, decodes to a complete case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace aclhost {
namespace fuzz {

class ByteReader {
 public:
  ByteReader(const uint8_t *data, size_t size) : data_(data), size_(size) {}

  uint8_t Byte() { return used_ < size_ ? data_[used_++] : 0; }
  bool Bit() { return (Byte() & 1) != 0; }
  // A value in [low, high] (high - low < 2^16).
  int64_t Range(int64_t low, int64_t high) {
    const uint64_t span = static_cast<uint64_t>(high - low) + 1;
    const uint64_t raw = static_cast<uint64_t>(Byte()) | static_cast<uint64_t>(Byte()) << 8;
    return low + static_cast<int64_t>(raw % span);
  }
  // Any 64-bit value, for the extreme cases.
  int64_t Raw64() {
    uint64_t value = 0;
    for (int b = 0; b < 8; ++b) value |= static_cast<uint64_t>(Byte()) << (8 * b);
    int64_t signed_value;
    std::memcpy(&signed_value, &value, sizeof value);
    return signed_value;
  }
  bool Exhausted() const { return used_ >= size_; }

 private:
  const uint8_t *data_;
  size_t size_;
  size_t used_ = 0;
};

}  // namespace fuzz
}  // namespace aclhost
