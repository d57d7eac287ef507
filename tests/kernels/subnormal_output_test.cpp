// BF16 gradInput and forward out values in the subnormal range come out with the same bits on
// every target, in place or not: the AVX-512 path rounds natively with vcvtneps2bf16 (the forward:
// vcvtne2ps2bf16, two vectors at once), which reads subnormal floats as zero, so a vector holding
// one must take the exact path, and its partner with it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backward_kernel_call.h"
#include "common/float_convert.h"
#include "test_seed.h"

namespace {

using aclhost::kernels::ElementType;
using aclhost::kernels::Isa;

constexpr int64_t kRows = 8;
constexpr int64_t kCols = 600;  // 37 whole blocks of 16 and a part block

// Rows 0-3 have rstd 1, rows 4-7 rstd 2^-130: their gradInput, about gradOut * rstd, lies in the
// subnormal range, where BF16 still has values.
class SubnormalOutputTest : public ::testing::Test {
 protected:
  SubnormalOutputTest() : grad_out_(kRows * kCols), input_(kRows * kCols), mean_(kRows, 0.0f), rstd_(kRows), weight_(kCols) {
    std::mt19937_64 random(aclhost::testing::TestSeed());
    std::normal_distribution<float> normal;
    for (uint16_t &value : grad_out_) value = aclhost::FloatToBf16(normal(random));
    for (uint16_t &value : input_) value = aclhost::FloatToBf16(normal(random));
    for (float &value : weight_) value = 1.0f + 0.1f * normal(random);
    for (int64_t m = 0; m < kRows; ++m) rstd_[static_cast<size_t>(m)] = m < kRows / 2 ? 1.0f : std::ldexp(1.0f, -130);
  }

  // gradInput's bits from the kernel on isa; in place: written over a copy of gradOut.
  std::vector<uint16_t> GradInput(Isa isa, bool in_place) {
    std::vector<uint16_t> grad_input = in_place ? grad_out_ : std::vector<uint16_t>(grad_out_.size());
    std::vector<float> grad_weight(kCols), grad_bias(kCols);
    aclhost::kernels::KernelConfig config;
    config.isa = isa;
    aclhost::testing::RunBackward(aclhost::testing::BackwardArgs(
        kRows, kCols, ElementType::kBFloat16,
        {in_place ? grad_input.data() : grad_out_.data(), input_.data(), mean_.data(), rstd_.data(), weight_.data(),
         grad_input.data(), grad_weight.data(), grad_bias.data()},
        config));
    return grad_input;
  }

  std::vector<uint16_t> grad_out_, input_;
  std::vector<float> mean_, rstd_, weight_;
};

TEST_F(SubnormalOutputTest, SameBitsOnEveryTargetInPlaceOrNot) {
  const std::vector<uint16_t> want = GradInput(Isa::kScalar, false);
  int subnormals = 0;
  for (uint16_t bits : want) subnormals += (bits & 0x7F80u) == 0 && (bits & 0x7Fu) != 0;
  ASSERT_GT(subnormals, kCols) << "the problem must produce subnormal BF16 results to test them";
  for (Isa isa : {Isa::kScalar, Isa::kSse4, Isa::kAvx2, Isa::kAvx512}) {
    if (!aclhost::kernels::IsaAvailable(isa)) continue;
    for (bool in_place : {false, true}) {
      EXPECT_EQ(GradInput(isa, in_place), want) << aclhost::kernels::IsaName(isa) << (in_place ? ", in place" : "");
    }
  }
}

// Forward rows of BF16 in and out whose weight is about 2^-130 in 3 columns of every 37: their
// out lies in the subnormal range there, so some pairs of blocks hold such values in one block
// only, some in both, some in neither. 600 columns: a row alone, widened to float32 once; 200:
// rows in groups of 4; 4099: converted in every pass.
class ForwardSubnormalOutputTest : public ::testing::TestWithParam<int64_t> {
 protected:
  ForwardSubnormalOutputTest() : cols_(GetParam()), input_(kRows * cols_), weight_(cols_) {
    std::mt19937_64 random(aclhost::testing::TestSeed());
    std::normal_distribution<float> normal;
    for (uint16_t &value : input_) value = aclhost::FloatToBf16(normal(random));
    for (int64_t n = 0; n < cols_; ++n) {
      const float scale = n % 37 < 3 ? std::ldexp(1.0f, -130) : 1.0f;
      weight_[static_cast<size_t>(n)] = scale * (1.0f + 0.1f * normal(random));
    }
  }

  // out's bits from the kernel on isa; in place: written over a copy of input.
  std::vector<uint16_t> Out(Isa isa, bool in_place) {
    std::vector<uint16_t> out = in_place ? input_ : std::vector<uint16_t>(input_.size());
    std::vector<float> mean(kRows), rstd(kRows);
    aclhost::kernels::LayerNormForward(aclhost::testing::ForwardArgs(kRows, cols_, ElementType::kBFloat16,
                                                                     in_place ? out.data() : input_.data(), weight_.data(),
                                                                     out.data(), mean.data(), rstd.data(), isa));
    return out;
  }

  const int64_t cols_;
  std::vector<uint16_t> input_;
  std::vector<float> weight_;
};

TEST_P(ForwardSubnormalOutputTest, SameBitsOnEveryTargetInPlaceOrNot) {
  const std::vector<uint16_t> want = Out(Isa::kScalar, false);
  int subnormals = 0;
  for (uint16_t bits : want) subnormals += (bits & 0x7F80u) == 0 && (bits & 0x7Fu) != 0;
  ASSERT_GT(subnormals, kRows * (cols_ / 37)) << "the problem must produce subnormal BF16 results to test them";
  for (Isa isa : {Isa::kScalar, Isa::kSse4, Isa::kAvx2, Isa::kAvx512}) {
    if (!aclhost::kernels::IsaAvailable(isa)) continue;
    for (bool in_place : {false, true}) {
      EXPECT_EQ(Out(isa, in_place), want) << aclhost::kernels::IsaName(isa) << (in_place ? ", in place" : "");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Columns, ForwardSubnormalOutputTest, ::testing::Values(600, 200, 4099));

}  // namespace
