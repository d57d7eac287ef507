#include "kernels/layer_norm/layer_norm_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/parallel_for.h"

namespace aclhost {
namespace kernels {
namespace {

constexpr int kLanes = 16;
constexpr int64_t kRowsPerChunk = 16;

template <typename Value>
Value CombineLanes(Value (&lanes)[kLanes]) {
  for (int width = kLanes / 2; width > 0; width /= 2) {
    for (int lane = 0; lane < width; ++lane) lanes[lane] = lanes[lane] + lanes[lane + width];
  }
  return lanes[0];
}

void NormalizeRow(const LayerNormArgs &args, int64_t row) {
  if (args.cols == 0) {  // an empty row: mean 0, rstd NaN (upstream's choice)
    if (args.mean != nullptr) StoreElement(args.mean, args.mean_type, row, 0.0f);
    if (args.rstd != nullptr) StoreElement(args.rstd, args.rstd_type, row, std::numeric_limits<float>::quiet_NaN());
    return;
  }
  const int64_t first = row * args.cols;
  auto element = [&](int64_t n) { return LoadElement(args.input, args.input_type, first + n); };
  // The mean in double: a float32 mean of rows far from zero (31 +- 1, 3000 +- 0.01) is off by
  // more than their spread; the deviations from it are then exact enough for float32.
  double sums[kLanes] = {};
  for (int64_t n = 0; n < args.cols; ++n) sums[n % kLanes] += element(n);
  const double mean = CombineLanes(sums) / static_cast<double>(args.cols);
  float squares[kLanes] = {};
  for (int64_t n = 0; n < args.cols; ++n) {
    const float centred = static_cast<float>(element(n) - mean);
    squares[n % kLanes] += centred * centred;
  }
  const float variance = CombineLanes(squares) / static_cast<float>(args.cols);
  const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(variance) + args.eps));
  for (int64_t n = 0; n < args.cols; ++n) {
    float value = static_cast<float>(element(n) - mean) * rstd;
    if (args.weight != nullptr) value = value * static_cast<float>(LoadElement(args.weight, args.weight_type, n));
    if (args.bias != nullptr) value = value + static_cast<float>(LoadElement(args.bias, args.bias_type, n));
    StoreElement(args.out, args.out_type, first + n, value);
  }
  if (args.mean != nullptr) StoreElement(args.mean, args.mean_type, row, static_cast<float>(mean));
  if (args.rstd != nullptr) StoreElement(args.rstd, args.rstd_type, row, rstd);
}

}  // namespace

void LayerNormForward(const LayerNormArgs &args) {
  const int64_t chunks = (args.rows + kRowsPerChunk - 1) / kRowsPerChunk;
  ParallelFor(chunks, args.config.threads, [&](int64_t chunk, int /*worker*/) {
    const int64_t end = std::min(args.rows, (chunk + 1) * kRowsPerChunk);
    for (int64_t row = chunk * kRowsPerChunk; row < end; ++row) NormalizeRow(args, row);
  });
}

}  // namespace kernels
}  // namespace aclhost
