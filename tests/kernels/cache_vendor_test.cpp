// The blockings and fetches the backward kernel chooses for Intel's caches, for Zen 5's and for
// others' (KernelConfig::vendor: the columns path's blocks, the cache the next rows are fetched
// into, how many rows go through pass 1 together) give the same bits, on every target and thread
// count, and values that match the double reference. A test machine runs only its own vendor's
// choices through the public API; here all three run wherever the suite does.
#include <gtest/gtest.h>

#include <cstdint>
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

using aclhost::kernels::CacheVendor;
using aclhost::kernels::ColumnLayout;
using aclhost::kernels::ElementType;
using aclhost::kernels::Isa;
using aclhost::testing::DtypeOf;

struct VendorCase {
  const char *name;
  int64_t rows, cols;
  ElementType type;
  // 0: rows dense in memory; else the operands lie as the columns of row-major matrices, batch by
  // batch of this many rows (a transposed view, NCHW memory).
  int64_t batch_rows;
};

void PrintTo(const VendorCase &c, std::ostream *os) { *os << c.name; }

class CacheVendorTest : public ::testing::TestWithParam<VendorCase> {
 protected:
  // Random operands, values exactly representable in the case's type; mean and rstd from the input.
  void SetUp() override {
    const VendorCase &c = GetParam();
    const aclDataType dtype = DtypeOf(c.type);
    std::mt19937_64 random(aclhost::testing::TestSeed());
    std::normal_distribution<double> normal;
    const size_t elements = static_cast<size_t>(c.rows * c.cols);
    grad_out_.resize(elements);
    input_.resize(elements);
    for (double &value : grad_out_) value = aclhost::testing::RoundTo(dtype, normal(random));
    for (double &value : input_) value = aclhost::testing::RoundTo(dtype, 0.5 + 2.0 * normal(random));
    weight_.resize(static_cast<size_t>(c.cols));
    for (double &value : weight_) value = static_cast<float>(1.0 + 0.25 * normal(random));
    std::vector<double> mean, rstd;
    aclhost::reference::RowStatistics(input_, c.rows, c.cols, 1e-5, &mean, &rstd);
    for (double value : mean) mean_.push_back(static_cast<float>(value));
    for (double value : rstd) rstd_.push_back(static_cast<float>(value));
    for (size_t m = 0; m < mean.size(); ++m) {
      mean[m] = mean_[m];
      rstd[m] = rstd_[m];
    }
    want_ = aclhost::reference::LayerNormBackward(grad_out_, input_, mean, rstd, weight_, c.rows, c.cols);
  }

  // Where element (m, n) lies, in elements from the operand's first.
  int64_t Index(int64_t m, int64_t n) const {
    const VendorCase &c = GetParam();
    if (c.batch_rows == 0) return m * c.cols + n;
    return m / c.batch_rows * c.batch_rows * c.cols + n * c.batch_rows + m % c.batch_rows;
  }

  std::vector<uint8_t> Lay(const std::vector<double> &values) const {
    const VendorCase &c = GetParam();
    std::vector<uint8_t> bytes(values.size() * aclhost::kernels::ElementSize(c.type));
    for (int64_t m = 0; m < c.rows; ++m) {
      for (int64_t n = 0; n < c.cols; ++n) {
        aclhost::kernels::StoreElement(bytes.data(), c.type, Index(m, n), static_cast<float>(values[static_cast<size_t>(m * c.cols + n)]));
      }
    }
    return bytes;
  }

