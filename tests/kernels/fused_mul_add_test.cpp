// The kernels' fused multiply-add of every target against the C library's fma (one rounding to
// nearest even): random operands, operands whose exact result lies next to a tie between two
// floats (where rounding first to double and then to float would err), subnormal results and
// random bits (infinities and NaNs among them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/float_convert.h"
#include "kernels/common/fused_mul_add.h"
#include "test_seed.h"

namespace {

using aclhost::kernels::Isa;

struct Operands {
  std::vector<float> a, b, c;
  void Add(float x, float y, float z) {
    a.push_back(x);
    b.push_back(y);
    c.push_back(z);
  }
};

// A float of random mantissa and sign whose exponent lies in [low, high].
float RandomFloat(std::mt19937_64 &random, int low, int high) {
  const uint32_t exponent = static_cast<uint32_t>(std::uniform_int_distribution<int>(low, high)(random) + 127);
  const uint32_t bits = static_cast<uint32_t>(random()) & 0x807FFFFFu;
  return aclhost::FloatFromBits(bits | exponent << 23);
}

Operands MakeOperands(uint64_t seed) {
  std::mt19937_64 random(seed);
  Operands ops;
  // a * b = 1 + 2^-24 - 2^-47 exactly: adding 2^-47 (1 + 2^-23) puts the sum 2^-70 above the tie
  // between 1 and 1 + 2^-23, which the nearest double would round onto and float then to 1.
  const float above_one = 1.0f + 0x1p-23f, below_one = 1.0f - 0x1p-24f;
  ops.Add(above_one, below_one, 0x1p-47f * (1.0f + 0x1p-23f));
  ops.Add(-above_one, below_one, -0x1p-47f * (1.0f + 0x1p-23f));
  ops.Add(above_one, below_one, 0x1p-47f * (1.0f - 0x1p-24f));
  for (int i = 0; i < 100000; ++i) {  // products of all sizes, addends near them or far
    ops.Add(RandomFloat(random, -40, 40), RandomFloat(random, -40, 40), RandomFloat(random, -80, 80));
  }
  // Products within 2^-31 of a tie between two floats, and the addend that takes them to the
  // tie moved by one of its own steps: sums within half a double's step of the tie, where the
  // nearest double is the tie itself.
  for (int traps = 0; traps < 20000;) {
    const float a = RandomFloat(random, -20, 20), b = RandomFloat(random, -20, 20);
    const double product = static_cast<double>(a) * b;
    const float nearest = static_cast<float>(product);
    const double tie = (static_cast<double>(nearest) + std::nextafter(nearest, product < nearest ? -INFINITY : INFINITY)) / 2;
    const double to_tie = tie - product;  // exact: the two lie within a float's step
    const float addend = static_cast<float>(to_tie);
    if (to_tie == 0 || std::fabs(to_tie) > std::fabs(product) * 0x1p-31 || addend != to_tie) continue;
    ops.Add(a, b, std::nextafter(addend, random() % 2 == 0 ? INFINITY : -INFINITY));
    ++traps;
  }
  // The same among subnormal results, whose ties lie at other bits: a subnormal addend of 2^-128
  // or more plus a product of +-2^-150 (1 - 2^-32), 2^-182 short of half the addend's step.
  const float factor_up = 0x1p-75f * (1.0f + 0x1p-16f), factor_down = 0x1p-75f * (1.0f - 0x1p-16f);
  for (int i = 0; i < 10000; ++i) {
    const float addend = aclhost::FloatFromBits(static_cast<uint32_t>(random() % 0x600000u + 0x200000u) |
                                                (random() % 2 == 0 ? 0u : 0x80000000u));
    ops.Add(factor_up, random() % 2 == 0 ? factor_down : -factor_down, addend);
  }
  for (int i = 0; i < 20000; ++i) {  // results at and below float's smallest normal
    ops.Add(RandomFloat(random, -75, -60), RandomFloat(random, -75, -60), RandomFloat(random, -149, -120));
  }
  for (int i = 0; i < 50000; ++i) {
    ops.Add(aclhost::FloatFromBits(static_cast<uint32_t>(random())), aclhost::FloatFromBits(static_cast<uint32_t>(random())),
            aclhost::FloatFromBits(static_cast<uint32_t>(random())));
  }
  return ops;
}

class FusedMulAddTest : public ::testing::TestWithParam<Isa> {};

TEST_P(FusedMulAddTest, RoundsOnceAsTheCLibraryFmaDoes) {
  if (!aclhost::kernels::IsaAvailable(GetParam())) GTEST_SKIP() << "the CPU cannot run this target";
  const Operands ops = MakeOperands(aclhost::testing::TestSeed());
  const size_t count = ops.a.size();
  std::vector<float> out(count);
  aclhost::kernels::FusedMulAddArrays(ops.a.data(), ops.b.data(), ops.c.data(), static_cast<int64_t>(count), out.data(),
                                      GetParam());
  size_t wrong = 0;
  for (size_t i = 0; i < count; ++i) {
    const float want = std::fma(ops.a[i], ops.b[i], ops.c[i]);
    const bool ok = std::isnan(want) ? std::isnan(out[i]) : aclhost::FloatBits(out[i]) == aclhost::FloatBits(want);
    if (!ok && ++wrong <= 5) {
      ADD_FAILURE() << std::hexfloat << ops.a[i] << " * " << ops.b[i] << " + " << ops.c[i] << ": " << out[i] << ", want " << want;
    }
  }
  EXPECT_EQ(wrong, 0u);
}

INSTANTIATE_TEST_SUITE_P(Targets, FusedMulAddTest, ::testing::Values(Isa::kScalar, Isa::kSse4, Isa::kAvx2, Isa::kAvx512),
                         [](const ::testing::TestParamInfo<Isa> &info) {
                           return std::string(aclhost::kernels::IsaName(info.param));
                         });

}  // namespace
