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
using aclhost::kernels::TransposeFar;

// Transposes a rows x cols matrix of random elements and checks every destination element and
// that the padding past each destination row is untouched. line_aligned: the destination starts
// on a 64-byte boundary with its rows a whole number of lines apart, where streamed stores apply.
template <typename Element>
void ExpectTransposed(Isa isa, int64_t rows, int64_t cols, TransposeFar far, bool line_aligned, std::mt19937_64 &random) {
  constexpr int64_t kLine = 64 / sizeof(Element);
  const int64_t src_stride = cols + static_cast<int64_t>(random() % 5);
  const int64_t padded_rows = rows + static_cast<int64_t>(random() % 5);
  const int64_t dst_stride = line_aligned ? (padded_rows + kLine - 1) / kLine * kLine : padded_rows;
  std::vector<Element> src(static_cast<size_t>(rows * src_stride)), dst_storage(static_cast<size_t>(cols * dst_stride + kLine));
  Element *dst = dst_storage.data();
  if (line_aligned) dst = reinterpret_cast<Element *>((reinterpret_cast<uintptr_t>(dst) + 63) / 64 * 64);
  for (Element &element : src) element = static_cast<Element>(random());
  const Element untouched = static_cast<Element>(random());
  for (Element &element : dst_storage) element = untouched;
  aclhost::kernels::Transpose(src.data(), src_stride, rows, cols, dst, dst_stride, sizeof(Element), far, isa);
  int64_t wrong = 0;
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < dst_stride; ++r) {
      const Element want = r < rows ? src[static_cast<size_t>(r * src_stride + c)] : untouched;
      if (dst[c * dst_stride + r] != want && ++wrong <= 3) {
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
      // Which side is fetched ahead does not change what lands where: both are tried, by turns.
      const TransposeFar far = random() % 2 == 0 ? TransposeFar::kSource : TransposeFar::kDestination;
      ExpectTransposed<uint16_t>(GetParam(), rows, cols, far, false, random);
      ExpectTransposed<uint32_t>(GetParam(), rows, cols, far, false, random);
      if (HasFailure()) return;
    }
  }
}

TEST_P(TransposeTest, StreamedDestinationRowsGetEveryElement) {
  // More destination rows than source rows (and fewer: not streamed), line-aligned: pairs of
  // squares streamed as whole lines on AVX2 and AVX-512, with a last single square where the
  // source rows leave one; unaligned, the ordinary stores.
  if (!aclhost::kernels::IsaAvailable(GetParam())) GTEST_SKIP() << "the CPU cannot run this target";
  std::mt19937_64 random(aclhost::testing::TestSeed());
  for (const bool line_aligned : {true, false}) {
    for (const int64_t rows : {8, 16, 24, 32, 45, 64, 96, 130}) {
      for (const int64_t cols : {17, 40, 97, 200}) {
        ExpectTransposed<uint16_t>(GetParam(), rows, cols, TransposeFar::kStreamedDestination, line_aligned, random);
        ExpectTransposed<uint32_t>(GetParam(), rows, cols, TransposeFar::kStreamedDestination, line_aligned, random);
        if (HasFailure()) return;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, TransposeTest, ::testing::Values(Isa::kScalar, Isa::kSse4, Isa::kAvx2, Isa::kAvx512),
                         [](const ::testing::TestParamInfo<Isa> &info) {
                           return std::string(aclhost::kernels::IsaName(info.param));
                         });

}  // namespace
