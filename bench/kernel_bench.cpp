// The LayerNorm kernels alone, on one thread, operands in L2: time per element of their
// arithmetic, without the API's phases, the stream or memory bandwidth. This is where changes to
// the kernels' instruction mix show; the whole call's speed against bandwidth is
// layer_norm_backward_bench's and layer_norm_bench's. ACLNN_HOST_ISA picks the SIMD target.
//
// Operands sit at fixed offsets within pages (weight 64 bytes in, bias 2 KiB in), so that two
// builds compared against each other see the same 4K-aliasing conditions.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/float_convert.h"
#include "kernels/common/kernel_config.h"
#include "kernels/layer_norm/layer_norm_kernel.h"
#include "kernels/layer_norm_backward/layer_norm_backward_kernel.h"

namespace {

using aclhost::kernels::ElementType;

constexpr size_t kPage = 4096;

struct FreeDeleter {
  void operator()(void *memory) const { std::free(memory); }
};
using Buffer = std::unique_ptr<char, FreeDeleter>;

Buffer PageAligned(size_t bytes) {
  return Buffer(static_cast<char *>(std::aligned_alloc(kPage, (bytes + kPage - 1) / kPage * kPage)));
}

size_t SizeOf(ElementType type) { return type == ElementType::kFloat32 ? 4 : 2; }

// count values of type at out, drawn as shift + normal().
void Fill(ElementType type, size_t count, double shift, std::mt19937_64 *random, void *out) {
  std::normal_distribution<double> normal;
  for (size_t i = 0; i < count; ++i) {
    const float value = static_cast<float>(shift + normal(*random));
    if (type == ElementType::kFloat32) {
      std::memcpy(static_cast<char *>(out) + 4 * i, &value, 4);
    } else {
      const uint16_t bits = type == ElementType::kFloat16 ? aclhost::FloatToHalf(value) : aclhost::FloatToBf16(value);
      std::memcpy(static_cast<char *>(out) + 2 * i, &bits, 2);
    }
  }
}

// One problem's operands, made once per benchmark case.
struct Operands {
  Operands(int64_t rows, int64_t cols, ElementType type) {
    const size_t elements = static_cast<size_t>(rows * cols);
    std::mt19937_64 random(7);
    grad_out = PageAligned(elements * SizeOf(type));
    input = PageAligned(elements * SizeOf(type));
    output = PageAligned(elements * SizeOf(type));
    Fill(type, elements, 0.0, &random, grad_out.get());
    Fill(type, elements, 0.5, &random, input.get());
    std::memset(output.get(), 0, elements * SizeOf(type));
    const size_t vector_bytes = static_cast<size_t>(cols) * sizeof(float);
    vectors = PageAligned(2 * vector_bytes + 3 * kPage);
    weight = reinterpret_cast<float *>(vectors.get() + 64);
    bias = reinterpret_cast<float *>(vectors.get() + (64 + vector_bytes + kPage - 1) / kPage * kPage + 2048);
    Fill(ElementType::kFloat32, static_cast<size_t>(cols), 1.0, &random, weight);
    Fill(ElementType::kFloat32, static_cast<size_t>(cols), 0.0, &random, bias);
    mean.assign(static_cast<size_t>(rows), 0.5f);
    rstd.assign(static_cast<size_t>(rows), 1.0f);
    grad_weight.resize(static_cast<size_t>(cols));
    grad_bias.resize(static_cast<size_t>(cols));
  }

  Buffer grad_out, input, output, vectors;
  float *weight, *bias;
  std::vector<float> mean, rstd, grad_weight, grad_bias;
};

// Shown as per_element=...ps: the time of one call over its elements.
void ReportTimePerElement(benchmark::State &state, int64_t elements) {
  state.counters["per_element"] = benchmark::Counter(static_cast<double>(elements),
                                                     benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

aclhost::kernels::KernelConfig OneThread() {
  aclhost::kernels::KernelConfig config = aclhost::kernels::CurrentKernelConfig();
  config.threads = 1;
  return config;
}

// Times kernel(args) on one thread with scratch_bytes of scratch; args holds the operands.
template <class Args, class Kernel>
void TimeKernel(benchmark::State &state, int64_t rows, int64_t cols, size_t scratch_bytes, Args *args, Kernel kernel) {
  args->rows = rows;
  args->cols = cols;
  args->config = OneThread();
  const Buffer scratch = PageAligned(scratch_bytes + 64);
  args->scratch = scratch.get();
  for (auto _ : state) kernel(*args);
  ReportTimePerElement(state, rows * cols);
}

void Backward(benchmark::State &state, int64_t rows, int64_t cols, ElementType type) {
  Operands operands(rows, cols, type);
  aclhost::kernels::LayerNormBackwardArgs args;
  args.data_type = type;
  args.grad_out = operands.grad_out.get();
  args.input = operands.input.get();
  args.mean = operands.mean.data();
  args.rstd = operands.rstd.data();
  args.weight = operands.weight;
  args.grad_input = operands.output.get();
  args.grad_weight = operands.grad_weight.data();
  args.grad_bias = operands.grad_bias.data();
  TimeKernel(state, rows, cols,
             aclhost::kernels::LayerNormBackwardScratchBytes(rows, cols, type, ElementType::kFloat32, true, 0, false, OneThread()),
             &args,
             aclhost::kernels::LayerNormBackward);
}

void Forward(benchmark::State &state, int64_t rows, int64_t cols, ElementType type) {
  Operands operands(rows, cols, type);
  aclhost::kernels::LayerNormArgs args;
  args.eps = 1e-5;
  args.input_type = type;
  args.out_type = type;
  args.input = operands.input.get();
  args.weight = operands.weight;
  args.bias = operands.bias;
  args.out = operands.output.get();
  args.mean = operands.mean.data();
  args.rstd = operands.rstd.data();
  TimeKernel(state, rows, cols, aclhost::kernels::LayerNormForwardScratchBytes(cols, ElementType::kFloat32, ElementType::kFloat32),
             &args, aclhost::kernels::LayerNormForward);
}

}  // namespace

int main(int argc, char **argv) {
  // Shapes whose operands fit a 1 MiB L2: long rows, transformer rows, short rows.
  const std::vector<std::pair<int64_t, int64_t>> shapes{{64, 1024}, {16, 4096}, {256, 768}, {64, 256}, {1024, 128}};
  const std::vector<std::pair<const char *, ElementType>> types{
      {"fp32", ElementType::kFloat32}, {"fp16", ElementType::kFloat16}, {"bf16", ElementType::kBFloat16}};
  for (const char *pass : {"Backward", "Forward"}) {
    for (const auto &named_type : types) {
      for (const auto &shape : shapes) {
        const ElementType type = named_type.second;
        const int64_t rows = shape.first, cols = shape.second;
        const std::string label =
            std::string(pass) + "/" + named_type.first + "/" + std::to_string(rows) + "x" + std::to_string(cols);
        const bool backward = std::string(pass) == "Backward";
        benchmark::RegisterBenchmark(label.c_str(), [=](benchmark::State &state) {
          backward ? Backward(state, rows, cols, type) : Forward(state, rows, cols, type);
        })->UseRealTime();
      }
    }
  }
  std::printf("kernel %s, 1 thread, kernels alone (no API phases)\n",
              aclhost::kernels::IsaName(aclhost::kernels::CurrentKernelConfig().isa));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
