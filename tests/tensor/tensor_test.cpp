// The aclnn tensor API: creation with full view validation, getters, arrays, executor handles.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"

namespace {

std::string TakeMessage() {
  const char *message = aclGetRecentErrMsg();
  return message != nullptr ? message : "";
}

// Creates a tensor over a storage of storage_elements; NULL when rejected.
aclTensor *Create(const std::vector<int64_t> &dims, const std::vector<int64_t> *strides, int64_t offset,
                  int64_t storage_elements) {
  static float storage[64];
  const std::vector<int64_t> storage_dims{storage_elements};
  return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides ? strides->data() : nullptr, offset, ACL_FORMAT_ND,
                         storage_dims.data(), 1, storage);
}

TEST(TensorCreate, ValidViewsAndGetters) {
  // The upstream example: a 6x5 window at offset 22 of a 10x10 buffer.
  float storage[100];
  const int64_t dims[] = {6, 5}, strides[] = {10, 1}, storage_dims[] = {10, 10};
  aclTensor *tensor = aclCreateTensor(dims, 2, ACL_FLOAT16, strides, 22, ACL_FORMAT_NHWC, storage_dims, 2, storage);
  ASSERT_NE(tensor, nullptr) << TakeMessage();
  int64_t *values = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewShape(tensor, &values, &count), OK);
  EXPECT_EQ(std::vector<int64_t>(values, values + count), (std::vector<int64_t>{6, 5}));
  delete[] values;
  ASSERT_EQ(aclGetViewStrides(tensor, &values, &count), OK);
  EXPECT_EQ(std::vector<int64_t>(values, values + count), (std::vector<int64_t>{10, 1}));
  delete[] values;
  ASSERT_EQ(aclGetStorageShape(tensor, &values, &count), OK);
  EXPECT_EQ(std::vector<int64_t>(values, values + count), (std::vector<int64_t>{10, 10}));
  delete[] values;
  int64_t offset = -1;
  EXPECT_EQ(aclGetViewOffset(tensor, &offset), OK);
  EXPECT_EQ(offset, 22);
  aclFormat format = ACL_FORMAT_UNDEFINED;
  EXPECT_EQ(aclGetFormat(tensor, &format), OK);
  EXPECT_EQ(format, ACL_FORMAT_NHWC);
  aclDataType dtype = ACL_DT_UNDEFINED;
  EXPECT_EQ(aclGetDataType(tensor, &dtype), OK);
  EXPECT_EQ(dtype, ACL_FLOAT16);
  void *address = nullptr;
  EXPECT_EQ(aclGetRawTensorAddr(tensor, &address), OK);
  EXPECT_EQ(address, storage);
  EXPECT_EQ(aclSetRawTensorAddr(tensor, storage + 1), OK);
  EXPECT_EQ(aclGetRawTensorAddr(tensor, &address), OK);
  EXPECT_EQ(address, storage + 1);
  EXPECT_EQ(aclDestroyTensor(tensor), OK);
}

TEST(TensorCreate, NullStridesMeanContiguous) {
  const std::vector<int64_t> dims{2, 3, 4};
  aclTensor *tensor = Create(dims, nullptr, 0, 24);
  ASSERT_NE(tensor, nullptr);
  int64_t *strides = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewStrides(tensor, &strides, &count), OK);
  EXPECT_EQ(std::vector<int64_t>(strides, strides + count), (std::vector<int64_t>{12, 4, 1}));
  delete[] strides;
  aclDestroyTensor(tensor);
}

TEST(TensorCreate, AcceptedEdgeCases) {
  const std::vector<int64_t> scalar{}, empty{0, 5}, broadcast_strides{0, 1}, two_by_four{2, 4};
  for (aclTensor *tensor : {Create(scalar, nullptr, 0, 1),               // 0-dim: one element
                            Create(empty, nullptr, 0, 0),                // empty view, empty storage
                            Create(two_by_four, &broadcast_strides, 0, 4),  // stride 0 repeats a row
                            Create(two_by_four, nullptr, 56, 64)}) {     // ends at the last element
    EXPECT_NE(tensor, nullptr) << TakeMessage();
    aclDestroyTensor(tensor);
  }
}

struct RejectedView {
  const char *name;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // empty: NULL
  int64_t offset;
  int64_t storage_elements;
  const char *message_names;
};

class TensorRejectTest : public ::testing::TestWithParam<RejectedView> {};

