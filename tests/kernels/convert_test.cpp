// The SIMD float32 -> float16 / bfloat16 rounding of every target against the scalar reference
// conversions (round to nearest even), over every float16 value, their midpoints and random bits;
// every NaN (random bits hold thousands) leaves as the one quiet NaN, in float32 too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "common/float_convert.h"
#include "kernels/common/convert.h"

namespace {

using aclhost::kernels::ElementType;
using aclhost::kernels::Isa;

std::vector<float> Inputs() {
  std::vector<float> values;
  for (uint32_t half = 0; half < 0x10000; ++half) {
    const float value = aclhost::HalfToFloat(static_cast<uint16_t>(half));
    values.push_back(value);
    // Just above, at and below the midpoint to the next half: ties and near-ties.
    const float next = aclhost::HalfToFloat(static_cast<uint16_t>(half + 1));
    const float midpoint = (value + next) / 2;
    values.push_back(midpoint);
    values.push_back(std::nextafter(midpoint, 0.0f));
    values.push_back(std::nextafter(midpoint, 1e30f));
  }
  std::mt19937 random(12345);
  for (int i = 0; i < 200000; ++i) values.push_back(aclhost::FloatFromBits(static_cast<uint32_t>(random())));
  return values;
}

class ConvertTest : public ::testing::TestWithParam<Isa> {};

TEST_P(ConvertTest, MatchesScalarRoundToNearestEven) {
  if (!aclhost::kernels::IsaAvailable(GetParam())) GTEST_SKIP() << "the CPU cannot run this target";
  const std::vector<float> in = Inputs();
  std::vector<uint16_t> half(in.size()), bf16(in.size());
  std::vector<float> copy(in.size());
  aclhost::kernels::ConvertFloats(in.data(), static_cast<int64_t>(in.size()), ElementType::kFloat16, half.data(), GetParam());
  aclhost::kernels::ConvertFloats(in.data(), static_cast<int64_t>(in.size()), ElementType::kBFloat16, bf16.data(), GetParam());
  aclhost::kernels::ConvertFloats(in.data(), static_cast<int64_t>(in.size()), ElementType::kFloat32, copy.data(), GetParam());
  size_t wrong = 0;
  size_t nans = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const float want = aclhost::CanonicalNaN(in[i]);
    nans += std::isnan(in[i]) ? 1 : 0;
    const bool ok = half[i] == aclhost::FloatToHalf(want) && bf16[i] == aclhost::FloatToBf16(want) &&
                    aclhost::FloatBits(copy[i]) == aclhost::FloatBits(want);
    if (!ok && ++wrong <= 5) {
      ADD_FAILURE() << "input bits " << std::hex << aclhost::FloatBits(in[i]) << ": half " << half[i] << " want "
                    << aclhost::FloatToHalf(want) << ", bf16 " << bf16[i] << " want " << aclhost::FloatToBf16(want) << ", float "
                    << aclhost::FloatBits(copy[i]) << " want " << aclhost::FloatBits(want);
    }
  }
  EXPECT_GT(nans, 1000u) << "inputs with NaN payloads and signs of every kind";
  EXPECT_EQ(aclhost::FloatToHalf(std::numeric_limits<float>::quiet_NaN()), 0x7E00u);
  EXPECT_EQ(aclhost::FloatToBf16(std::numeric_limits<float>::quiet_NaN()), 0x7FC0u);
  EXPECT_EQ(wrong, 0u);
}

INSTANTIATE_TEST_SUITE_P(Targets, ConvertTest, ::testing::Values(Isa::kScalar, Isa::kSse4, Isa::kAvx2, Isa::kAvx512),
                         [](const ::testing::TestParamInfo<Isa> &info) {
                           return std::string(aclhost::kernels::IsaName(info.param));
                         });

}  // namespace
