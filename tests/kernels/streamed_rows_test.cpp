// gradInput of over 8 MiB streams out with non-temporal stores, whole cache lines only: rows that
// begin within a line (a byte length that is no multiple of 64, or a first row a few elements
// into a line) write their columns up to the next line through the caches first
// (lnb::StreamsAfterHead); a group whose rows lie differently takes them in turn, each after its
// own head. On every target and thread count, in place or not, the bits equal the scalar target's
// on one thread (which streams nothing), the values match the double reference, and no byte around
// the rows is written.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "backward_kernel_call.h"
#include "dtype_codec.h"
#include "layer_norm_backward_reference.h"
#include "test_seed.h"
#include "tolerance.h"

namespace {

using aclhost::kernels::ElementType;
using aclhost::kernels::Isa;
using aclhost::testing::DtypeOf;

struct StreamedCase {
  const char *name;
  ElementType type;
  int64_t rows, cols;
  int64_t first_element;  // where gradInput's row 0 begins in its buffer (elements)
  int64_t row_stride;     // gradInput's elements from row to row (0: cols, rows back to back)
  bool in_place = false;  // gradOut given in gradInput's place (its values there before the call)
};

void PrintTo(const StreamedCase &c, std::ostream *os) { *os << c.name; }

constexpr uint8_t kUntouched = 0xA5;

class StreamedRowsTest : public ::testing::TestWithParam<StreamedCase> {
 protected:
  // Random operands exactly representable in the case's type; mean and rstd from the input.
  void SetUp() override {
    const StreamedCase &c = GetParam();
    const int64_t grad_input_bytes = c.rows * c.cols * static_cast<int64_t>(aclhost::kernels::ElementSize(c.type));
    ASSERT_GT(grad_input_bytes, int64_t{8} << 20) << "too small to stream";
    const aclDataType dtype = DtypeOf(c.type);
    std::mt19937_64 random(aclhost::testing::TestSeed());
    std::normal_distribution<double> normal;
    const size_t elements = static_cast<size_t>(c.rows * c.cols);
    std::vector<double> grad_out(elements), input(elements);
    for (double &value : grad_out) value = aclhost::testing::RoundTo(dtype, normal(random));
    for (double &value : input) value = aclhost::testing::RoundTo(dtype, 0.5 + 2.0 * normal(random));
    std::vector<double> weight(static_cast<size_t>(c.cols));
    for (double &value : weight) value = static_cast<float>(1.0 + 0.25 * normal(random));
    std::vector<double> mean, rstd;
    aclhost::reference::RowStatistics(input, c.rows, c.cols, 1e-5, &mean, &rstd);
    for (size_t m = 0; m < mean.size(); ++m) {
      mean_.push_back(static_cast<float>(mean[m]));
      rstd_.push_back(static_cast<float>(rstd[m]));
      mean[m] = mean_[m];
      rstd[m] = rstd_[m];
    }
    want_ = aclhost::reference::LayerNormBackward(grad_out, input, mean, rstd, weight, c.rows, c.cols);
    grad_out_.resize(elements * aclhost::kernels::ElementSize(c.type));
    input_.resize(elements * aclhost::kernels::ElementSize(c.type));
    for (size_t i = 0; i < elements; ++i) {
      aclhost::kernels::StoreElement(grad_out_.data(), c.type, static_cast<int64_t>(i), static_cast<float>(grad_out[i]));
      aclhost::kernels::StoreElement(input_.data(), c.type, static_cast<int64_t>(i), static_cast<float>(input[i]));
    }
    weight_.assign(weight.begin(), weight.end());
  }

  int64_t RowStride() const { return GetParam().row_stride != 0 ? GetParam().row_stride : GetParam().cols; }

  // Where gradInput's element (m, n) lies in its buffer, in elements.
  int64_t Index(int64_t m, int64_t n) const { return GetParam().first_element + m * RowStride() + n; }

  // gradInput's buffer after one call: kUntouched wherever the rows are not. It starts on a
  // 64-byte boundary, as aclrtMalloc's blocks do, and ends a line after the last row.
  std::vector<uint8_t> Run(Isa isa, int threads) const {
    const StreamedCase &c = GetParam();
    const size_t size = aclhost::kernels::ElementSize(c.type);
    const size_t bytes = static_cast<size_t>(Index(c.rows - 1, c.cols)) * size + 64;
    AlignedBytes grad_input(bytes);
    char *const first_row = reinterpret_cast<char *>(grad_input.data()) + static_cast<size_t>(c.first_element) * size;
    if (c.in_place) {
      for (int64_t m = 0; m < c.rows; ++m) {
        std::memcpy(first_row + (Index(m, 0) - c.first_element) * static_cast<int64_t>(size),
                    grad_out_.data() + static_cast<size_t>(m * c.cols) * size, static_cast<size_t>(c.cols) * size);
      }
    }
    std::vector<float> grad_weight(static_cast<size_t>(c.cols)), grad_bias(static_cast<size_t>(c.cols));
    aclhost::kernels::KernelConfig config;
    config.isa = isa;
    config.threads = threads;
    config.vendor = aclhost::kernels::CacheVendor::kOther;
    const void *const grad_out = c.in_place ? static_cast<const void *>(first_row) : grad_out_.data();
    aclhost::kernels::LayerNormBackwardArgs args = aclhost::testing::BackwardArgs(
        c.rows, c.cols, c.type,
        {grad_out, input_.data(), mean_.data(), rstd_.data(), weight_.data(), first_row, grad_weight.data(), grad_bias.data()},
        config);
    args.grad_input_spacing.row_stride = c.row_stride;
    if (c.in_place) args.grad_out_spacing = args.grad_input_spacing;
    aclhost::testing::RunBackward(args);
    return std::vector<uint8_t>(grad_input.data(), grad_input.data() + bytes);
  }

