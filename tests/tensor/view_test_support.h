// Small strided views over a static arena, for tests of the view analyses against brute force.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "tensor/tensor.h"

namespace aclhost {

inline TensorView View(aclDataType dtype, std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset) {
  static char arena[4096];
  TensorView view;
  view.dtype = dtype;
  view.dims = std::move(dims);
  view.strides = std::move(strides);
  view.offset = offset;
  view.data = arena;
  return view;
}

// Byte address of every element in row-major index order.
inline std::vector<int64_t> ElementAddresses(const TensorView &view) {
  std::vector<int64_t> addresses;
  const int64_t count = view.NumElements();
  const int64_t size = static_cast<int64_t>(aclDataTypeSize(view.dtype));
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat, element = view.offset;
    for (size_t d = view.dims.size(); d-- > 0;) {
      element += (rest % view.dims[d]) * view.strides[d];
      rest /= view.dims[d];
    }
    addresses.push_back(element * size);
  }
  return addresses;
}

// Rank 1-3, dims 0-4 (0 rarely), strides 0-7, a small offset.
inline TensorView RandomView(std::mt19937_64 &rng) {
  static const aclDataType kDtypes[] = {ACL_INT8, ACL_FLOAT16, ACL_FLOAT};
  const int rank = std::uniform_int_distribution<int>(1, 3)(rng);
  std::vector<int64_t> dims, strides;
  for (int d = 0; d < rank; ++d) {
    dims.push_back(std::uniform_int_distribution<int64_t>(rng() % 16 == 0 ? 0 : 1, 4)(rng));
    strides.push_back(std::uniform_int_distribution<int64_t>(0, 7)(rng));
  }
  return View(kDtypes[rng() % 3], dims, strides, std::uniform_int_distribution<int64_t>(0, 12)(rng));
}

}  // namespace aclhost
