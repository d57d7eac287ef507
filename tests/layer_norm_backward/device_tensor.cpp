#include "device_tensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <utility>

#include "dtype_codec.h"

namespace lnb_test {

Layout DenseLayout(const std::vector<int64_t> &dims) {
  Layout layout;
  layout.strides.assign(dims.size(), 1);
  int64_t running = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    layout.strides[d] = running;
    running *= std::max<int64_t>(dims[d], 1);
  }
  int64_t count = 1;
  for (const int64_t dim : dims) count *= dim;
  layout.storage_elements = count;
  return layout;
}

Layout PaddedRowsLayout(const std::vector<int64_t> &dims, int64_t pad, int64_t offset) {
  Layout layout;
  layout.strides.assign(dims.size(), 1);
  layout.offset = offset;
  int64_t running = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    layout.strides[d] = running;
    running *= dims[d] + (d + 1 == dims.size() ? pad : 0);
  }
  layout.storage_elements = offset + running;
  return layout;
}

Layout TransposedRowsLayout(const std::vector<int64_t> &dims) {
  Layout layout = DenseLayout(std::vector<int64_t>(dims.begin(), dims.end() - 1));
  layout.strides.push_back(layout.storage_elements);
  layout.storage_elements *= dims.back();
  return layout;
}

Layout ChannelMajorLayout(const std::vector<int64_t> &dims) {
  const Layout block = TransposedRowsLayout(std::vector<int64_t>(dims.begin() + 1, dims.end()));
  Layout layout;
  layout.strides.push_back(block.storage_elements);
  layout.strides.insert(layout.strides.end(), block.strides.begin(), block.strides.end());
  layout.storage_elements = block.storage_elements * dims[0];
  return layout;
}

Layout SequenceFirstLayout(const std::vector<int64_t> &dims) {
  std::vector<int64_t> stored = dims;
  std::swap(stored[0], stored[1]);
  Layout layout = DenseLayout(stored);
  std::swap(layout.strides[0], layout.strides[1]);
  return layout;
}

Layout FusedQueriesLayout(const std::vector<int64_t> &dims) {
  constexpr int64_t kProjections = 3;
  Layout layout = DenseLayout(dims);
  layout.strides[0] *= kProjections;
  layout.storage_elements *= kProjections;
  return layout;
}

Layout ReversedLayout(const std::vector<int64_t> &dims) {
  Layout layout;
  layout.strides.assign(dims.size(), 1);
  int64_t running = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    layout.strides[d] = running;
    running *= dims[d];
  }
  layout.storage_elements = running;
  return layout;
}

Layout ScatteredLayout(const std::vector<int64_t> &dims, std::mt19937_64 &random) {
  std::vector<size_t> order(dims.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), random);
  Layout layout;
  layout.strides.assign(dims.size(), 0);
  layout.offset = static_cast<int64_t>(random() % 5);
  int64_t running = 1;
  // order[0] is outermost in storage.
  for (size_t k = order.size(); k-- > 0;) {
    const size_t d = order[k];
    layout.strides[d] = running;
    running *= dims[d] + static_cast<int64_t>(random() % 3);
  }
  layout.storage_elements = layout.offset + running;
  return layout;
}

DeviceTensor::DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, Layout layout)
    : dims_(std::move(dims)), dtype_(dtype), layout_(std::move(layout)) {
  storage_bytes_ = static_cast<size_t>(layout_.storage_elements) * aclDataTypeSize(dtype_);
  // Empty tensors still get a (small) buffer: the operator must not touch it.
  EXPECT_EQ(aclrtMalloc(&memory_, std::max<size_t>(storage_bytes_, 64), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::memset(memory_, kSentinel, std::max<size_t>(storage_bytes_, 64));
  const std::vector<int64_t> storage_dims{layout_.storage_elements};
  tensor_ = aclCreateTensor(dims_.data(), dims_.size(), dtype_, layout_.strides.data(), layout_.offset, ACL_FORMAT_ND,
                            storage_dims.data(), storage_dims.size(), memory_);
  EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();
}

DeviceTensor::~DeviceTensor() {
  aclDestroyTensor(tensor_);
  aclrtFree(memory_);
}

void DeviceTensor::DestroyDescriptor() {
  EXPECT_EQ(aclDestroyTensor(tensor_), 0);
  tensor_ = nullptr;
}

int64_t DeviceTensor::NumElements() const {
  int64_t count = 1;
  for (const int64_t dim : dims_) count *= dim;
  return count;
}

std::vector<int64_t> DeviceTensor::ElementPositions() const {
  std::vector<int64_t> positions;
  const int64_t count = NumElements();
  positions.reserve(static_cast<size_t>(count));
  std::vector<int64_t> index(dims_.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t position = layout_.offset;
    for (size_t d = 0; d < dims_.size(); ++d) position += index[d] * layout_.strides[d];
    positions.push_back(position);
    for (size_t d = dims_.size(); d-- > 0;) {
      if (++index[d] < dims_[d]) break;
      index[d] = 0;
    }
  }
  return positions;
}

void DeviceTensor::Write(const std::vector<double> &values) {
  const std::vector<int64_t> positions = ElementPositions();
  ASSERT_EQ(values.size(), positions.size());
  const size_t element_size = aclDataTypeSize(dtype_);
  std::vector<uint8_t> encoded = aclhost::testing::Encode(dtype_, values);
  char *base = static_cast<char *>(memory_);
  for (size_t i = 0; i < positions.size(); ++i) {
    std::memcpy(base + positions[i] * element_size, encoded.data() + i * element_size, element_size);
  }
}

std::vector<double> DeviceTensor::Read() const {
  const std::vector<int64_t> positions = ElementPositions();
  std::vector<double> values(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    values[i] = aclhost::testing::DecodeAt(dtype_, memory_, static_cast<size_t>(positions[i]));
  }
  return values;
}

std::vector<uint8_t> DeviceTensor::StorageBytes() const {
  const uint8_t *bytes = static_cast<const uint8_t *>(memory_);
  return std::vector<uint8_t>(bytes, bytes + std::max<size_t>(storage_bytes_, 64));
}

bool DeviceTensor::OutsideViewUnchanged(const std::vector<uint8_t> &before) const {
  const std::vector<uint8_t> now = StorageBytes();
  if (now.size() != before.size()) return false;
  std::vector<bool> in_view(now.size(), false);
  const size_t element_size = aclDataTypeSize(dtype_);
  for (const int64_t position : ElementPositions()) {
    for (size_t b = 0; b < element_size; ++b) in_view[static_cast<size_t>(position) * element_size + b] = true;
  }
  for (size_t i = 0; i < now.size(); ++i) {
    if (!in_view[i] && now[i] != before[i]) return false;
  }
  return true;
}

std::vector<double> RandomValues(size_t count, std::mt19937_64 &random, double scale, double shift) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> values(count);
  for (double &value : values) value = shift + scale * normal(random);
  if (count > 0) values[0] = shift + scale * 0.75;  // never all zeros, whatever the draw
  return values;
}

}  // namespace lnb_test
