// NaNs and infinities among the backward's inputs, and rows whose rstd is 0: the outputs have the
// same bits on every target and thread count, every NaN among them the one quiet NaN of its type
// (which NaN an operation passes on differs between targets: the order of operands that
// compilers choose, the CPU's FMA or an emulated one), and rows without any keep finite values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "backward_kernel_call.h"
#include "common/float_convert.h"
#include "test_seed.h"

namespace {

using aclhost::kernels::ColumnLayout;
using aclhost::kernels::ElementType;
using aclhost::kernels::Isa;

struct NonFiniteCase {
  const char *name;
  int64_t rows, cols;
  ElementType type;
  bool columns;  // the operands as the columns of row-major matrices (a transposed view), else dense rows
};

void PrintTo(const NonFiniteCase &c, std::ostream *os) { *os << c.name; }

// NaNs of both signs and several payloads, infinities of both signs.
float Special(int which) {
  static const uint32_t kBits[] = {0x7FC00000u, 0xFFC00000u, 0x7FC12345u, 0xFF800001u, 0x7FBFFFFFu, 0x7F800000u, 0xFF800000u};
  return aclhost::FloatFromBits(kBits[which % 7]);
}

class NonFiniteTest : public ::testing::TestWithParam<NonFiniteCase> {
 protected:
  void SetUp() override {
    const NonFiniteCase &c = GetParam();
    const uint64_t seed = aclhost::testing::TestSeed();
    std::mt19937_64 random(seed);
    std::normal_distribution<float> normal;
    const size_t elements = static_cast<size_t>(c.rows * c.cols);
    grad_out_.resize(elements);
    input_.resize(elements);
    for (float &value : grad_out_) value = normal(random);
    for (float &value : input_) value = 0.5f + normal(random);
    weight_.resize(static_cast<size_t>(c.cols));
    for (float &value : weight_) value = 1.0f + 0.25f * normal(random);
    mean_.assign(static_cast<size_t>(c.rows), 0.5f);
    rstd_.assign(static_cast<size_t>(c.rows), 1.0f);
    // Every third row gets a NaN or infinity in gradOut or input, or (every 21st) rstd 0, beside
    // large values whose products overflow; the other rows stay finite.
    std::uniform_int_distribution<int64_t> column(0, c.cols - 1);
    for (int64_t m = 0; m < c.rows; m += 3) {
      const size_t at = static_cast<size_t>(m * c.cols + column(random));
      const int which = static_cast<int>(m / 3);
      if (m % 21 == 0) {
        rstd_[static_cast<size_t>(m)] = 0.0f;
        grad_out_[at] = 3e38f;
        input_[at] = -3e38f;
      } else if (which % 2 == 0) {
        grad_out_[at] = Special(which);
      } else {
        input_[at] = Special(which);
      }
      special_row_.push_back(m);
    }
    weight_[static_cast<size_t>(c.cols / 2)] = 0.0f;  // 0 * inf in every row that meets an infinity there
  }

  // Element (m, n)'s index in an operand.
  int64_t Index(int64_t m, int64_t n) const {
    const NonFiniteCase &c = GetParam();
    return c.columns ? n * c.rows + m : m * c.cols + n;
  }

  std::vector<uint8_t> Lay(const std::vector<float> &values) const {
    const NonFiniteCase &c = GetParam();
    std::vector<uint8_t> bytes(values.size() * aclhost::kernels::ElementSize(c.type));
    for (int64_t m = 0; m < c.rows; ++m) {
      for (int64_t n = 0; n < c.cols; ++n) {
        aclhost::kernels::StoreElement(bytes.data(), c.type, Index(m, n), values[static_cast<size_t>(m * c.cols + n)]);
      }
    }
    return bytes;
  }