  // The three outputs' bytes (gradInput, then gradWeight and gradBias as float32).
  std::vector<std::vector<uint8_t>> Run(CacheVendor vendor, Isa isa, int threads) const {
    const VendorCase &c = GetParam();
    const std::vector<uint8_t> grad_out = Lay(grad_out_), input = Lay(input_);
    std::vector<uint8_t> grad_input(grad_out.size());
    std::vector<float> weight(weight_.begin(), weight_.end());
    std::vector<uint8_t> grad_weight(static_cast<size_t>(c.cols) * 4), grad_bias(static_cast<size_t>(c.cols) * 4);
    aclhost::kernels::KernelConfig config;
    config.isa = isa;
    config.threads = threads;
    config.vendor = vendor;
    aclhost::kernels::LayerNormBackwardArgs args = aclhost::testing::BackwardArgs(
        c.rows, c.cols, c.type,
        {grad_out.data(), input.data(), mean_.data(), rstd_.data(), weight.data(), grad_input.data(), grad_weight.data(),
         grad_bias.data()},
        config);
    if (c.batch_rows > 0) {
      const ColumnLayout layout{c.batch_rows, c.batch_rows * c.cols, c.batch_rows};
      args.grad_out_columns = args.input_columns = args.grad_input_columns = layout;
    }
    aclhost::testing::RunBackward(args);
    return {grad_input, grad_weight, grad_bias};
  }

  // gradInput back in row order, widened.
  std::vector<double> GradInputValues(const std::vector<uint8_t> &bytes) const {
    const VendorCase &c = GetParam();
    std::vector<double> values(static_cast<size_t>(c.rows * c.cols));
    for (int64_t m = 0; m < c.rows; ++m) {
      for (int64_t n = 0; n < c.cols; ++n) {
        values[static_cast<size_t>(m * c.cols + n)] = aclhost::kernels::LoadElement(bytes.data(), c.type, Index(m, n));
      }
    }
    return values;
  }

  std::vector<double> grad_out_, input_, weight_;
  std::vector<float> mean_, rstd_;
  aclhost::reference::LayerNormBackwardResult want_;
};

const char *VendorName(CacheVendor vendor) {
  switch (vendor) {
    case CacheVendor::kIntel: return "Intel";
    case CacheVendor::kAmdZen5: return "Zen 5";
    default: return "other";
  }
}

std::vector<double> Floats(const std::vector<uint8_t> &bytes) { return aclhost::testing::Decode(ACL_FLOAT, bytes.data(), bytes.size() / 4); }

