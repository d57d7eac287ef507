// TensorView::AsMatrix and RowsEvenlySpaced, which let operators move a view's rows with a
// transposition or not at all: against brute force over the element addresses of small random
// views, and on views users build.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tensor/tensor.h"
#include "test_seed.h"
#include "view_test_support.h"

namespace aclhost {
namespace {

// The view's elements in row-major index order, as offsets in elements.
std::vector<int64_t> ElementOffsets(const TensorView &view) {
  std::vector<int64_t> elements = ElementAddresses(view);
  const int64_t size = static_cast<int64_t>(aclDataTypeSize(view.dtype));
  for (int64_t &element : elements) element /= size;
  return elements;
}

// Whether each row of row_length elements is dense and the rows' starts step by the same number
// of elements, at least row_length; *row_stride: that step (row_length for one row).
bool BruteForceRowsEvenlySpaced(const TensorView &view, int64_t row_length, int64_t *row_stride) {
  const std::vector<int64_t> elements = ElementOffsets(view);
  const int64_t rows = static_cast<int64_t>(elements.size()) / row_length;
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t k = 0; k < row_length; ++k) {
      if (elements[row * row_length + k] != elements[row * row_length] + k) return false;
    }
  }
  *row_stride = rows > 1 ? elements[row_length] - elements[0] : row_length;
  for (int64_t row = 1; row < rows; ++row) {
    if (elements[row * row_length] - elements[(row - 1) * row_length] != *row_stride) return false;
  }
  return *row_stride >= row_length;
}

// Whether every element (m, n) of rows of row_length elements sits at the first's offset plus
// m * row_stride + n * col_stride, with the strides read off the first elements.
bool BruteForceAsMatrix(const TensorView &view, int64_t row_length, int64_t *row_stride, int64_t *col_stride) {
  const std::vector<int64_t> elements = ElementOffsets(view);
  const int64_t rows = static_cast<int64_t>(elements.size()) / row_length;
  *col_stride = row_length > 1 ? elements[1] - elements[0] : 1;
  *row_stride = rows > 1 ? elements[row_length] - elements[0] : row_length * *col_stride;
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t n = 0; n < row_length; ++n) {
      if (elements[m * row_length + n] != elements[0] + m * *row_stride + n * *col_stride) return false;
    }
  }
  return true;
}

// check(view, row_dims, row_length) for every split into rows of 20,000 small random non-empty
// views, until a check fails; how many returned true and false (each must be common).
template <typename Check>
void ExpectOnRandomSplits(Check check) {
  std::mt19937_64 rng(testing::TestSeed());
  int yes = 0, no = 0;
  for (int trial = 0; trial < 20000 && !::testing::Test::HasFailure(); ++trial) {
    const TensorView view = RandomView(rng);
    if (view.NumElements() == 0) continue;  // no rows to place
    for (size_t row_dims = 0; row_dims <= view.dims.size(); ++row_dims) {
      SCOPED_TRACE("trial " + std::to_string(trial) + ", row dims " + std::to_string(row_dims));
      int64_t row_length = 1;
      for (size_t d = view.dims.size() - row_dims; d < view.dims.size(); ++d) row_length *= view.dims[d];
      ++(check(view, row_dims, row_length) ? yes : no);
    }
  }
  EXPECT_GT(yes, 5000);
  EXPECT_GT(no, 5000);
}

TEST(RowsEvenlySpaced, MatchesBruteForceOnRandomSmallViews) {
  ExpectOnRandomSplits([](const TensorView &view, size_t row_dims, int64_t row_length) {
    int64_t want_stride = -1, stride = -1;
    const bool expected = BruteForceRowsEvenlySpaced(view, row_length, &want_stride);
    EXPECT_EQ(view.RowsEvenlySpaced(row_dims, &stride), expected);
    if (expected) {
      EXPECT_EQ(stride, want_stride);
    }
    return expected;
  });
}

TEST(AsMatrix, MatchesBruteForceOnRandomSmallViews) {
  ExpectOnRandomSplits([](const TensorView &view, size_t row_dims, int64_t row_length) {
    int64_t want_row_stride = -1, want_col_stride = -1, row_stride = -1, col_stride = -1;
    const bool expected = BruteForceAsMatrix(view, row_length, &want_row_stride, &want_col_stride);
    EXPECT_EQ(view.AsMatrix(row_dims, &row_stride, &col_stride), expected);
    if (expected) {
      EXPECT_EQ(row_stride, want_row_stride);
      EXPECT_EQ(col_stride, want_col_stride);
    }
    return expected;
  });
}

