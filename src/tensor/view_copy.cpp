#include "tensor/view_copy.h"

#include <array>
#include <cstdlib>
#include <cstring>

#include "common/float_convert.h"
#include "common/parallel_for.h"

namespace aclhost {
namespace {

float LoadAsFloat(const char *element, aclDataType dtype) {
  uint16_t bits16;
  switch (dtype) {
    case ACL_FLOAT16:
      std::memcpy(&bits16, element, sizeof bits16);
      return HalfToFloat(bits16);
    case ACL_BF16:
      std::memcpy(&bits16, element, sizeof bits16);
      return Bf16ToFloat(bits16);
    default: {
      float value;
      std::memcpy(&value, element, sizeof value);
      return value;
    }
  }
}

void StoreFromFloat(float value, aclDataType dtype, char *element) {
  uint16_t bits16;
  switch (dtype) {
    case ACL_FLOAT16:
      bits16 = FloatToHalf(value);
      std::memcpy(element, &bits16, sizeof bits16);
      return;
    case ACL_BF16:
      bits16 = FloatToBf16(value);
      std::memcpy(element, &bits16, sizeof bits16);
      return;
    default:
      std::memcpy(element, &value, sizeof value);
      return;
  }
}

// Dims [first, last) of a view as at most a few loops, outermost first: dims of size 1 dropped,
// dims that continue each other in memory merged; strides in elements. Fixed capacity, so that a
// phase 2 that moves a view allocates nothing: the operators admit views of at most 8 dims, and a
// row walk adds one loop to a row's.
constexpr size_t kMaxLoops = 16;

struct Loops {
  std::array<int64_t, kMaxLoops> dims{}, strides{};
  size_t rank = 0;