  // A 64-byte aligned buffer filled with kUntouched.
  class AlignedBytes {
   public:
    explicit AlignedBytes(size_t bytes) : storage_(bytes + 64, kUntouched) {}
    uint8_t *data() {
      const uintptr_t at = reinterpret_cast<uintptr_t>(storage_.data());
      return storage_.data() + (64 - at % 64) % 64;
    }

   private:
    std::vector<uint8_t> storage_;
  };

  std::vector<uint8_t> grad_out_, input_;
  std::vector<float> weight_, mean_, rstd_;
  aclhost::reference::LayerNormBackwardResult want_;
};

TEST_P(StreamedRowsTest, RowsThatBeginWithinALineGiveTheScalarBitsAndTouchNothingElse) {
  const StreamedCase &c = GetParam();
  const std::vector<uint8_t> reference = Run(Isa::kScalar, 1);
  std::vector<double> got(static_cast<size_t>(c.rows * c.cols));
  std::vector<bool> in_rows(reference.size() / aclhost::kernels::ElementSize(c.type), false);
  for (int64_t m = 0; m < c.rows; ++m) {
    for (int64_t n = 0; n < c.cols; ++n) {
      got[static_cast<size_t>(m * c.cols + n)] = aclhost::kernels::LoadElement(reference.data(), c.type, Index(m, n));
      in_rows[static_cast<size_t>(Index(m, n))] = true;
    }
  }
  const auto error = aclhost::testing::Compare(got, want_.grad_input, want_.grad_input_magnitude, DtypeOf(c.type));
  EXPECT_TRUE(error.Passed()) << error.Describe("gradInput");
  size_t written_outside = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    if (!in_rows[i / aclhost::kernels::ElementSize(c.type)] && reference[i] != kUntouched) ++written_outside;
  }
  EXPECT_EQ(written_outside, 0u) << "bytes outside the rows were written";
  for (Isa isa : {Isa::kSse4, Isa::kAvx2, Isa::kAvx512}) {
    if (!aclhost::kernels::IsaAvailable(isa)) continue;
    for (int threads : {1, 3}) {
      EXPECT_EQ(Run(isa, threads), reference) << aclhost::kernels::IsaName(isa) << ", " << threads << " threads";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, StreamedRowsTest,
    // Dense rows of 4,002 and 4,004 bytes, which begin at every element offset of a line in turn
    // and go through pass 1 alone: heads of a partial block, of a whole block and a partial one.
    // Dense BF16 rows of 8,002 bytes, too long for L1, in groups whose rows lie differently: taken
    // in turn, each after its own head. FLOAT16 rows of 4,000 columns 4,032 apart, the first 3
    // elements into a line: groups whose rows lie alike (a head of 29 columns each). FLOAT rows of
    // 1,024 columns from 5 elements into a line: every row alike, a head of 11 columns. The first
    // and the third again with gradInput over gradOut (each block read before it is written).
    ::testing::Values(StreamedCase{"half_rows_alone", ElementType::kFloat16, 2200, 2001, 0, 0},
                      StreamedCase{"float_rows_alone", ElementType::kFloat32, 2100, 1001, 0, 0},
                      StreamedCase{"bf16_groups_lying_differently", ElementType::kBFloat16, 1100, 4001, 0, 0},
                      StreamedCase{"half_groups_lying_alike", ElementType::kFloat16, 1100, 4000, 3, 4032},
                      StreamedCase{"float_rows_from_within_a_line", ElementType::kFloat32, 2100, 1024, 5, 0},
                      StreamedCase{"half_rows_alone_in_place", ElementType::kFloat16, 2200, 2001, 0, 0, true},
                      StreamedCase{"bf16_groups_lying_differently_in_place", ElementType::kBFloat16, 1100, 4001, 0, 0, true}),
    [](const ::testing::TestParamInfo<StreamedCase> &info) { return std::string(info.param.name); });

}  // namespace
