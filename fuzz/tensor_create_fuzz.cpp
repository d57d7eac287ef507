// aclCreateTensor from raw bytes: any parameters either give a tensor whose view provably stays
// inside its storage and whose getters return what was passed, or NULL with a message.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "byte_reader.h"

namespace {

using aclhost::fuzz::ByteReader;

void Require(bool condition, const char *what) {
  if (condition) return;
  std::fprintf(stderr, "tensor_create_fuzz: %s\n", what);
  std::abort();
}

// Mostly small values (shapes people build), sometimes extremes (overflow, negatives).
int64_t Extent(ByteReader &bytes) {
  switch (bytes.Byte() % 8) {
    case 0: return bytes.Raw64();
    case 1: return -bytes.Range(0, 3);
    default: return bytes.Range(0, 40);
  }
}

std::vector<int64_t> Extents(ByteReader &bytes, size_t count) {
  std::vector<int64_t> values(count);
  for (int64_t &value : values) value = Extent(bytes);
  return values;
}

void CheckArrayGetter(aclnnStatus (*getter)(const aclTensor *, int64_t **, uint64_t *), const aclTensor *tensor,
                      const std::vector<int64_t> &expected) {
  int64_t *values = nullptr;
  uint64_t count = 0;
  Require(getter(tensor, &values, &count) == 0, "a getter failed on a created tensor");
  Require(count == expected.size(), "a getter returned another length");
  for (uint64_t i = 0; i < count; ++i) Require(values[i] == expected[i], "a getter returned another value");
  delete[] values;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ByteReader bytes(data, size);
  const size_t rank = static_cast<size_t>(bytes.Range(0, 10));
  const std::vector<int64_t> dims = Extents(bytes, rank);
  const bool has_strides = bytes.Bit();
  const std::vector<int64_t> strides = Extents(bytes, rank);
  const int64_t offset = Extent(bytes);
  const aclDataType dtype = static_cast<aclDataType>(bytes.Range(-1, 30));
  const aclFormat format = static_cast<aclFormat>(bytes.Range(-1, 40));
  const size_t storage_rank = static_cast<size_t>(bytes.Range(0, 4));
  const std::vector<int64_t> storage = Extents(bytes, storage_rank);
  static char target;  // the view is never dereferenced by creation or the getters
  void *address = bytes.Bit() ? &target : nullptr;

  aclTensor *tensor = aclCreateTensor(rank > 0 ? dims.data() : nullptr, rank, dtype, has_strides ? strides.data() : nullptr,
                                      offset, format, storage_rank > 0 ? storage.data() : nullptr, storage_rank, address);
  const char *message = aclGetRecentErrMsg();
  if (tensor == nullptr) {
    Require(message != nullptr, "NULL without a message");
    return 0;
  }
  Require(message == nullptr, "a created tensor left a message");

  // What creation promises: no negative value, and the last reachable element inside the storage.
  __int128 storage_elements = 1, last = offset, view_elements = 1;
  for (const int64_t extent : storage) storage_elements *= extent;
  Require(offset >= 0, "a negative offset was accepted");
  for (size_t d = 0; d < rank; ++d) {
    Require(dims[d] >= 0, "a negative dim was accepted");
    view_elements *= dims[d];
  }
  if (view_elements > 0 && has_strides) {
    for (size_t d = 0; d < rank; ++d) {
      Require(strides[d] >= 0, "a negative stride was accepted");
      last += static_cast<__int128>(dims[d] - 1) * strides[d];
    }
    Require(last < storage_elements, "a view reaching past its storage was accepted");
  }
  CheckArrayGetter(aclGetViewShape, tensor, dims);
  if (has_strides) CheckArrayGetter(aclGetViewStrides, tensor, strides);
  CheckArrayGetter(aclGetStorageShape, tensor, storage);
  int64_t got_offset = -1;
  Require(aclGetViewOffset(tensor, &got_offset) == 0 && got_offset == offset, "aclGetViewOffset differs");
  aclDataType got_dtype = ACL_DT_UNDEFINED;
  Require(aclGetDataType(tensor, &got_dtype) == 0 && got_dtype == dtype, "aclGetDataType differs");
  aclFormat got_format = ACL_FORMAT_UNDEFINED;
  Require(aclGetFormat(tensor, &got_format) == 0 && got_format == format, "aclGetFormat differs");
  Require(aclDestroyTensor(tensor) == 0, "aclDestroyTensor failed");
  return 0;
}
