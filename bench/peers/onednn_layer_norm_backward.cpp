// oneDNN's layer_normalization_backward (diff_src, diff_scale, diff_shift) on one shape, timed
// as bench/peers/aclnn_host_layer_norm_backward.cpp times aclnn-host: best mean over 5 rounds of 5
// calls back to back, primitive created once.
// Usage: onednn_layer_norm_backward M N f32|bf16 ; prints "GB/s <value>" or "skipped: <why>".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "best_mean.h"
#include "oneapi/dnnl/dnnl.hpp"

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s M N f32|bf16\n", argv[0]);
    return 2;
  }
  const dnnl::memory::dim rows = std::atoll(argv[1]), cols = std::atoll(argv[2]);
  const bool bf16 = std::strcmp(argv[3], "bf16") == 0;
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  try {
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    const dt data_type = bf16 ? dt::bf16 : dt::f32;
    const dnnl::memory::desc data({rows, cols}, data_type, tag::ab);
    const dnnl::memory::desc stats({rows}, dt::f32, tag::a);
    const dnnl::memory::desc scale({cols}, dt::f32, tag::a);
    const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    const dnnl::layer_normalization_forward::primitive_desc forward(
        {dnnl::prop_kind::forward_training, data, stats, 1e-5f, flags}, engine);
    const dnnl::layer_normalization_backward::primitive_desc backward(
        {dnnl::prop_kind::backward, data, data, stats, 1e-5f, flags}, engine, forward);
    dnnl::memory src(data, engine), diff_dst(data, engine), diff_src(data, engine);
    dnnl::memory mean(stats, engine), variance(stats, engine);
    dnnl::memory weights(scale, engine), bias(scale, engine), diff_weights(scale, engine), diff_bias(scale, engine);
    const size_t element = bf16 ? 2 : 4;
    std::memset(src.get_data_handle(), 0x3c, static_cast<size_t>(rows * cols) * element);
    std::memset(diff_dst.get_data_handle(), 0x3c, static_cast<size_t>(rows * cols) * element);
    std::memset(diff_src.get_data_handle(), 0, static_cast<size_t>(rows * cols) * element);
    std::vector<float> ones(static_cast<size_t>(cols > rows ? cols : rows), 1.0f);
    std::memcpy(mean.get_data_handle(), ones.data(), static_cast<size_t>(rows) * 4);
    std::memcpy(variance.get_data_handle(), ones.data(), static_cast<size_t>(rows) * 4);
    std::memcpy(weights.get_data_handle(), ones.data(), static_cast<size_t>(cols) * 4);
    dnnl::layer_normalization_backward primitive(backward);
    const std::unordered_map<int, dnnl::memory> arguments = {
        {DNNL_ARG_SRC, src},           {DNNL_ARG_DIFF_DST, diff_dst},         {DNNL_ARG_MEAN, mean},
        {DNNL_ARG_VARIANCE, variance}, {DNNL_ARG_SCALE, weights},             {DNNL_ARG_SHIFT, bias},
        {DNNL_ARG_DIFF_SRC, diff_src}, {DNNL_ARG_DIFF_SCALE, diff_weights}, {DNNL_ARG_DIFF_SHIFT, diff_bias}};
    auto call = [&] {
      primitive.execute(stream, arguments);
      stream.wait();
    };
    call();
    const double best = BestMeanSeconds(call);
    std::printf("GB/s %.3f\n", 3.0 * element * static_cast<double>(rows * cols) / best / 1e9);
  } catch (const dnnl::error &error) {
    std::printf("skipped: %s\n", error.what());
  }
  return 0;
}
