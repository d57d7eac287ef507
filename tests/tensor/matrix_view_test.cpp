// TensorView::AsMatrixBatches and DenseRowsInBatches, which let operators move a view's rows with a
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

// Dense rows whose starts step by one stride, at least a row's length, batch by batch as
// BruteForceAsMatrixBatches finds them.
bool BruteForceDenseRowsInBatches(const TensorView &view, size_t row_dims, int64_t row_length, MatrixBatches *batches) {
  return BruteForceAsMatrixBatches(view, row_dims, batches) && batches->col_stride == 1 && batches->row_stride >= row_length;
}

TEST(DenseRowsInBatches, MatchesBruteForceOnRandomSmallViews) {
  ExpectOnRandomSplits([](const TensorView &view, size_t row_dims, int64_t row_length) {
    MatrixBatches want, got;
    const bool expected = BruteForceDenseRowsInBatches(view, row_dims, row_length, &want);
    EXPECT_EQ(view.DenseRowsInBatches(row_dims, &got), expected);
    const int64_t rows = view.NumElements() / row_length;
    if (expected) {
      EXPECT_EQ(got.batch_rows, want.batch_rows);
      EXPECT_EQ(got.row_stride, want.row_stride);
      if (rows / want.batch_rows > 1) {
        EXPECT_EQ(got.batch_stride, want.batch_stride);
      }
    }
    return expected;
  });
}

// Evenly spaced dense rows (rows sliced out of wider ones) are one batch of them.
TEST(DenseRowsInBatches, EvenlySpacedRowsAreOneBatch) {
  ExpectOnRandomSplits([](const TensorView &view, size_t row_dims, int64_t row_length) {
    int64_t want_stride = -1;
    const bool evenly_spaced = BruteForceRowsEvenlySpaced(view, row_length, &want_stride);
    MatrixBatches got;
    if (evenly_spaced) {
      EXPECT_TRUE(view.DenseRowsInBatches(row_dims, &got));
      EXPECT_EQ(got.batch_rows, view.NumElements() / row_length);
      EXPECT_EQ(got.row_stride, want_stride);
    }
    return evenly_spaced;
  });
}

TEST(DenseRowsInBatches, SlicesAndSequenceFirstMemoryButNotTransposes) {
  MatrixBatches batches;
  // Columns [0, 768) of rows of 832: one batch of rows 832 elements apart.
  EXPECT_TRUE(View(ACL_FLOAT, {8192, 768}, {832, 1}, 0).DenseRowsInBatches(1, &batches));
  EXPECT_EQ(batches.batch_rows, 8192);
  EXPECT_EQ(batches.row_stride, 832);
  // Several leading dims that continue each other, rows of two dims dense within.
  EXPECT_TRUE(View(ACL_BF16, {4, 5, 6, 7}, {400, 80, 7, 1}, 3).DenseRowsInBatches(2, &batches));
  EXPECT_EQ(batches.batch_rows, 20);
  EXPECT_EQ(batches.row_stride, 80);
  // Leading dims that do not continue each other: 4 batches of 5 rows.
  EXPECT_TRUE(View(ACL_BF16, {4, 5, 6, 7}, {500, 80, 7, 1}, 3).DenseRowsInBatches(2, &batches));
  EXPECT_EQ(batches.batch_rows, 5);
  EXPECT_EQ(batches.batch_stride, 500);
  EXPECT_EQ(batches.row_stride, 80);
  // [B, S, H] over sequence-first [S, B, H] memory: B batches of S rows B * H apart, H apart.
  EXPECT_TRUE(View(ACL_FLOAT, {4, 128, 768}, {768, 4 * 768, 1}, 0).DenseRowsInBatches(1, &batches));
  EXPECT_EQ(batches.batch_rows, 128);
  EXPECT_EQ(batches.batch_stride, 768);
  EXPECT_EQ(batches.row_stride, 4 * 768);
  // A transpose, rows overlapping each other, broadcast rows.
  EXPECT_FALSE(View(ACL_FLOAT, {64, 5}, {1, 64}, 0).DenseRowsInBatches(1, &batches));
  EXPECT_FALSE(View(ACL_FLOAT, {64, 5}, {4, 1}, 0).DenseRowsInBatches(1, &batches));
  EXPECT_FALSE(View(ACL_FLOAT, {64, 5}, {0, 1}, 0).DenseRowsInBatches(1, &batches));
  // The transpose is one batch of a matrix whose rows are consecutive elements.
  EXPECT_TRUE(View(ACL_FLOAT, {64, 5}, {1, 64}, 0).AsMatrixBatches(1, &batches));
  EXPECT_EQ(batches.batch_rows, 64);
  EXPECT_EQ(batches.row_stride, 1);
  EXPECT_EQ(batches.col_stride, 64);
  // [N, H*W, C] over N channel-major [C, H*W] blocks: N batches of H*W rows that are columns.
  EXPECT_TRUE(View(ACL_FLOAT, {2, 49, 8}, {392, 1, 49}, 0).AsMatrixBatches(1, &batches));
  EXPECT_EQ(batches.batch_rows, 49);
  EXPECT_EQ(batches.batch_stride, 392);
  EXPECT_EQ(batches.row_stride, 1);
  EXPECT_EQ(batches.col_stride, 49);
}

}  // namespace
}  // namespace aclhost