  void Append(int64_t dim, int64_t stride) {
    if (dim == 1) return;
    if (rank > 0 && strides[rank - 1] == stride * dim) {
      dims[rank - 1] *= dim;
      strides[rank - 1] = stride;
      return;
    }
    if (rank == kMaxLoops) std::abort();  // more dims than any operator admits
    dims[rank] = dim;
    strides[rank] = stride;
    ++rank;
  }
  // At least one loop (a single element: a loop of one).
  void EnsureOne() {
    if (rank > 0) return;
    dims[0] = strides[0] = 1;
    rank = 1;
  }
};

Loops Simplify(const TensorView &view, size_t first, size_t last) {
  Loops loops;
  for (size_t d = first; d < last; ++d) loops.Append(view.dims[d], view.strides[d]);
  return loops;
}

constexpr int64_t kTile = 32;
constexpr int64_t kPrefetchColumns = 16;

// Visits every element of the loops (from `first`, elements of element_size bytes) in an order that
// suits the memory. For each run of elements, calls run(view_offset, view_step, dense_index,
// dense_step, count): rows of the innermost loop (dense_step 1), or, when that loop is strided and
// the one outside it is not (a transposed view), the columns of 32 x 32 tiles, so that the view is
// walked along its memory (view_step 1) and both sides of a tile stay in cache. Rows (or tile rows)
// are shared among threads; every element is written by exactly one of them.
template <typename Run>
void ForEachRun(Loops loops, const char *first, int64_t element_size, int threads, Run run) {
  loops.EnsureOne();
  for (size_t d = 0; d < loops.rank; ++d) {
    if (loops.dims[d] == 0) return;
  }
  const size_t rank = loops.rank;
  const int64_t cols = loops.dims[rank - 1], col_stride = loops.strides[rank - 1];
  const int64_t rows = rank >= 2 ? loops.dims[rank - 2] : 1, row_stride = rank >= 2 ? loops.strides[rank - 2] : 0;
  const bool tiled = col_stride != 1 && row_stride == 1;
  int64_t outer_count = 1;
  for (size_t d = 0; d + 2 < rank; ++d) outer_count *= loops.dims[d];
  const int64_t row_groups = tiled ? (rows + kTile - 1) / kTile : rows;
  ParallelFor(outer_count * row_groups, threads, [&](int64_t task, int) {
    const int64_t outer = task / row_groups, group = task % row_groups;
    int64_t outer_offset = 0, rest = outer;
    for (size_t d = rank >= 2 ? rank - 2 : 0; d-- > 0;) {
      outer_offset += (rest % loops.dims[d]) * loops.strides[d];
      rest /= loops.dims[d];
    }
    const int64_t dense_base = outer * rows * cols;
    if (!tiled) {
      run(outer_offset + group * row_stride, col_stride, dense_base + group * cols, 1, cols);
      return;
    }
    const int64_t i0 = group * kTile, i1 = i0 + kTile < rows ? i0 + kTile : rows;
    const int64_t run_bytes = (i1 - i0) * element_size;
    for (int64_t j = 0; j < cols; ++j) {
      // Each column's run is in its own pages, out of the hardware prefetcher's sight: ask for
      // the runs a few columns ahead, so that many cache misses are in flight at once.
      if (j + kPrefetchColumns < cols) {
        const char *ahead = first + (outer_offset + i0 + (j + kPrefetchColumns) * col_stride) * element_size;
        for (int64_t byte = 0; byte < run_bytes; byte += 64) __builtin_prefetch(ahead + byte);
      }
      // Along i the view is consecutive and the dense side strided.
      run(outer_offset + i0 + j * col_stride, 1, dense_base + i0 * cols + j, cols, i1 - i0);
    }
  });
}

// The same over a whole view.
template <typename Run>
void ForEachRun(const TensorView &view, int threads, Run run) {
  ForEachRun(Simplify(view, 0, view.dims.size()), static_cast<const char *>(view.FirstElement()),
             static_cast<int64_t>(aclDataTypeSize(view.dtype)), threads, run);
}

// Elements of one width between the loops from view_first and dense, both in the same dtype:
// into dense when kToDense, out of it otherwise. Only the side copied to is written.
template <typename Element, bool kToDense>
void CopyElements(const Loops &loops, void *view_first, void *dense, int threads) {
  Element *const view = static_cast<Element *>(view_first), *const packed = static_cast<Element *>(dense);
  ForEachRun(loops, static_cast<const char *>(view_first), sizeof(Element), threads,
             [&](int64_t at, int64_t step, int64_t index, int64_t dense_step, int64_t count) {
               Element *const to = kToDense ? packed + index : view + at;
               const Element *const from = kToDense ? view + at : packed + index;
               const int64_t to_step = kToDense ? dense_step : step, from_step = kToDense ? step : dense_step;
               if (to_step == 1 && from_step == 1) {
                 std::memcpy(to, from, static_cast<size_t>(count) * sizeof(Element));
                 return;
               }
               for (int64_t k = 0; k < count; ++k) to[k * to_step] = from[k * from_step];
             });
}

// The same for elements of dtype (the operators' dtypes hold 2- or 4-byte elements, aligned to
// their size).
template <bool kToDense>
void CopySameDtype(const Loops &loops, void *view_first, void *dense, aclDataType dtype, int threads) {
  if (aclDataTypeSize(dtype) == 2) {
    CopyElements<uint16_t, kToDense>(loops, view_first, dense, threads);
  } else {
    CopyElements<uint32_t, kToDense>(loops, view_first, dense, threads);
  }
}

// Elements of the loops from `first` (dtype) into dense, same dtype.
void GatherLoops(const Loops &loops, const void *first, aclDataType dtype, void *dense, int threads) {
  CopySameDtype<true>(loops, const_cast<void *>(first), dense, dtype, threads);
}

// Dense elements (dense_dtype) to the loops from `first` (dtype), converted with round-to-nearest-even.
void ScatterLoops(const void *dense, aclDataType dense_dtype, const Loops &loops, void *first, aclDataType dtype, int threads) {
  if (dense_dtype == dtype) {
    CopySameDtype<false>(loops, first, const_cast<void *>(dense), dtype, threads);
    return;
  }
  const char *in = static_cast<const char *>(dense);
  const size_t in_size = aclDataTypeSize(dense_dtype);
  char *base = static_cast<char *>(first);
  const int64_t out_size = static_cast<int64_t>(aclDataTypeSize(dtype));
  ForEachRun(loops, base, out_size, threads, [&](int64_t at, int64_t step, int64_t index, int64_t dense_step, int64_t count) {
    for (int64_t k = 0; k < count; ++k) {
      StoreFromFloat(LoadAsFloat(in + (index + k * dense_step) * in_size, dense_dtype), dtype, base + (at + k * step) * out_size);
    }
  });
}

}  // namespace

void GatherToDense(const TensorView &view, void *dense, int threads) {
  GatherLoops(Simplify(view, 0, view.dims.size()), view.FirstElement(), view.dtype, dense, threads);
}

void ScatterFromDense(const void *dense, aclDataType dense_dtype, const TensorView &view, int threads) {
  ScatterLoops(dense, dense_dtype, Simplify(view, 0, view.dims.size()), view.FirstElement(), view.dtype, threads);
}

namespace {

// Calls visit(loops, first_element, first_dense_row) for walks that together cover rows
// [row_begin, row_end) of the view (its last row_dims dims make a row): one walk when the leading
// dims act as a single strided dim, else one per row.
template <typename Visit>
void ForEachRowRange(const TensorView &view, size_t row_dims, int64_t row_begin, int64_t row_end, Visit visit) {
  const size_t rank = view.dims.size(), leading = rank - row_dims;
  const int64_t element_size = static_cast<int64_t>(aclDataTypeSize(view.dtype));
  char *const first = static_cast<char *>(view.FirstElement());
  const Loops row = Simplify(view, leading, rank), leading_loops = Simplify(view, 0, leading);
  if (leading_loops.rank <= 1) {
    const int64_t row_stride = leading_loops.rank == 1 ? leading_loops.strides[0] : 0;
    Loops rows;
    rows.Append(row_end - row_begin, row_stride);
    for (size_t d = 0; d < row.rank; ++d) rows.Append(row.dims[d], row.strides[d]);
    visit(rows, first + row_begin * row_stride * element_size, 0);
    return;
  }
  for (int64_t m = row_begin; m < row_end; ++m) {
    int64_t offset = 0, rest = m;
    for (size_t d = leading; d-- > 0;) {
      offset += (rest % view.dims[d]) * view.strides[d];
      rest /= view.dims[d];
    }
    visit(row, first + offset * element_size, m - row_begin);
  }
}

int64_t RowElements(const TensorView &view, size_t row_dims) {
  int64_t count = 1;
  for (size_t d = view.dims.size() - row_dims; d < view.dims.size(); ++d) count *= view.dims[d];
  return count;
}

}  // namespace

void GatherRows(const TensorView &view, size_t row_dims, int64_t row_begin, int64_t row_end, void *dense) {
  const int64_t row_bytes = RowElements(view, row_dims) * static_cast<int64_t>(aclDataTypeSize(view.dtype));
  ForEachRowRange(view, row_dims, row_begin, row_end, [&](const Loops &loops, char *first, int64_t first_row) {
    GatherLoops(loops, first, view.dtype, static_cast<char *>(dense) + first_row * row_bytes, 1);
  });
}

void ScatterRows(const void *dense, aclDataType dense_dtype, const TensorView &view, size_t row_dims, int64_t row_begin,
                 int64_t row_end) {
  const int64_t row_bytes = RowElements(view, row_dims) * static_cast<int64_t>(aclDataTypeSize(dense_dtype));
  ForEachRowRange(view, row_dims, row_begin, row_end, [&](const Loops &loops, char *first, int64_t first_row) {
    ScatterLoops(static_cast<const char *>(dense) + first_row * row_bytes, dense_dtype, loops, first, view.dtype, 1);
  });
}

void FillZero(const TensorView &view) {
  const int64_t element_size = static_cast<int64_t>(aclDataTypeSize(view.dtype));
  char *base = static_cast<char *>(view.FirstElement());
  ForEachRun(view, 1, [&](int64_t at, int64_t step, int64_t, int64_t, int64_t count) {
    for (int64_t k = 0; k < count; ++k) std::memset(base + (at + k * step) * element_size, 0, static_cast<size_t>(element_size));
  });
}

}  // namespace aclhost
