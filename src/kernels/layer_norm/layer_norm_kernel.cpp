#include "kernels/layer_norm/layer_norm_kernel.h"

#include <algorithm>
#include <cmath>

#include "common/parallel_for.h"

namespace aclhost {
namespace kernels {
namespace {

constexpr int kLanes = 16;
constexpr int64_t kRowsPerChunk = 16;

float CombineLanes(float (&lanes)[kLanes]) {
  for (int width = kLanes / 2; width > 0; width /= 2) {
    for (int lane = 0; lane < width; ++lane) lanes[lane] = lanes[lane] + lanes[lane + width];
  }
  return lanes[0];
}

void NormalizeRow(const LayerNormArgs &args, int64_t row) {
  const int64_t first = row * args.cols;
  float lanes[kLanes] = {};
  for (int64_t n = 0; n < args.cols; ++n) {
    lanes[n % kLanes] += static_cast<float>(LoadElement(args.input, args.input_type, first + n));
  }
  const float count = static_cast<float>(args.cols);
  const float mean = CombineLanes(lanes) / count;
  float squares[kLanes] = {};
  for (int64_t n = 0; n < args.cols; ++n) {
    const float centred = static_cast<float>(LoadElement(args.input, args.input_type, first + n)) - mean;
    squares[n % kLanes] += centred * centred;
  }
  const float variance = CombineLanes(squares) / count;
  const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(variance) + args.eps));
  for (int64_t n = 0; n < args.cols; ++n) {
    float value = (static_cast<float>(LoadElement(args.input, args.input_type, first + n)) - mean) * rstd;
    if (args.weight != nullptr) value = value * static_cast<float>(LoadElement(args.weight, args.weight_type, n));
    if (args.bias != nullptr) value = value + static_cast<float>(LoadElement(args.bias, args.bias_type, n));
    StoreElement(args.out, args.out_type, first + n, value);
  }
  if (args.mean != nullptr) StoreElement(args.mean, args.mean_type, row, mean);
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
