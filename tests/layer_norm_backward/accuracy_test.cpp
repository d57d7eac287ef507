// Results against the long-double reference: random shapes of every rank and every count of
// normalised dims, odd sizes, every accepted dtype combination, non-contiguous views of every
// tensor, empty tensors, every mask, weight NULL, and bitwise determinism.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "aclnn/opdev/op_errno.h"
#include "device_tensor.h"
#include "dtype_codec.h"
#include "layer_norm_backward_reference.h"
#include "tolerance.h"

namespace lnb_test {
namespace {

constexpr aclDataType kNoWeight = ACL_DT_UNDEFINED;
constexpr aclDataType kFloatTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

// Bit flags: which tensors get a scattered (non-contiguous) view.
enum ScatterFlag : unsigned {
  kScatterGradOut = 1u << 0,
  kScatterInput = 1u << 1,
  kScatterMean = 1u << 2,
  kScatterRstd = 1u << 3,
  kScatterWeight = 1u << 4,
  kScatterGradInput = 1u << 5,
  kScatterGradWeight = 1u << 6,
  kScatterGradBias = 1u << 7,
  kScatterAll = 0xFFu,
};

struct AccuracyCase {
  std::vector<int64_t> dims;
  size_t norm_dims = 1;
  aclDataType data = ACL_FLOAT;
  aclDataType mean = ACL_FLOAT;
  aclDataType rstd = ACL_FLOAT;
  aclDataType weight = ACL_FLOAT;  // kNoWeight: weightOptional NULL
  aclDataType grad_input = ACL_FLOAT;
  aclDataType grad_weight = ACL_FLOAT;
  aclDataType grad_bias = ACL_FLOAT;
  bool mask[3] = {true, true, true};
  unsigned scatter = 0;