  // gradInput's bytes, then gradWeight's and gradBias' (float32).
  std::vector<std::vector<uint8_t>> Run(Isa isa, int threads) const {
    const NonFiniteCase &c = GetParam();
    const std::vector<uint8_t> grad_out = Lay(grad_out_), input = Lay(input_);
    std::vector<uint8_t> grad_input(grad_out.size(), 0xA5);
    std::vector<uint8_t> grad_weight(static_cast<size_t>(c.cols) * 4), grad_bias(static_cast<size_t>(c.cols) * 4);
    aclhost::kernels::KernelConfig config;
    config.isa = isa;
    config.threads = threads;
    config.vendor = aclhost::kernels::CurrentKernelConfig().vendor;
    aclhost::kernels::LayerNormBackwardArgs args = aclhost::testing::BackwardArgs(
        c.rows, c.cols, c.type,
        {grad_out.data(), input.data(), mean_.data(), rstd_.data(), weight_.data(), grad_input.data(), grad_weight.data(),
         grad_bias.data()},
        config);
    if (c.columns) {
      const ColumnLayout layout{c.rows, c.rows * c.cols, c.rows};
      args.grad_out_columns = args.input_columns = args.grad_input_columns = layout;
    }
    aclhost::testing::RunBackward(args);
    return {grad_input, grad_weight, grad_bias};
  }

  std::vector<float> grad_out_, input_, weight_, mean_, rstd_;
  std::vector<int64_t> special_row_;
};

TEST_P(NonFiniteTest, OneNaNAndTheSameBitsOnEveryTargetAndThreadCount) {
  const NonFiniteCase &c = GetParam();
  const auto reference = Run(Isa::kScalar, 1);
  // Every NaN the canonical one; rows without a special value finite.
  const uint32_t canonical = c.type == ElementType::kFloat32 ? 0x7FC00000u : c.type == ElementType::kBFloat16 ? 0x7FC0u : 0x7E00u;
  int64_t nans = 0;
  std::vector<bool> special(static_cast<size_t>(c.rows), false);
  for (int64_t m : special_row_) special[static_cast<size_t>(m)] = true;
  for (int64_t m = 0; m < c.rows; ++m) {
    for (int64_t n = 0; n < c.cols; ++n) {
      const double value = aclhost::kernels::LoadElement(reference[0].data(), c.type, Index(m, n));
      if (std::isnan(value)) {
        ++nans;
        uint32_t bits = 0;
        const size_t size = aclhost::kernels::ElementSize(c.type);
        std::memcpy(&bits, reference[0].data() + static_cast<size_t>(Index(m, n)) * size, size);
        ASSERT_EQ(bits, canonical) << "gradInput (" << m << ", " << n << ")";
      }
      if (!special[static_cast<size_t>(m)]) {
        ASSERT_TRUE(std::isfinite(value)) << "gradInput (" << m << ", " << n << ")";
      }
    }
  }
  EXPECT_GT(nans, c.cols) << "whole rows of NaN expected";
  for (size_t output = 1; output < 3; ++output) {
    const float *sums = reinterpret_cast<const float *>(reference[output].data());
    for (int64_t n = 0; n < c.cols; ++n) {
      if (std::isnan(sums[n])) {
        ASSERT_EQ(aclhost::FloatBits(sums[n]), 0x7FC00000u) << "column sums " << output << ", " << n;
      }
    }
  }
  for (Isa isa : {Isa::kScalar, Isa::kSse4, Isa::kAvx2, Isa::kAvx512}) {
    if (!aclhost::kernels::IsaAvailable(isa)) continue;
    for (int threads : {1, 2, 3}) {
      EXPECT_EQ(Run(isa, threads), reference) << aclhost::kernels::IsaName(isa) << ", " << threads << " threads";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, NonFiniteTest,
    // Dense rows one at a time and in groups (short rows of a call in cache), 16-bit rows kept
    // for pass 2, rows of several segments (pass 2 segment by segment; the FLOAT ones shared
    // among threads from 2 threads on), and rows in columns (pass 2 column by column).
    ::testing::Values(NonFiniteCase{"float_rows", 300, 768, ElementType::kFloat32, false},
                      NonFiniteCase{"float_short_rows", 200, 100, ElementType::kFloat32, false},
                      NonFiniteCase{"bf16_rows", 150, 700, ElementType::kBFloat16, false},
                      NonFiniteCase{"half_rows", 130, 300, ElementType::kFloat16, false},
                      NonFiniteCase{"float_shared_long_rows", 12, 70000, ElementType::kFloat32, false},
                      NonFiniteCase{"bf16_long_rows", 70, 20000, ElementType::kBFloat16, false},
                      NonFiniteCase{"float_columns", 600, 40, ElementType::kFloat32, true},
                      NonFiniteCase{"bf16_columns", 700, 33, ElementType::kBFloat16, true}),
    [](const ::testing::TestParamInfo<NonFiniteCase> &info) { return std::string(info.param.name); });

}  // namespace
