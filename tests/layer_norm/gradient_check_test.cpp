// The forward and backward operators as a pair, through the public API: the backward's gradients
// (fed with the forward's own mean and rstd) against central finite differences of the forward in
// double precision, and a forward -> backward round trip in every dtype.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "forward_call.h"
#include "layer_norm_backward_reference.h"
#include "layer_norm_reference.h"
#include "tolerance.h"

namespace lnb_test {
namespace {

constexpr double kEps = 1e-5;

struct Gradients {
  std::vector<double> input, weight, bias;
};

// L(x, w, b) = sum(g * LayerNorm(x; w, b)), in long double via the reference.
double Loss(const std::vector<double> &g, const std::vector<double> &x, const std::vector<double> &w,
            const std::vector<double> &b, int64_t rows, int64_t cols) {
  const aclhost::reference::LayerNormResult y = aclhost::reference::LayerNorm(x, w, b, rows, cols, kEps);
  long double loss = 0;
  for (size_t i = 0; i < g.size(); ++i) loss += static_cast<long double>(g[i]) * y.out[i];
  return static_cast<double>(loss);
}

// dL/dv by central differences, one value at a time.
std::vector<double> CentralDifferences(std::vector<double> values, const std::function<double(const std::vector<double> &)> &loss) {
  std::vector<double> gradient(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const double original = values[i], h = 1e-4 * std::max(1.0, std::fabs(original));
    values[i] = original + h;
    const double up = loss(values);
    values[i] = original - h;
    const double down = loss(values);
    values[i] = original;
    gradient[i] = (up - down) / (2 * h);
  }
  return gradient;
}

// |got - want| <= tolerance * (|want| + largest |want|): finite differences and float32 are both
// accurate relative to the size of the gradient as a whole, not of each near-zero entry.
void ExpectGradientsClose(const char *name, const std::vector<double> &got, const std::vector<double> &want,
                          double tolerance) {
  ASSERT_EQ(got.size(), want.size()) << name;
  double scale = 0;
  for (const double value : want) scale = std::max(scale, std::fabs(value));
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]), tolerance * (std::fabs(want[i]) + scale))
        << name << "[" << i << "]: " << got[i] << " vs " << want[i];
  }
}

class PairTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS); }
  void TearDown() override { EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS); }

  // Forward through the API (its mean and rstd in stats_dtype), then the backward through the API
  // with those statistics. The tensors hold values already rounded to their dtypes.
  Gradients ForwardThenBackward(DeviceTensor &x, DeviceTensor &w, DeviceTensor &b, DeviceTensor &g, aclDataType stats_dtype,
                                aclDataType grad_dtype) {
    const std::vector<int64_t> &dims = x.dims();
    const std::vector<int64_t> normalized{dims.back()}, stats{dims[0], 1};
    DeviceTensor out(dims, x.dtype()), mean(stats, stats_dtype), rstd(stats, stats_dtype);
    EXPECT_EQ(RunForward({&x, normalized, &w, &b, kEps, &out, &mean, &rstd}, stream_), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    DeviceTensor grad_input(dims, grad_dtype), grad_weight(normalized, grad_dtype), grad_bias(normalized, grad_dtype);
    aclIntArray *normalized_array = aclCreateIntArray(normalized.data(), 1);
    const bool mask_values[] = {true, true, true};
    aclBoolArray *mask = aclCreateBoolArray(mask_values, 3);
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = nullptr;
    EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(g.get(), x.get(), normalized_array, mean.get(), rstd.get(), w.get(),
                                                     b.get(), mask, grad_input.get(), grad_weight.get(), grad_bias.get(),
                                                     &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    void *workspace = nullptr;
    if (workspace_size > 0) {
      EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    EXPECT_EQ(aclnnLayerNormBackward(workspace, workspace_size, executor, stream_), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    aclrtFree(workspace);
    aclDestroyIntArray(normalized_array);
    aclDestroyBoolArray(mask);
    return {grad_input.Read(), grad_weight.Read(), grad_bias.Read()};
  }

  aclrtStream stream_ = nullptr;
};

TEST_F(PairTest, BackwardMatchesFiniteDifferencesOfTheForward) {
  std::mt19937_64 random(TestSeed());
  for (const std::vector<int64_t> &dims : {std::vector<int64_t>{3, 7}, std::vector<int64_t>{2, 33}, std::vector<int64_t>{1, 5}}) {
    SCOPED_TRACE("rows " + std::to_string(dims[0]) + " cols " + std::to_string(dims[1]));
    const int64_t rows = dims[0], cols = dims[1];
    DeviceTensor x(dims, ACL_FLOAT), w({cols}, ACL_FLOAT), b({cols}, ACL_FLOAT), g(dims, ACL_FLOAT);
    x.Write(RandomValues(static_cast<size_t>(rows * cols), random, 1.5, 0.5));
    w.Write(RandomValues(static_cast<size_t>(cols), random, 0.5, 1.0));
    b.Write(RandomValues(static_cast<size_t>(cols), random, 0.5));
    g.Write(RandomValues(static_cast<size_t>(rows * cols), random));
    const Gradients api = ForwardThenBackward(x, w, b, g, ACL_FLOAT, ACL_FLOAT);

    const std::vector<double> xv = x.Read(), wv = w.Read(), bv = b.Read(), gv = g.Read();
    const std::vector<double> fd_input =
        CentralDifferences(xv, [&](const std::vector<double> &v) { return Loss(gv, v, wv, bv, rows, cols); });
    const std::vector<double> fd_weight =
        CentralDifferences(wv, [&](const std::vector<double> &v) { return Loss(gv, xv, v, bv, rows, cols); });
    const std::vector<double> fd_bias =
        CentralDifferences(bv, [&](const std::vector<double> &v) { return Loss(gv, xv, wv, v, rows, cols); });
    ExpectGradientsClose("gradInput", api.input, fd_input, 1e-4);
    ExpectGradientsClose("gradWeight", api.weight, fd_weight, 1e-4);
    ExpectGradientsClose("gradBias", api.bias, fd_bias, 1e-4);
  }
}

TEST_F(PairTest, RoundTripInEveryDtype) {
  std::mt19937_64 random(TestSeed() + 1);
  for (const aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const aclDataType stats : {ACL_FLOAT, dtype}) {
      SCOPED_TRACE("dtype " + std::to_string(dtype) + " statistics " + std::to_string(stats));
      const int64_t rows = 37, cols = 260;
      DeviceTensor x({rows, cols}, dtype), w({cols}, dtype), b({cols}, dtype), g({rows, cols}, dtype);
      x.Write(RandomValues(static_cast<size_t>(rows * cols), random, 2.0, 1.0));
      w.Write(RandomValues(static_cast<size_t>(cols), random, 0.5, 1.0));
      b.Write(RandomValues(static_cast<size_t>(cols), random, 0.5));
      g.Write(RandomValues(static_cast<size_t>(rows * cols), random));
      const Gradients api = ForwardThenBackward(x, w, b, g, stats, dtype);
      // The ideal pair: exact statistics of the rounded input, then the exact backward.
      const std::vector<double> xv = x.Read();
      std::vector<double> mean, rstd;
      aclhost::reference::RowStatistics(xv, rows, cols, kEps, &mean, &rstd);
      const aclhost::reference::LayerNormBackwardResult want =
          aclhost::reference::LayerNormBackward(g.Read(), xv, mean, rstd, w.Read(), rows, cols);
      // Statistics stored in a 16-bit dtype carry its rounding into every gradient.
      const aclDataType judged_as = aclhost::testing::ToleranceFor(stats) > aclhost::testing::ToleranceFor(dtype) ? stats : dtype;
      const double tolerance = 4 * aclhost::testing::ToleranceFor(judged_as);
      ExpectGradientsClose("gradInput", api.input, want.grad_input, tolerance);
      ExpectGradientsClose("gradWeight", api.weight, want.grad_weight, tolerance);
      ExpectGradientsClose("gradBias", api.bias, want.grad_bias, tolerance);
    }
  }
}

}  // namespace
}  // namespace lnb_test
