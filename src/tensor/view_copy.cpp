#include "tensor/view_copy.h"

#include <cstring>
#include <vector>

#include "common/float_convert.h"

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

// Calls visit(element_address, row_major_index) for every element of the view.
template <typename Visit>
void ForEachElement(const TensorView &view, Visit visit) {
  const int64_t count = view.NumElements();
  if (count == 0) return;
  const int64_t element_size = static_cast<int64_t>(aclDataTypeSize(view.dtype));
  char *const base = static_cast<char *>(view.FirstElement());
  const size_t rank = view.dims.size();
  if (rank == 0) {
    visit(base, 0);
    return;
  }
  const int64_t inner = view.dims[rank - 1];
  const int64_t inner_step = view.strides[rank - 1] * element_size;
  std::vector<int64_t> index(rank, 0);
  int64_t outer_offset = 0;  // bytes from base to the start of the current innermost run
  for (int64_t linear = 0; linear < count; linear += inner) {
    char *element = base + outer_offset;
    for (int64_t i = 0; i < inner; ++i, element += inner_step) visit(element, linear + i);
    // Odometer step over the outer dims.
    for (size_t d = rank - 1; d-- > 0;) {
      outer_offset += view.strides[d] * element_size;
      if (++index[d] < view.dims[d]) break;
      outer_offset -= view.strides[d] * element_size * view.dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace

void GatherToDense(const TensorView &view, void *dense) {
  const size_t element_size = aclDataTypeSize(view.dtype);
  char *out = static_cast<char *>(dense);
  ForEachElement(view, [&](const char *element, int64_t index) {
    std::memcpy(out + index * element_size, element, element_size);
  });
}

void ScatterFromDense(const void *dense, aclDataType dense_dtype, const TensorView &view) {
  const char *in = static_cast<const char *>(dense);
  const size_t in_size = aclDataTypeSize(dense_dtype);
  if (dense_dtype == view.dtype) {
    ForEachElement(view, [&](char *element, int64_t index) { std::memcpy(element, in + index * in_size, in_size); });
    return;
  }
  ForEachElement(view, [&](char *element, int64_t index) {
    StoreFromFloat(LoadAsFloat(in + index * in_size, dense_dtype), view.dtype, element);
  });
}

void FillZero(const TensorView &view) {
  const size_t element_size = aclDataTypeSize(view.dtype);
  ForEachElement(view, [&](char *element, int64_t) { std::memset(element, 0, element_size); });
}

}  // namespace aclhost