TEST_P(TensorRejectTest, ReturnsNullWithAMessage) {
  const RejectedView &view = GetParam();
  TakeMessage();
  aclTensor *tensor = Create(view.dims, view.strides.empty() ? nullptr : &view.strides, view.offset, view.storage_elements);
  EXPECT_EQ(tensor, nullptr);
  const std::string message = TakeMessage();
  EXPECT_NE(message.find("aclCreateTensor"), std::string::npos) << message;
  EXPECT_NE(message.find(view.message_names), std::string::npos) << message;
  aclDestroyTensor(tensor);
}

INSTANTIATE_TEST_SUITE_P(
    Views, TensorRejectTest,
    ::testing::Values(RejectedView{"negative_dim", {2, -3}, {}, 0, 64, "viewDims[1]"},
                      RejectedView{"count_overflows", {1LL << 32, 1LL << 32}, {}, 0, 64, "overflows"},
                      RejectedView{"negative_stride", {2, 2}, {-1, 1}, 2, 64, "stride[0]"},
                      RejectedView{"negative_offset", {2, 2}, {}, -1, 64, "offset"},
                      RejectedView{"past_storage_end", {8, 8}, {}, 1, 64, "storage"},
                      RejectedView{"stride_past_storage", {2, 2}, {63, 1}, 0, 64, "storage"},
                      RejectedView{"reach_overflows", {3, 2}, {INT64_MAX / 2 + 1, 1}, 0, 64, "overflows"},
                      RejectedView{"empty_view_offset_past_end", {0}, {}, 65, 64, "offset"},
                      RejectedView{"negative_storage_dim", {1}, {}, 0, -4, "storageDims[0]"},
                      RejectedView{"storage_bytes_overflow", {1}, {}, 0, 1LL << 62, "overflows"}),
    [](const ::testing::TestParamInfo<RejectedView> &info) { return std::string(info.param.name); });

TEST(TensorCreate, NullArraysWithCounts) {
  const int64_t dims[] = {2};
  EXPECT_EQ(aclCreateTensor(nullptr, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr), nullptr);
  EXPECT_NE(TakeMessage().find("viewDims"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 1, nullptr), nullptr);
  EXPECT_NE(TakeMessage().find("storageDims"), std::string::npos);
}

TEST(TensorGetters, NullArgumentsReturnNullptrCode) {
  float storage[4];
  const int64_t dims[] = {4};
  aclTensor *tensor = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, storage);
  int64_t *values = nullptr;
  uint64_t count = 0;
  int64_t offset = 0;
  aclFormat format;
  aclDataType dtype;
  void *address = nullptr;
  EXPECT_EQ(aclGetViewShape(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(TakeMessage().find("aclGetViewShape"), std::string::npos);
  EXPECT_EQ(aclGetViewShape(tensor, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewStrides(tensor, &values, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetStorageShape(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewOffset(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFormat(nullptr, &format), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(nullptr, &dtype), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetRawTensorAddr(nullptr, &address), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclSetRawTensorAddr(nullptr, storage), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewOffset(tensor, &offset), OK);
  EXPECT_EQ(aclDestroyTensor(tensor), OK);
  EXPECT_EQ(aclDestroyTensor(nullptr), OK);
}

TEST(Arrays, CopiesAndEmptyArrays) {
  int64_t values[] = {3, 4, 5};
  aclIntArray *ints = aclCreateIntArray(values, 3);
  values[0] = 99;  // the array holds its own copy
  uint64_t size = 0;
  ASSERT_EQ(aclGetIntArraySize(ints, &size), OK);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclDestroyIntArray(ints), OK);
  aclIntArray *empty = aclCreateIntArray(nullptr, 0);
  ASSERT_NE(empty, nullptr);  // a valid empty array, not NULL
  ASSERT_EQ(aclGetIntArraySize(empty, &size), OK);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclDestroyIntArray(empty), OK);
  const bool flags[] = {true, false};
  aclBoolArray *bools = aclCreateBoolArray(flags, 2);
  ASSERT_EQ(aclGetBoolArraySize(bools, &size), OK);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(aclDestroyBoolArray(bools), OK);
  aclBoolArray *no_bools = aclCreateBoolArray(nullptr, 5);
  ASSERT_NE(no_bools, nullptr);
  ASSERT_EQ(aclGetBoolArraySize(no_bools, &size), OK);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclDestroyBoolArray(no_bools), OK);
  EXPECT_EQ(aclDestroyIntArray(nullptr), OK);
  EXPECT_EQ(aclDestroyBoolArray(nullptr), OK);
  EXPECT_EQ(aclGetIntArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetBoolArraySize(bools, nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST(Aclnn, InitAndFinalize) {
  EXPECT_EQ(aclnnInit(nullptr), OK);
  EXPECT_EQ(aclnnFinalize(), OK);
}

}  // namespace
