// The SIMD transposition of every target against the definition, element by element, on sizes
// with and without whole squares, either side the longer, with strides wider than the rows.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/transpose.h"
#include "test_seed.h"

namespace {

using aclhost::kernels::Isa;

template <typename Element>
void ExpectTransposed(Isa isa, int64_t rows, int64_t cols, std::mt19937_64 &random) {
  // Which side is fetched ahead does not change what lands where: both are tried, by turns.
  const auto fetch = random() % 2 == 0 ? aclhost::kernels::TransposeFetch::kSource : aclhost::kernels::TransposeFetch::kDestination;
  const int64_t src_stride = cols + static_cast<int64_t>(random() % 5), dst_stride = rows + static_cast<int64_t>(random() % 5);
  std::vector<Element> src(static_cast<size_t>(rows * src_stride)), dst(static_cast<size_t>(cols * dst_stride));
  for (Element &element : src) element = static_cast<Element>(random());
  const Element untouched = static_cast<Element>(random());
  for (Element &element : dst) element = untouched;
  aclhost::kernels::Transpose(src.data(), src_stride, rows, cols, dst.data(), dst_stride, sizeof(Element), fetch, isa);
  int64_t wrong = 0;
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < dst_stride; ++r) {
      const Element want = r < rows ? src[static_cast<size_t>(r * src_stride + c)] : untouched;
      if (dst[static_cast<size_t>(c * dst_stride + r)] != want && ++wrong <= 3) {
        ADD_FAILURE() << sizeof(Element) << "-byte elements, " << rows << " x " << cols << ": dst row " << c << ", column "
                      << r << (r < rows ? "" : " (past the rows: must stay untouched)");
      }
    }
  }
  EXPECT_EQ(wrong, 0);
}

class TransposeTest : public ::testing::TestWithParam<Isa> {};

TEST_P(TransposeTest, EveryElementLandsInItsPlace) {
  if (!aclhost::kernels::IsaAvailable(GetParam())) GTEST_SKIP() << "the CPU cannot run this target";
  std::mt19937_64 random(aclhost::testing::TestSeed());
  const int64_t sizes[] = {1, 3, 4, 7, 8, 9, 16, 17, 32, 45, 96};
  for (const int64_t rows : sizes) {
    for (const int64_t cols : sizes) {
      ExpectTransposed<uint16_t>(GetParam(), rows, cols, random);
      ExpectTransposed<uint32_t>(GetParam(), rows, cols, random);
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, TransposeTest, ::testing::Values(Isa::kScalar, Isa::kSse4, Isa::kAvx2, Isa::kAvx512),
                         [](const ::testing::TestParamInfo<Isa> &info) {
                           return std::string(aclhost::kernels::IsaName(info.param));
                         });

}  // namespace