// The batches of the most rows, among the splits of the leading dims into batches (outer) and
// rows (inner), whose strides, read off the first elements, place every element.
bool BruteForceAsMatrixBatches(const TensorView &view, size_t row_dims, MatrixBatches *batches) {
  const std::vector<int64_t> elements = ElementOffsets(view);
  const size_t leading = view.dims.size() - row_dims;
  int64_t rows = 1;
  for (size_t d = 0; d < leading; ++d) rows *= view.dims[d];
  const int64_t cols = static_cast<int64_t>(elements.size()) / rows;
  for (size_t first = 0; first <= leading; ++first) {
    MatrixBatches candidate;
    for (size_t d = first; d < leading; ++d) candidate.batch_rows *= view.dims[d];
    const int64_t r = candidate.batch_rows;
    candidate.col_stride = cols > 1 ? elements[1] - elements[0] : 1;
    candidate.row_stride = r > 1 ? elements[cols] - elements[0] : cols * candidate.col_stride;
    candidate.batch_stride = rows / r > 1 ? elements[r * cols] - elements[0] : 0;
    bool places_all = true;
    for (int64_t m = 0; m < rows && places_all; ++m) {
      for (int64_t n = 0; n < cols && places_all; ++n) {
        places_all = elements[m * cols + n] ==
                     elements[0] + m / r * candidate.batch_stride + m % r * candidate.row_stride + n * candidate.col_stride;
      }
    }
    if (places_all) {
      *batches = candidate;
      return true;
    }
  }
  return false;
}

TEST(AsMatrixBatches, MatchesBruteForceOnRandomSmallViews) {
  ExpectOnRandomSplits([](const TensorView &view, size_t row_dims, int64_t row_length) {
    MatrixBatches want, got;
    const bool expected = BruteForceAsMatrixBatches(view, row_dims, &want);
    EXPECT_EQ(view.AsMatrixBatches(row_dims, &got), expected);
    const int64_t rows = view.NumElements() / row_length;
    if (expected) {
      EXPECT_EQ(got.batch_rows, want.batch_rows);
      EXPECT_EQ(got.col_stride, want.col_stride);
      EXPECT_EQ(got.row_stride, want.row_stride);
      if (rows / want.batch_rows > 1) {
        EXPECT_EQ(got.batch_stride, want.batch_stride);
      }
    }
    return expected && want.batch_rows < rows;  // count the views that need more than one batch
  });
}

TEST(RowsEvenlySpaced, SlicesOfWiderRowsButNotTransposes) {
  int64_t stride = 0;
  // Columns [0, 768) of rows of 832: rows 832 elements apart.
  EXPECT_TRUE(View(ACL_FLOAT, {8192, 768}, {832, 1}, 0).RowsEvenlySpaced(1, &stride));
  EXPECT_EQ(stride, 832);
  // Several leading dims that continue each other, rows of two dims dense within.
  EXPECT_TRUE(View(ACL_BF16, {4, 5, 6, 7}, {400, 80, 7, 1}, 3).RowsEvenlySpaced(2, &stride));
  EXPECT_EQ(stride, 80);
  // Leading dims that do not continue each other.
  EXPECT_FALSE(View(ACL_BF16, {4, 5, 6, 7}, {500, 80, 7, 1}, 3).RowsEvenlySpaced(2, &stride));
  // A transpose, rows overlapping each other, broadcast rows.
  EXPECT_FALSE(View(ACL_FLOAT, {64, 5}, {1, 64}, 0).RowsEvenlySpaced(1, &stride));
  EXPECT_FALSE(View(ACL_FLOAT, {64, 5}, {4, 1}, 0).RowsEvenlySpaced(1, &stride));
  EXPECT_FALSE(View(ACL_FLOAT, {64, 5}, {0, 1}, 0).RowsEvenlySpaced(1, &stride));
  // The transpose is a matrix whose rows are consecutive elements.
  int64_t col_stride = 0;
  EXPECT_TRUE(View(ACL_FLOAT, {64, 5}, {1, 64}, 0).AsMatrix(1, &stride, &col_stride));
  EXPECT_EQ(stride, 1);
  EXPECT_EQ(col_stride, 64);
  // [N, H*W, C] over N channel-major [C, H*W] blocks: N batches of H*W rows that are columns.
  MatrixBatches batches;
  EXPECT_FALSE(View(ACL_FLOAT, {2, 49, 8}, {392, 1, 49}, 0).AsMatrix(1, &stride, &col_stride));
  EXPECT_TRUE(View(ACL_FLOAT, {2, 49, 8}, {392, 1, 49}, 0).AsMatrixBatches(1, &batches));
  EXPECT_EQ(batches.batch_rows, 49);
  EXPECT_EQ(batches.batch_stride, 392);
  EXPECT_EQ(batches.row_stride, 1);
  EXPECT_EQ(batches.col_stride, 49);
}

}  // namespace
}  // namespace aclhost