TEST_P(CacheVendorTest, SameBitsForEveryVendorTargetAndThreadCount) {
  const VendorCase &c = GetParam();
  const auto reference = Run(CacheVendor::kOther, Isa::kScalar, 1);
  using aclhost::testing::Compare;
  const auto grad_input = Compare(GradInputValues(reference[0]), want_.grad_input, want_.grad_input_magnitude, DtypeOf(c.type));
  EXPECT_TRUE(grad_input.Passed()) << grad_input.Describe("gradInput");
  const auto grad_weight = Compare(Floats(reference[1]), want_.grad_weight, want_.grad_weight_magnitude, ACL_FLOAT);
  EXPECT_TRUE(grad_weight.Passed()) << grad_weight.Describe("gradWeight");
  const auto grad_bias = Compare(Floats(reference[2]), want_.grad_bias, want_.grad_bias_magnitude, ACL_FLOAT);
  EXPECT_TRUE(grad_bias.Passed()) << grad_bias.Describe("gradBias");
  for (CacheVendor vendor : {CacheVendor::kOther, CacheVendor::kIntel, CacheVendor::kAmdZen5}) {
    for (Isa isa : {Isa::kScalar, Isa::kSse4, Isa::kAvx2, Isa::kAvx512}) {
      if (!aclhost::kernels::IsaAvailable(isa)) continue;
      for (int threads : {1, 2, 3}) {
        EXPECT_EQ(Run(vendor, isa, threads), reference)
            << VendorName(vendor) << "'s blockings, " << aclhost::kernels::IsaName(isa)
            << ", " << threads << " threads";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CacheVendorTest,
    // Dense FLOAT rows of 768 columns, whose next rows go to L1 on Zen 5 and to L2 on others (a
    // fetch hint cannot change a value: the case keeps Zen 5's path under the reference check).
    // One such row's pass 1 fits L1, so every row goes through it alone: kept for pass 2 on Intel
    // only (KeepsRowAlone), whose iterations alone fail when only the kept path is broken.
    // Rows of 2,048 FLOAT columns go through pass 1 alone on Zen 5 (40 KiB fit its L1), in groups
    // of 4 elsewhere on AVX-512 (9 rows: two groups and one row alone).
    // Rows of 4,096 columns, too long for L1, go through pass 1 in groups: of 2 on Zen 5, of 4
    // elsewhere on AVX-512 (11 rows: two groups and three rows alone, against five pairs and one).
    // Columns: 39 chunks of 64 rows in blocks of 1,024 rows for Intel, 256 for others; and batches
    // of 700 rows, which cut the runs.
    ::testing::Values(VendorCase{"float_rows_768", 300, 768, ElementType::kFloat32, 0},
                      VendorCase{"float_rows_2048", 9, 2048, ElementType::kFloat32, 0},
                      VendorCase{"bf16_long_rows", 11, 4096, ElementType::kBFloat16, 0},
                      VendorCase{"float_columns", 2500, 37, ElementType::kFloat32, 2500},
                      VendorCase{"bf16_column_batches", 2100, 45, ElementType::kBFloat16, 700}),
    [](const ::testing::TestParamInfo<VendorCase> &info) { return std::string(info.param.name); });

// 16-bit operands in columns of a call from memory (8 MiB an operand or more) go in blocks of 512
// rows on Zen 5 where each thread gets one, of 256 elsewhere but Intel: the same bits, the
// reference's values. One case, few runs: 4 million elements a run.
using ColumnBlocksFromMemoryTest = CacheVendorTest;

TEST_P(ColumnBlocksFromMemoryTest, LongerBlocksOnZen5GiveTheSameBits) {
  const VendorCase &c = GetParam();
  auto block_rows = [&](CacheVendor vendor, int threads, int64_t rows, ElementType type) {
    aclhost::kernels::KernelConfig config;
    config.threads = threads;
    config.vendor = vendor;
    return aclhost::kernels::LayerNormBackwardColumnBlockRows(config, rows, c.cols, type);
  };
  EXPECT_EQ(block_rows(CacheVendor::kAmdZen5, 3, c.rows, c.type), 512);
  EXPECT_EQ(block_rows(CacheVendor::kAmdZen5, 4, c.rows, c.type), 256) << "fewer blocks of 512 than threads";
  EXPECT_EQ(block_rows(CacheVendor::kAmdZen5, 2, c.rows / 2, c.type), 256) << "an operand of less than 8 MiB";
  EXPECT_EQ(block_rows(CacheVendor::kAmdZen5, 2, c.rows, ElementType::kFloat32), 256);
  EXPECT_EQ(block_rows(CacheVendor::kOther, 2, c.rows, c.type), 256);
  EXPECT_EQ(block_rows(CacheVendor::kIntel, 2, c.rows, c.type), 1024);

  const Isa best = aclhost::kernels::CurrentKernelConfig().isa;
  const auto reference = Run(CacheVendor::kOther, best, 1);
  const auto grad_input =
      aclhost::testing::Compare(GradInputValues(reference[0]), want_.grad_input, want_.grad_input_magnitude, DtypeOf(c.type));
  EXPECT_TRUE(grad_input.Passed()) << grad_input.Describe("gradInput");
  for (int threads : {2, 3}) {
    EXPECT_EQ(Run(CacheVendor::kAmdZen5, best, threads), reference) << "Zen 5's blocks, " << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, ColumnBlocksFromMemoryTest,
                         ::testing::Values(VendorCase{"bf16_columns_from_memory", 1600, 2640, ElementType::kBFloat16, 1600}),
                         [](const ::testing::TestParamInfo<VendorCase> &info) { return std::string(info.param.name); });

}  // namespace
