// Test helpers: tensors in device memory laid out through dense or scattered (permuted, padded,
// offset) views, with sentinel bytes everywhere the view does not reach.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "test_seed.h"

namespace lnb_test {

constexpr uint8_t kSentinel = 0xA5;

struct Layout {
  std::vector<int64_t> strides;
  int64_t offset = 0;
  int64_t storage_elements = 0;
};

Layout DenseLayout(const std::vector<int64_t> &dims);
// The dims stored in a random order, each padded by 0-2 elements, after a random offset: a
// non-contiguous, non-overlapping view.
Layout ScatteredLayout(const std::vector<int64_t> &dims, std::mt19937_64 &random);
// Row-major, each row of the last dim padded by `pad` elements, after `offset` elements: rows
// evenly spaced, which kernels may read in place.
Layout PaddedRowsLayout(const std::vector<int64_t> &dims, int64_t pad, int64_t offset);
// The last dim stored outermost, the others row-major inside it: the view's rows (over the last
// dim) are the columns of a row-major matrix, a transpose.
Layout TransposedRowsLayout(const std::vector<int64_t> &dims);
// [N, ..., C] stored as N blocks each laid out [C, ...] (NCHW memory seen as NHWC): within a
// block the view's rows over the last dim are a transpose's columns; the blocks are batches.
Layout ChannelMajorLayout(const std::vector<int64_t> &dims);
// [B, S, ...] stored as [S, B, ...] (sequence-first activations seen batch-first): over the dims
// after the first two, B batches of S dense rows, evenly spaced within a batch.
Layout SequenceFirstLayout(const std::vector<int64_t> &dims);
// [T, H, ...] as the queries of [T, 3, H, ...] memory (a fused projection's queries, keys and
// values a token, seen as a token's heads): runs of H dense rows, two runs' gap after each.
Layout FusedQueriesLayout(const std::vector<int64_t> &dims);
// The dims stored in reverse order: for more than two dims, not a matrix at all.
Layout ReversedLayout(const std::vector<int64_t> &dims);

class DeviceTensor {
 public:
  DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, Layout layout);
  DeviceTensor(std::vector<int64_t> dims, aclDataType dtype) : DeviceTensor(dims, dtype, DenseLayout(dims)) {}
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor &) = delete;
  DeviceTensor &operator=(const DeviceTensor &) = delete;

  // values in row-major order of the view, rounded to the dtype.
  void Write(const std::vector<double> &values);
  std::vector<double> Read() const;
  std::vector<uint8_t> StorageBytes() const;
  // True when every byte outside the view still equals the same byte of before.
  bool OutsideViewUnchanged(const std::vector<uint8_t> &before) const;

  // Destroys the aclTensor but keeps the memory (get() is NULL afterwards).
  void DestroyDescriptor();

  aclTensor *get() const { return tensor_; }
  void *Data() const { return memory_; }  // the storage's first byte
  const std::vector<int64_t> &dims() const { return dims_; }
  aclDataType dtype() const { return dtype_; }
  int64_t NumElements() const;

 private:
  std::vector<int64_t> ElementPositions() const;  // storage index of each view element

  std::vector<int64_t> dims_;
  aclDataType dtype_;
  Layout layout_;
  size_t storage_bytes_ = 0;
  void *memory_ = nullptr;
  aclTensor *tensor_ = nullptr;
};

// Values for tests: normal(0, 1) scaled, never all zeros.
std::vector<double> RandomValues(size_t count, std::mt19937_64 &random, double scale = 1.0, double shift = 0.0);

using aclhost::testing::TestSeed;

}  // namespace lnb_test
