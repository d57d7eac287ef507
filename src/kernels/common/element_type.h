// Element types the kernels read and write, a scalar load and store for them, and where an
// operand's rows lie (RowSpacing). Kernels see only raw pointers and these tags, never an API type.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "common/float_convert.h"

namespace aclhost {
namespace kernels {

enum class ElementType : uint8_t { kFloat32, kFloat16, kBFloat16 };

constexpr size_t ElementSize(ElementType type) { return type == ElementType::kFloat32 ? 4 : 2; }

// Where an operand's rows lie (each row dense), in elements: batches of batch_rows rows,
// batch_stride from one batch's first row to the next's, whose rows are row_stride apart;
// first_in_batch is row 0's index within its batch. The defaults are rows back to back (row_stride
// 0 means cols) in one batch (batch_rows 0). Rows sliced out of wider rows are one batch with a
// row_stride; a [B, S, H] view of sequence-first [S, B, H] memory is B batches of S rows, B * H
// apart, the batches H apart.
struct RowSpacing {
  int64_t row_stride = 0;
  int64_t batch_rows = 0;
  int64_t batch_stride = 0;
  int64_t first_in_batch = 0;
};

// Bytes from one row of type elements to the next within a batch.
inline int64_t RowStepBytes(const RowSpacing &spacing, int64_t cols, ElementType type) {
  return (spacing.row_stride != 0 ? spacing.row_stride : cols) * static_cast<int64_t>(ElementSize(type));
}

// Bytes from row 0 to row m.
inline int64_t RowOffsetBytes(const RowSpacing &spacing, int64_t m, int64_t cols, ElementType type) {
  const int64_t step = RowStepBytes(spacing, cols, type);
  if (spacing.batch_rows == 0) return m * step;
  const int64_t k = spacing.first_in_batch + m;
  return (k / spacing.batch_rows) * spacing.batch_stride * static_cast<int64_t>(ElementSize(type)) +
         (k % spacing.batch_rows - spacing.first_in_batch) * step;
}

// The first row after row m's batch, at most rows: rows [m, BatchEnd) are RowStepBytes apart.
inline int64_t BatchEnd(const RowSpacing &spacing, int64_t m, int64_t rows) {
  if (spacing.batch_rows == 0) return rows;
  const int64_t end = m + spacing.batch_rows - (spacing.first_in_batch + m) % spacing.batch_rows;
  return end < rows ? end : rows;
}

// The spacing of the rows from row first on (their first at RowOffsetBytes(spacing, first)).
inline RowSpacing RowSpacingFrom(const RowSpacing &spacing, int64_t first) {
  RowSpacing later = spacing;
  if (spacing.batch_rows != 0) later.first_in_batch = (spacing.first_in_batch + first) % spacing.batch_rows;
  return later;
}

// Where an operand lies whose rows are, batch by batch, the columns of a row-major matrix (a
// transposed view, NCHW memory seen as [N, H*W, C]), in elements: element (m, n) of batch
// b = m / batch_rows at b * batch_stride + m % batch_rows + n * col_stride. batch_rows 0: the
// operand does not lie so.
struct ColumnLayout {
  int64_t batch_rows = 0;
  int64_t batch_stride = 0;
  int64_t col_stride = 0;
};

// Elements from the operand's element (0, 0) to (m, 0).
inline int64_t ColumnRowOffset(const ColumnLayout &layout, int64_t m) {
  return m / layout.batch_rows * layout.batch_stride + m % layout.batch_rows;
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

// Every NaN among `count` elements of `type`, `step` elements apart from data's first, rewritten
// as the one quiet NaN (CanonicalNaN's, rounded to type: 0x7E00 FLOAT16, 0x7FC0 BF16). For results
// a kernel wrote with whatever NaN its arithmetic passed on, in the rare rows that may hold one.
// Out of line and cold, so that the passes that call it for their rare rows keep it out of their
// hot code.
[[gnu::cold, gnu::noinline]] inline void CanonicalizeNaNs(void *data, ElementType type, int64_t count, int64_t step) {
  for (int64_t i = 0; i < count; ++i) {
    if (std::isnan(LoadElement(data, type, i * step))) StoreElement(data, type, i * step, std::numeric_limits<float>::quiet_NaN());
  }
}

}  // namespace kernels
}  // namespace aclhost