  std::string Describe() const {
    std::string text = "dims [";
    for (size_t d = 0; d < dims.size(); ++d) text += (d ? "," : "") + std::to_string(dims[d]);
    text += "] norm_dims " + std::to_string(norm_dims) + " dtypes(x,mean,rstd,w,gi,gw,gb) " + std::to_string(data) + "," +
            std::to_string(mean) + "," + std::to_string(rstd) + "," + std::to_string(weight) + "," +
            std::to_string(grad_input) + "," + std::to_string(grad_weight) + "," + std::to_string(grad_bias) + " mask " +
            std::to_string(mask[0]) + std::to_string(mask[1]) + std::to_string(mask[2]) + " scatter " +
            std::to_string(scatter);
    return text;
  }
};

// Both phases on stream, then synchronisation; every step must succeed. Returns the workspace size.
uint64_t RunBackward(DeviceTensor &grad_out, DeviceTensor &input, const std::vector<int64_t> &normalized, DeviceTensor &mean,
                 DeviceTensor &rstd, DeviceTensor *weight, const bool (&mask_values)[3], DeviceTensor *grad_input,
                 DeviceTensor *grad_weight, DeviceTensor *grad_bias, aclrtStream stream) {
  aclIntArray *norm = aclCreateIntArray(normalized.data(), normalized.size());
  aclBoolArray *mask = aclCreateBoolArray(mask_values, 3);
  auto handle = [](DeviceTensor *tensor) { return tensor ? tensor->get() : nullptr; };
  uint64_t workspace_size = 0;
  aclOpExecutor *executor = nullptr;
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(grad_out.get(), input.get(), norm, mean.get(), rstd.get(), handle(weight),
                                                   nullptr, mask, handle(grad_input), handle(grad_weight),
                                                   handle(grad_bias), &workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  void *workspace = nullptr;
  if (workspace_size > 0) {
    EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  EXPECT_EQ(aclnnLayerNormBackward(workspace, workspace_size, executor, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  aclDestroyIntArray(norm);
  aclDestroyBoolArray(mask);
  return workspace_size;
}

// Runs one case end to end and checks every output; returns the outputs' storage bytes.
std::vector<std::vector<uint8_t>> RunCase(const AccuracyCase &c, uint64_t seed, aclrtStream stream) {
  SCOPED_TRACE(c.Describe() + " seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  const size_t begin = c.dims.size() - c.norm_dims;
  int64_t rows = 1, cols = 1;
  for (size_t d = 0; d < c.dims.size(); ++d) (d < begin ? rows : cols) *= c.dims[d];
  const std::vector<int64_t> normalized(c.dims.begin() + static_cast<std::ptrdiff_t>(begin), c.dims.end());
  std::vector<int64_t> stats_dims(c.dims.begin(), c.dims.begin() + static_cast<std::ptrdiff_t>(begin));
  stats_dims.resize(c.dims.size(), 1);

  auto make = [&](const std::vector<int64_t> &dims, aclDataType dtype, unsigned flag) {
    return std::make_unique<DeviceTensor>(dims, dtype, (c.scatter & flag) ? ScatteredLayout(dims, random) : DenseLayout(dims));
  };
  auto grad_out = make(c.dims, c.data, kScatterGradOut);
  auto input = make(c.dims, c.data, kScatterInput);
  auto mean = make(stats_dims, c.mean, kScatterMean);
  auto rstd = make(stats_dims, c.rstd, kScatterRstd);
  std::unique_ptr<DeviceTensor> weight;
  if (c.weight != kNoWeight) weight = make(normalized, c.weight, kScatterWeight);
  auto grad_input = make(c.dims, c.grad_input, kScatterGradInput);
  auto grad_weight = make(normalized, c.grad_weight, kScatterGradWeight);
  auto grad_bias = make(normalized, c.grad_bias, kScatterGradBias);

  // Rows with their own offset and spread; statistics from the (rounded) input, as a forward would.
  std::vector<double> x(static_cast<size_t>(rows * cols));
  for (int64_t m = 0; m < rows; ++m) {
    const std::vector<double> row = RandomValues(static_cast<size_t>(cols), random, 0.5 + (m % 4) * 0.5, (m % 7) - 3.0);
    for (int64_t n = 0; n < cols; ++n) x[static_cast<size_t>(m * cols + n)] = row[static_cast<size_t>(n)];
  }
  input->Write(x);
  grad_out->Write(RandomValues(x.size(), random));
  if (weight) weight->Write(RandomValues(static_cast<size_t>(cols), random, 0.25, 1.0));
  std::vector<double> row_mean, row_rstd;
  aclhost::reference::RowStatistics(input->Read(), rows, cols, 1e-5, &row_mean, &row_rstd);
  if (rows > 0 && cols > 0) {
    mean->Write(row_mean);
    rstd->Write(row_rstd);
  }

  DeviceTensor *outputs[3] = {grad_input.get(), grad_weight.get(), grad_bias.get()};
  std::vector<uint8_t> before[3];
  for (int k = 0; k < 3; ++k) before[k] = outputs[k]->StorageBytes();
  RunBackward(*grad_out, *input, normalized, *mean, *rstd, weight.get(), c.mask, grad_input.get(), grad_weight.get(),
              grad_bias.get(), stream);

  const aclhost::reference::LayerNormBackwardResult want = aclhost::reference::LayerNormBackward(
      grad_out->Read(), input->Read(), mean->Read(), rstd->Read(), weight ? weight->Read() : std::vector<double>{}, rows, cols);
  const std::vector<double> *expected[3] = {&want.grad_input, &want.grad_weight, &want.grad_bias};
  const std::vector<double> *magnitudes[3] = {&want.grad_input_magnitude, &want.grad_weight_magnitude,
                                              &want.grad_bias_magnitude};
  // gradInput is rounded to input's dtype and then to its own; the others once.
  const aclDataType rounded_first[3] = {c.data, c.grad_weight, c.grad_bias};
  const char *names[3] = {"gradInput", "gradWeight", "gradBias"};
  std::vector<std::vector<uint8_t>> bytes;
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE(names[k]);
    if (!c.mask[k]) {
      EXPECT_EQ(outputs[k]->StorageBytes(), before[k]) << "a masked-off output was written";
    } else {
      EXPECT_TRUE(outputs[k]->OutsideViewUnchanged(before[k])) << "bytes outside the view were written";
      const aclhost::testing::ErrorSummary error = aclhost::testing::CompareThrough(
          outputs[k]->Read(), *expected[k], *magnitudes[k], rounded_first[k], outputs[k]->dtype());
      EXPECT_TRUE(error.Passed()) << "worst " << error.worst_ratio << " of tolerance at " << error.worst_index
                                  << ", max abs error " << error.max_abs_error;
    }
    bytes.push_back(outputs[k]->StorageBytes());
  }
  return bytes;
}

class AccuracyTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS); }
  void TearDown() override { EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS); }
  std::vector<std::vector<uint8_t>> Run(const AccuracyCase &c) { return RunCase(c, TestSeed() + counter_++, stream_); }

  aclrtStream stream_ = nullptr;
  uint64_t counter_ = 0;
};

TEST_F(AccuracyTest, WorkedExampleFromTheSpec) {
  DeviceTensor grad_out({2, 2}, ACL_FLOAT), input({2, 2}, ACL_FLOAT), mean({2, 1}, ACL_FLOAT), rstd({2, 1}, ACL_FLOAT);
  DeviceTensor weight({2}, ACL_FLOAT), grad_input({2, 2}, ACL_FLOAT), grad_weight({2}, ACL_FLOAT), grad_bias({2}, ACL_FLOAT);
  grad_out.Write({2, 3, 4, 5});
  input.Write({2, 3, 4, 5});
  mean.Write({2, 3});
  rstd.Write({4, 5});
  weight.Write({1, 1});
  const bool mask[] = {true, true, true};
  RunBackward(grad_out, input, {2}, mean, rstd, &weight, mask, &grad_input, &grad_weight, &grad_bias, stream_);
  EXPECT_EQ(grad_input.Read(), (std::vector<double>{-2, -94, -877.5, -1747.5}));
  EXPECT_EQ(grad_weight.Read(), (std::vector<double>{20, 62}));
  EXPECT_EQ(grad_bias.Read(), (std::vector<double>{6, 8}));
}

// Ranks 1 to 8 with every possible count of normalised dims, dense and fully scattered.
TEST_F(AccuracyTest, RandomShapesOfEveryRankAndNormalizedDimCount) {
  std::mt19937_64 shapes(TestSeed());
  for (size_t rank = 1; rank <= 8; ++rank) {
    for (size_t norm_dims = 1; norm_dims <= rank; ++norm_dims) {
      for (const unsigned scatter : {0u, static_cast<unsigned>(kScatterAll)}) {
        AccuracyCase c;
        // Dims of 1-5 keep every case small (at most 5^8 would be too many: cap the product).
        int64_t elements = 1;
        for (size_t d = 0; d < rank; ++d) {
          const int64_t dim = elements > 2000 ? 1 : 1 + static_cast<int64_t>(shapes() % 5);
          c.dims.push_back(dim);
          elements *= dim;
        }
        c.norm_dims = norm_dims;
        c.scatter = scatter;
        Run(c);
      }
    }
  }
}

TEST_F(AccuracyTest, OddSizes) {
  const std::vector<std::pair<std::vector<int64_t>, size_t>> shapes = {
      {{1}, 1},       {{3}, 1},       {{1000}, 1},    {{4099}, 1},   {{1, 1}, 1},    {{3, 1000}, 1},
      {{1000, 3}, 1}, {{2, 4099}, 1}, {{4099, 1}, 1}, {{3, 1, 7}, 2}, {{5, 3, 1000}, 2}, {{1, 1, 4099}, 3}};
  for (const auto &shape : shapes) {
    for (const aclDataType dtype : kFloatTypes) {
      AccuracyCase c;
      c.dims = shape.first;
      c.norm_dims = shape.second;
      c.data = c.weight = c.grad_input = c.grad_weight = c.grad_bias = dtype;
      Run(c);
    }
  }
}

// Every dtype combination the checks accept, each output in its own dtype.
TEST_F(AccuracyTest, EveryAcceptedDtypeCombination) {
  for (const aclDataType data : kFloatTypes) {
    for (const aclDataType mean : kFloatTypes) {
      for (const aclDataType rstd : kFloatTypes) {
        std::vector<aclDataType> weights{kNoWeight, ACL_FLOAT};
        if (data != ACL_FLOAT) weights.push_back(data);
        for (const aclDataType weight : weights) {
          for (const aclDataType grad_input : kFloatTypes) {
            for (const aclDataType grad_weight : kFloatTypes) {
              for (const aclDataType grad_bias : kFloatTypes) {
                AccuracyCase c;
                c.dims = std::vector<int64_t>{3, 2, 17};
                c.norm_dims = 2;
                c.data = data;
                c.mean = mean;
                c.rstd = rstd;
                c.weight = weight;
                c.grad_input = grad_input;
                c.grad_weight = grad_weight;
                c.grad_bias = grad_bias;
                Run(c);
                if (HasFailure()) return;  // one report is enough
              }
            }
          }
        }
      }
    }
  }
}

TEST_F(AccuracyTest, NonContiguousViewOfEachTensor) {
  const unsigned flags[] = {kScatterGradOut, kScatterInput,      kScatterMean,       kScatterRstd,
                            kScatterWeight,  kScatterGradInput, kScatterGradWeight, kScatterGradBias, kScatterAll};
  for (const unsigned flag : flags) {
    for (const aclDataType dtype : kFloatTypes) {
      AccuracyCase c;
      c.dims = std::vector<int64_t>{4, 3, 33};
      c.norm_dims = 1;
      c.data = c.weight = c.grad_input = c.grad_weight = c.grad_bias = dtype;
      c.scatter = flag;
      Run(c);
    }
  }
}

TEST_F(AccuracyTest, TransposedInputAndOutput) {
  // input stored as its transpose: view [5, 64] with strides [1, 5] over a [64, 5] buffer.
  DeviceTensor grad_out({5, 64}, ACL_FLOAT, Layout{{1, 5}, 0, 320});
  DeviceTensor input({5, 64}, ACL_FLOAT, Layout{{1, 5}, 0, 320});
  DeviceTensor grad_input({5, 64}, ACL_FLOAT, Layout{{1, 5}, 0, 320});
  DeviceTensor mean({5, 1}, ACL_FLOAT), rstd({5, 1}, ACL_FLOAT);
  std::mt19937_64 random(TestSeed());
  input.Write(RandomValues(320, random, 2.0, 1.0));
  grad_out.Write(RandomValues(320, random));
  std::vector<double> row_mean, row_rstd;
  aclhost::reference::RowStatistics(input.Read(), 5, 64, 1e-5, &row_mean, &row_rstd);
  mean.Write(row_mean);
  rstd.Write(row_rstd);
  const bool mask[] = {true, false, false};
  // The transposed operands are staged through the workspace.
  EXPECT_GT(RunBackward(grad_out, input, {64}, mean, rstd, nullptr, mask, &grad_input, nullptr, nullptr, stream_), 0u);
  const auto want = aclhost::reference::LayerNormBackward(grad_out.Read(), input.Read(), mean.Read(), rstd.Read(), {}, 5, 64);
  EXPECT_TRUE(aclhost::testing::Compare(grad_input.Read(), want.grad_input, want.grad_input_magnitude, ACL_FLOAT).Passed());
}

// Seeded random operands of a rows x cols call (input scale * normal + shift, gradOut normal,
// weight around 1) and input's row statistics.
struct RandomCallValues {
  RandomCallValues(int64_t rows, int64_t cols, double input_scale, double input_shift) {
    std::mt19937_64 random(TestSeed());
    x = RandomValues(rows * cols, random, input_scale, input_shift);
    dy = RandomValues(rows * cols, random);
    w = RandomValues(cols, random, 0.25, 1.0);
    aclhost::reference::RowStatistics(x, rows, cols, 1e-5, &row_mean, &row_rstd);
  }
  std::vector<double> x, dy, w, row_mean, row_rstd;
};

TEST_F(AccuracyTest, TransposedOperandsWithEveryMaskWithAndWithoutWeight) {
  // Rows read in their columns' order (all three row operands transposed alike) with and without
  // weight, gradInput or the column sums: every output that is asked for against the reference.
  constexpr int64_t kRows = 150, kCols = 70;
  const RandomCallValues values(kRows, kCols, 2.0, 1.0);
  const std::vector<double> &x = values.x, &dy = values.dy, &w = values.w, &row_mean = values.row_mean, &row_rstd = values.row_rstd;
  const Layout transposed{{1, kRows}, 0, kRows * kCols};
  for (const bool with_weight : {false, true}) {
    for (int bits = 1; bits < 8; ++bits) {
      SCOPED_TRACE(std::string(with_weight ? "weight, " : "no weight, ") + "mask " + std::to_string(bits));
      const bool mask[] = {(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
      DeviceTensor grad_out({kRows, kCols}, ACL_FLOAT, transposed), input({kRows, kCols}, ACL_FLOAT, transposed);
      DeviceTensor grad_input({kRows, kCols}, ACL_FLOAT, transposed);
      DeviceTensor mean({kRows, 1}, ACL_FLOAT), rstd({kRows, 1}, ACL_FLOAT), weight({kCols}, ACL_FLOAT);
      DeviceTensor grad_weight({kCols}, ACL_FLOAT), grad_bias({kCols}, ACL_FLOAT);
      grad_out.Write(dy);
      input.Write(x);
      mean.Write(row_mean);
      rstd.Write(row_rstd);
      weight.Write(w);
      RunBackward(grad_out, input, {kCols}, mean, rstd, with_weight ? &weight : nullptr, mask, mask[0] ? &grad_input : nullptr,
                  mask[1] ? &grad_weight : nullptr, mask[2] ? &grad_bias : nullptr, stream_);
      const auto want = aclhost::reference::LayerNormBackward(dy, x, row_mean, row_rstd, with_weight ? w : std::vector<double>{},
                                                              kRows, kCols);
      if (mask[0]) {
        EXPECT_TRUE(aclhost::testing::Compare(grad_input.Read(), want.grad_input, want.grad_input_magnitude, ACL_FLOAT).Passed());
      }
      if (mask[1]) {
        EXPECT_TRUE(aclhost::testing::Compare(grad_weight.Read(), want.grad_weight, want.grad_weight_magnitude, ACL_FLOAT).Passed());
      }
      if (mask[2]) {
        EXPECT_TRUE(aclhost::testing::Compare(grad_bias.Read(), want.grad_bias, want.grad_bias_magnitude, ACL_FLOAT).Passed());
      }
    }
  }
}

// How ExpectStridedBitsEqualDense lays out gradOut, input and gradInput in its second call:
// padded rows, read and written in place; the rows as a transpose's columns, whole or in batches
// (channel-major blocks), moved through tiles by transpositions; dims reversed (no matrix),
// moved through tiles element by element; [B, S, H] over sequence-first [S, B, H] memory,
// read and written in place batch by batch; a token's heads, read and written in place in short
// runs.
enum class StridedRows { kPadded, kTransposed, kChannelMajor, kReversed, kSequenceFirst, kHeads };

// gradOut's, input's and gradInput's layouts in the strided call.
struct StridedOperands {
  StridedRows grad_out, input, grad_input;
};

// Runs operands of `dims` (normalized over the last) and dtype dense, then strided as `strided`
// says, the same values in: both within tolerance of the reference, and the same bits out.
void ExpectStridedBitsEqualDense(const std::vector<int64_t> &dims, StridedOperands strided, aclrtStream stream_,
                                 aclDataType dtype = ACL_BF16) {
  const int64_t cols = dims.back();
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < dims.size(); ++d) rows *= dims[d];
  std::vector<int64_t> stats = dims;
  stats.back() = 1;
  const std::vector<int64_t> normalized{cols};
  const RandomCallValues values(rows, cols, 1.0, 2.0);
  const std::vector<double> &x = values.x, &dy = values.dy, &w = values.w, &row_mean = values.row_mean, &row_rstd = values.row_rstd;
  static const char *const kNames[] = {"padded rows", "transposed rows", "channel-major blocks", "reversed dims",
                                       "sequence-first memory", "a token's heads"};
  std::vector<std::vector<double>> results[2];
  for (const bool strided_call : {false, true}) {
    SCOPED_TRACE(strided_call ? std::string("strided: gradOut ") + kNames[static_cast<int>(strided.grad_out)] + ", input " +
                                    kNames[static_cast<int>(strided.input)] + ", gradInput " +
                                    kNames[static_cast<int>(strided.grad_input)]
                              : std::string("dense"));
    // Odd pads and offsets: rows that start anywhere within a cache line.
    auto layout = [&](StridedRows rows_layout, int64_t pad, int64_t offset) {
      if (!strided_call) return DenseLayout(dims);
      switch (rows_layout) {
        case StridedRows::kPadded: return PaddedRowsLayout(dims, pad, offset);
        case StridedRows::kTransposed: return TransposedRowsLayout(dims);
        case StridedRows::kChannelMajor: return ChannelMajorLayout(dims);
        case StridedRows::kSequenceFirst: return SequenceFirstLayout(dims);
        case StridedRows::kHeads: return FusedQueriesLayout(dims);
        case StridedRows::kReversed: break;
      }
      return ReversedLayout(dims);
    };
    DeviceTensor grad_out(dims, dtype, layout(strided.grad_out, 3, 1));
    DeviceTensor input(dims, dtype, layout(strided.input, 40, 0));
    DeviceTensor grad_input(dims, dtype, layout(strided.grad_input, 1, 5));
    DeviceTensor mean(stats, ACL_FLOAT), rstd(stats, ACL_FLOAT), weight(normalized, dtype);
    DeviceTensor grad_weight(normalized, ACL_FLOAT), grad_bias(normalized, ACL_FLOAT);
    grad_out.Write(dy);
    input.Write(x);
    mean.Write(row_mean);
    rstd.Write(row_rstd);
    weight.Write(w);
    const std::vector<uint8_t> grad_input_before = grad_input.StorageBytes();
    const bool mask[] = {true, true, true};
    RunBackward(grad_out, input, normalized, mean, rstd, &weight, mask, &grad_input, &grad_weight, &grad_bias, stream_);
    EXPECT_TRUE(grad_input.OutsideViewUnchanged(grad_input_before)) << "gradInput written outside its view";
    const auto want = aclhost::reference::LayerNormBackward(grad_out.Read(), input.Read(), mean.Read(), rstd.Read(),
                                                            weight.Read(), rows, cols);
    EXPECT_TRUE(aclhost::testing::CompareThrough(grad_input.Read(), want.grad_input, want.grad_input_magnitude, dtype,
                                                 dtype).Passed());
    EXPECT_TRUE(aclhost::testing::Compare(grad_weight.Read(), want.grad_weight, want.grad_weight_magnitude, ACL_FLOAT).Passed());
    EXPECT_TRUE(aclhost::testing::Compare(grad_bias.Read(), want.grad_bias, want.grad_bias_magnitude, ACL_FLOAT).Passed());
    results[strided_call] = {grad_input.Read(), grad_weight.Read(), grad_bias.Read()};
  }
  EXPECT_TRUE(results[0] == results[1]) << "the strided call's outputs differ from the dense call's";
}

// The same with all three operands laid out alike.
void ExpectStridedBitsEqualDense(const std::vector<int64_t> &dims, StridedRows strided_rows, aclrtStream stream_,
                                 aclDataType dtype = ACL_BF16) {
  ExpectStridedBitsEqualDense(dims, StridedOperands{strided_rows, strided_rows, strided_rows}, stream_, dtype);
}

TEST_F(AccuracyTest, LongRowsSharedAmongThreadsGiveTheSameBitsAsWholeRows) {
  // Three rows of 70,001 columns: dense or padded, their segments are shared among threads;
  // transposed, whole rows are staged and run by one thread each.
  ExpectStridedBitsEqualDense({3, 70001}, StridedRows::kPadded, stream_);
  ExpectStridedBitsEqualDense({3, 70001}, StridedRows::kTransposed, stream_);
}

TEST_F(AccuracyTest, RowGroupsGiveTheSameBitsWhereverTheyStart) {
  // 203 rows too long for L1 go through pass 1 in groups: dense, padded or transposed, groups
  // start at each chunk's first row (64-row chunks, the last of 11 rows; a transposition's tiles
  // are 32 rows, which channel-major blocks of 29 rows cut into runs); reversed, at each 63-row
  // tile's. Ragged last blocks.
  for (const StridedRows strided_rows :
       {StridedRows::kPadded, StridedRows::kTransposed, StridedRows::kChannelMajor, StridedRows::kReversed}) {
    ExpectStridedBitsEqualDense({7, 29, 2051}, strided_rows, stream_);
  }
}

TEST_F(AccuracyTest, RowsInColumnsGiveTheBitsOfDenseRowsOnEveryIsaAndThreadCount) {
  // All three operands transposed, whole or channel-major: read and written in their columns'
  // order, in blocks of 4 chunks of 64 rows cut at batch ends (200-row batches), by 1 to 8
  // threads on every target; ragged last blocks of columns (37, 100, 40) and of rows (1200 = 4
  // blocks and 176 rows). 16-bit columns whose byte strides are multiples of 1 KiB (1,024 rows)
  // take AVX-512's pass 1 in pairs of squares, those of 600 rows in single squares; FLOAT squares
  // (1,200 rows) load their lines in halves there. FLOAT channel-major blocks of 200 rows: the run
  // from row 600 meets the chunk end at 640 within a square.
  for (const char *isa : {"scalar", "sse4", "avx2", "avx512"}) {
    for (const int threads : {1, 2, 3, 8}) {
      SCOPED_TRACE(std::string("ACLNN_HOST_ISA=") + isa + " ACLNN_HOST_NUM_THREADS=" + std::to_string(threads));
      setenv("ACLNN_HOST_ISA", isa, 1);
      setenv("ACLNN_HOST_NUM_THREADS", std::to_string(threads).c_str(), 1);
      ExpectStridedBitsEqualDense({6, 200, 37}, StridedRows::kChannelMajor, stream_, ACL_FLOAT16);
      ExpectStridedBitsEqualDense({6, 200, 37}, StridedRows::kChannelMajor, stream_, ACL_FLOAT);
      ExpectStridedBitsEqualDense({1200, 100}, StridedRows::kTransposed, stream_, ACL_FLOAT);
      ExpectStridedBitsEqualDense({600, 48}, StridedRows::kTransposed, stream_, ACL_BF16);
      ExpectStridedBitsEqualDense({1024, 40}, StridedRows::kTransposed, stream_, ACL_FLOAT16);
    }
  }
  unsetenv("ACLNN_HOST_ISA");
  unsetenv("ACLNN_HOST_NUM_THREADS");
  // Pairs of squares (a 33 KiB stride) in chunks of 66 rows, blocks of 198, whose second piece of
  // 70 rows ends in 6 rows that neither a pair nor a square covers.
  ExpectStridedBitsEqualDense({16896, 40}, StridedRows::kTransposed, stream_, ACL_BF16);
  // Over 8 MiB of BF16 gradInput, streamed a line (two blocks of a column's rows) at a time.
  ExpectStridedBitsEqualDense({4608, 1024}, StridedRows::kTransposed, stream_, ACL_BF16);
  // Chunks of 1,055 rows (270,001 rows), each taken in two runs (at most 1,024 rows): the second
  // adds to the partials the first left.
  ExpectStridedBitsEqualDense({270001, 3}, StridedRows::kTransposed, stream_, ACL_FLOAT);
  // Over 8 MiB of gradInput, streamed, in chunks of 100 rows: runs of 200 (1,000 on Intel) rows,
  // every second one starting half a line into each column, whose first 8 rows take ordinary
  // stores so that the rest streams from a line's start. Columns 100 KiB apart: AVX-512 copies
  // each piece's runs into the tiles and takes FLOAT half squares from there (the last piece of a
  // run, 8 rows, through the tiles' transposition). Blocks of 144,000 bytes of gradOut and input
  // (720,000 on Intel): pass 2 fetches the next block's first run (a fetch changes no bit; run
  // here for the sanitizers).
  ExpectStridedBitsEqualDense({25600, 90}, StridedRows::kTransposed, stream_, ACL_FLOAT);
  // Runs shorter than a piece of pass 1 (6 rows; tiles sized for them) with a ragged last block of
  // columns, whose tiles' padding is zeroed: nothing written past the tiles (the BF16 weight's
  // float32 copy lies behind them).
  ExpectStridedBitsEqualDense({6, 50}, StridedRows::kTransposed, stream_, ACL_BF16);
  ExpectStridedBitsEqualDense({6, 50}, StridedRows::kTransposed, stream_, ACL_FLOAT);
}

TEST_F(AccuracyTest, SequenceFirstRowsGiveTheBitsOfDenseRows) {
  // [B, S, H] over [S, B, H] memory: B batches of S rows, read and written in place in runs within
  // a batch, which cut 64-row chunks and 4-row groups (S = 50, 29, 37): rows grouped from cache
  // (H = 100, 64 in FLOAT), long rows grouped (2051), in all three dtypes; FLOAT rows of 4,000
  // bytes taken alone, which on Zen 5 fetch the row two after theirs (lnb::RowsAloneFetchAhead)
  // up to each run's end. Mixed with operands moved through tiles, whose tiles the in-place
  // operands' batch ends then cut too.
  ExpectStridedBitsEqualDense({3, 50, 100}, StridedRows::kSequenceFirst, stream_);
  ExpectStridedBitsEqualDense({3, 50, 100}, StridedRows::kSequenceFirst, stream_, ACL_FLOAT16);
  ExpectStridedBitsEqualDense({5, 37, 64}, StridedRows::kSequenceFirst, stream_, ACL_FLOAT);
  ExpectStridedBitsEqualDense({7, 29, 2051}, StridedRows::kSequenceFirst, stream_);
  ExpectStridedBitsEqualDense({3, 29, 1000}, StridedRows::kSequenceFirst, stream_, ACL_FLOAT);
  ExpectStridedBitsEqualDense({7, 29, 2051}, {StridedRows::kTransposed, StridedRows::kSequenceFirst, StridedRows::kReversed},
                              stream_);
  ExpectStridedBitsEqualDense({5, 37, 64}, {StridedRows::kPadded, StridedRows::kPadded, StridedRows::kSequenceFirst}, stream_,
                              ACL_FLOAT);
  ExpectStridedBitsEqualDense({5, 37, 64}, {StridedRows::kPadded, StridedRows::kTransposed, StridedRows::kSequenceFirst},
                              stream_, ACL_FLOAT16);
}

TEST_F(AccuracyTest, TokenHeadsGiveTheBitsOfDenseRows) {
  // [T, H, N] as the queries of [T, 3, H, N] memory: runs of H rows with gaps between, each run's
  // rows fetched into L1 while earlier runs are worked on (runs of up to 8 KiB an operand), one
  // row at a time or with each group of rows, across the ends of runs and of 64-row chunks (which
  // cut runs of 12 and 5 rows); runs of 16 KiB are not fetched so. Mixed with padded operands,
  // whose batch ends do not cut the runs.
  ExpectStridedBitsEqualDense({150, 12, 64}, StridedRows::kHeads, stream_);
  ExpectStridedBitsEqualDense({100, 5, 64}, StridedRows::kHeads, stream_, ACL_FLOAT);
  ExpectStridedBitsEqualDense({40, 8, 512}, StridedRows::kHeads, stream_, ACL_FLOAT);
  ExpectStridedBitsEqualDense({150, 12, 64}, {StridedRows::kHeads, StridedRows::kPadded, StridedRows::kHeads}, stream_,
                              ACL_FLOAT16);
}

TEST_F(AccuracyTest, LargeOutputsWrittenAroundTheCaches) {
  // Over 8 MiB of gradInput: the kernel switches to non-temporal stores.
  for (const aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    AccuracyCase c;
    c.dims = std::vector<int64_t>{dtype == ACL_FLOAT ? 1024 : 2048, 2304};
    c.data = c.weight = c.grad_input = c.grad_weight = c.grad_bias = dtype;
    Run(c);
  }
}

TEST_F(AccuracyTest, CallsFromInsideAnOpenMpTeam) {
  // The caller's own OpenMP thread number must not pick the kernel's per-thread tiles: with one
  // kernel thread, a call from thread 1 of the caller's team still uses tile 0.
  setenv("ACLNN_HOST_NUM_THREADS", "1", 1);
  const uint64_t seed = TestSeed();
#pragma omp parallel num_threads(2)
  {
    aclrtStream stream = nullptr;
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    AccuracyCase c;
    c.dims = std::vector<int64_t>{40, 70};
    c.scatter = kScatterInput | kScatterGradInput;
    RunCase(c, seed + static_cast<uint64_t>(omp_get_thread_num()), stream);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  }
  unsetenv("ACLNN_HOST_NUM_THREADS");
}

TEST_F(AccuracyTest, LongRowsFromInsideAnOpenMpTeam) {
  // Long rows in one chunk, called from both threads of the caller's team with row counts that
  // differ (2 and 3 rows): with ACLNN_HOST_NUM_THREADS=2 the kernel shares their segments in a
  // team of its own, which OpenMP runs with one thread inside the caller's region (unless nesting
  // is on), and meets there once a row; with 1 it runs them whole. The values must hold either way.
  const uint64_t seed = TestSeed();
  for (const char *threads : {"1", "2"}) {
    SCOPED_TRACE(std::string("ACLNN_HOST_NUM_THREADS=") + threads);
    setenv("ACLNN_HOST_NUM_THREADS", threads, 1);
#pragma omp parallel num_threads(2)
    {
      aclrtStream stream = nullptr;
      EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
      EXPECT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
      AccuracyCase c;
      c.dims = std::vector<int64_t>{2 + omp_get_thread_num(), 70001};
      RunCase(c, seed + static_cast<uint64_t>(omp_get_thread_num()), stream);
      EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
      EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    }
  }
  unsetenv("ACLNN_HOST_NUM_THREADS");
}

TEST_F(AccuracyTest, ZeroRowsZeroFillsWeightAndBiasGradients) {
  for (const aclDataType dtype : kFloatTypes) {
    AccuracyCase c;
    c.dims = std::vector<int64_t>{0, 2, 7, 18};
    c.norm_dims = 2;
    c.grad_weight = c.grad_bias = dtype;
    c.scatter = kScatterGradWeight;
    // The reference's column sums over no rows are zeros: RunCase checks them (sentinel before).
    Run(c);
  }
}

TEST_F(AccuracyTest, ZeroRowLengthWritesNothing) {
  AccuracyCase c;
  c.dims = std::vector<int64_t>{5, 0, 3};
  c.norm_dims = 2;
  Run(c);
}

TEST_F(AccuracyTest, EveryMask) {
  for (int bits = 0; bits < 8; ++bits) {
    AccuracyCase c;
    c.dims = std::vector<int64_t>{6, 50};
    c.mask[0] = bits & 1;
    c.mask[1] = bits & 2;
    c.mask[2] = bits & 4;
    c.data = c.weight = c.grad_input = c.grad_weight = c.grad_bias = ACL_BF16;
    c.scatter = bits % 2 ? static_cast<unsigned>(kScatterAll) : 0u;
    Run(c);
  }
}

TEST_F(AccuracyTest, ResultsAreBitwiseIdenticalFromRunToRun) {
  for (const aclDataType dtype : kFloatTypes) {
    AccuracyCase c;
    c.dims = std::vector<int64_t>{33, 1031};
    c.data = c.weight = c.grad_input = c.grad_weight = c.grad_bias = dtype;
    const uint64_t seed = TestSeed() + 1000;
    const auto first = RunCase(c, seed, stream_);
    for (int repeat = 0; repeat < 2; ++repeat) EXPECT_EQ(RunCase(c, seed, stream_), first);
  }
}

}  // namespace
}  // namespace lnb_test
