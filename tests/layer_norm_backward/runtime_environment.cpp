// Every operator test runs with the runtime initialised and device 0 selected, as a CANN program.
#include <gtest/gtest.h>

#include "acl/acl.h"
#include "device_tensor.h"

namespace {

class RuntimeEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    lnb_test::TestSeed();  // prints the seed up front
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
};

const ::testing::Environment *const environment = ::testing::AddGlobalTestEnvironment(new RuntimeEnvironment);

}  // namespace
