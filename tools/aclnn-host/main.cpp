// aclnn-host: runs aclnnLayerNorm or aclnnLayerNormBackward through the public API on random
// data, checks it against the long-double reference and reports time, effective bandwidth and error.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "dtype_codec.h"
#include "kernels/common/kernel_config.h"
#include "layer_norm_backward_reference.h"
#include "layer_norm_reference.h"
#include "tolerance.h"

namespace {

struct Options {
  bool forward = false;  // layer-norm rather than layer-norm-backward
  std::vector<int64_t> shape{2048, 4096};  // a transformer's tokens x hidden
  int norm_dims = 1;
  aclDataType dtype = ACL_BF16;
  bool weight = true;
  int iters = 5;
  uint64_t seed = 20261202;
};

const char kUsage[] =
    "usage: aclnn-host [layer-norm | layer-norm-backward] [options]\n"
    "\n"
    "layer-norm runs aclnnLayerNorm (phase 1, phase 2, stream synchronisation) on random inputs,\n"
    "checks out, mean and rstd against a long-double reference with the dtype's tolerance, and\n"
    "prints the shape, dtype, time per call, effective bandwidth (1 read + 1 write of the tensor),\n"
    "the largest errors and PASS or FAIL.\n"
    "layer-norm-backward (the default) first runs aclnnLayerNorm for mean and rstd, as a training\n"
    "step does, then times aclnnLayerNormBackward and checks gradInput, gradWeight and gradBias\n"
    "(bandwidth: 2 reads + 1 write of the tensor).\n"
    "Exit code 0 on PASS, 1 on FAIL, 2 on bad usage or an API error.\n"
    "\n"
    "options:\n"
    "  --shape D0,D1,...   input shape, 1 to 8 dims (default 2048,4096)\n"
    "  --norm-dims K       number of trailing dims normalised (default 1)\n"
    "  --dtype T           fp32 | fp16 | bf16 for input, weight, bias and every output except\n"
    "                      mean and rstd, which are FLOAT (default bf16)\n"
    "  --no-weight         pass weightOptional = NULL (weight of ones; the forward then gets no bias)\n"
    "  --iters N           timed calls after one warm-up call (default 5)\n"
    "  --seed S            random seed (default 20261202)\n"
    "  --help              this text\n"
    "\n"
    "environment:\n"
    "  ACLNN_HOST_ISA           scalar | sse4 | avx2 | avx512 (default: the best the CPU runs)\n"
    "  ACLNN_HOST_NUM_THREADS   threads for large problems (default: all online CPUs)\n"
    "\n"
    "With no arguments: layer-norm-backward on the defaults above.\n";

[[noreturn]] void Usage(const char *problem) {
  if (problem != nullptr) std::fprintf(stderr, "aclnn-host: %s\n\n", problem);
  std::fputs(kUsage, problem != nullptr ? stderr : stdout);
  std::exit(problem != nullptr ? 2 : 0);
}

bool ParseInt(const char *text, long long minimum, long long *value) {
  char *end = nullptr;
  errno = 0;
  *value = std::strtoll(text, &end, 10);
  return errno == 0 && end != text && *end == '\0' && *value >= minimum;
}

Options Parse(int argc, char **argv) {
  Options options;
  int i = 1;
  if (i < argc && std::strcmp(argv[i], "layer-norm-backward") == 0) {
    ++i;
  } else if (i < argc && std::strcmp(argv[i], "layer-norm") == 0) {
    options.forward = true;
    ++i;
  }
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> const char * {
      if (i + 1 >= argc) Usage((arg + " needs a value").c_str());
      return argv[++i];
    };
    long long number = 0;
    if (arg == "--help" || arg == "-h") {
      Usage(nullptr);
    } else if (arg == "--shape") {
      options.shape.clear();
      std::string list = next();
      size_t start = 0;
      while (start <= list.size()) {
        const size_t comma = list.find(',', start);
        const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!ParseInt(item.c_str(), 1, &number)) Usage("--shape takes positive integers separated by commas");
        options.shape.push_back(number);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (options.shape.empty() || options.shape.size() > 8) Usage("--shape takes 1 to 8 dims");
    } else if (arg == "--norm-dims") {
      if (!ParseInt(next(), 1, &number)) Usage("--norm-dims takes a positive integer");
      options.norm_dims = static_cast<int>(number);
    } else if (arg == "--dtype") {
      const std::string name = next();
      if (name == "fp32") options.dtype = ACL_FLOAT;
      else if (name == "fp16") options.dtype = ACL_FLOAT16;
      else if (name == "bf16") options.dtype = ACL_BF16;
      else Usage("--dtype takes fp32, fp16 or bf16");
    } else if (arg == "--no-weight") {
      options.weight = false;
    } else if (arg == "--iters") {
      if (!ParseInt(next(), 1, &number)) Usage("--iters takes a positive integer");
      options.iters = static_cast<int>(number);
    } else if (arg == "--seed") {
      if (!ParseInt(next(), 0, &number)) Usage("--seed takes a non-negative integer");
      options.seed = static_cast<uint64_t>(number);
    } else {
      Usage(("unknown argument " + arg).c_str());
    }
  }
  if (options.norm_dims > static_cast<int>(options.shape.size())) Usage("--norm-dims exceeds the number of dims");
  return options;
}

const char *DtypeName(aclDataType dtype) {
  return dtype == ACL_FLOAT ? "fp32" : dtype == ACL_FLOAT16 ? "fp16" : "bf16";
}

[[noreturn]] void Fail(const char *call, int status) {
  const char *message = aclGetRecentErrMsg();
  std::fprintf(stderr, "aclnn-host: %s failed with %d: %s\n", call, status, message ? message : "(no message)");
  std::exit(2);
}

#define CHECK_ACL(call)                     \
  do {                                      \
    const int status_ = (call);             \
    if (status_ != 0) Fail(#call, status_); \
  } while (0)

// One tensor in device memory, filled from host values.
struct DeviceTensor {
  std::vector<int64_t> shape;
  aclDataType dtype;
  void *memory = nullptr;
  aclTensor *tensor = nullptr;

  DeviceTensor(std::vector<int64_t> dims, aclDataType type, const std::vector<double> &values) : shape(std::move(dims)), dtype(type) {
    const size_t bytes = values.size() * aclDataTypeSize(dtype);
    CHECK_ACL(aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    const std::vector<uint8_t> encoded = aclhost::testing::Encode(dtype, values);
    CHECK_ACL(aclrtMemcpy(memory, bytes, encoded.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    tensor = aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, ACL_FORMAT_ND, shape.data(), shape.size(), memory);
    if (tensor == nullptr) Fail("aclCreateTensor", -1);
  }
  ~DeviceTensor() {
    aclDestroyTensor(tensor);
    aclrtFree(memory);
  }
  std::vector<double> Read(size_t count) const {
    std::vector<uint8_t> bytes(count * aclDataTypeSize(dtype));
    CHECK_ACL(aclrtMemcpy(bytes.data(), bytes.size(), memory, bytes.size(), ACL_MEMCPY_DEVICE_TO_HOST));
    return aclhost::testing::Decode(dtype, bytes.data(), count);
  }
};

std::string ShapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t d = 0; d < shape.size(); ++d) text += (d ? "," : "") + std::to_string(shape[d]);
  return text + "]";
}

// The data every command runs on, rounded to the dtype before anything (reference included) sees it.
struct Problem {
  int64_t rows = 1, cols = 1;
  std::vector<int64_t> normalized, stats_shape;
  std::vector<double> input, grad_out, weight, bias;  // weight and bias empty with --no-weight
};

Problem MakeProblem(const Options &options) {
  Problem problem;
  const size_t begin_axis = options.shape.size() - static_cast<size_t>(options.norm_dims);
  for (size_t d = 0; d < options.shape.size(); ++d) (d < begin_axis ? problem.rows : problem.cols) *= options.shape[d];
  problem.normalized.assign(options.shape.begin() + static_cast<std::ptrdiff_t>(begin_axis), options.shape.end());
  problem.stats_shape.assign(options.shape.begin(), options.shape.begin() + static_cast<std::ptrdiff_t>(begin_axis));
  problem.stats_shape.resize(options.shape.size(), 1);
  std::mt19937_64 random(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.5, 1.5);
  auto round = [&](double value) { return aclhost::testing::RoundTo(options.dtype, value); };
  problem.input.resize(static_cast<size_t>(problem.rows * problem.cols));
  for (int64_t m = 0; m < problem.rows; ++m) {
    const double shift = normal(random), spread = uniform(random);
    for (int64_t n = 0; n < problem.cols; ++n) problem.input[m * problem.cols + n] = round(shift + spread * normal(random));
  }
  problem.grad_out.resize(problem.input.size());
  for (double &value : problem.grad_out) value = round(normal(random));
  if (options.weight) {
    for (int64_t n = 0; n < problem.cols; ++n) {
      problem.weight.push_back(round(uniform(random)));
      problem.bias.push_back(round(0.5 * normal(random)));
    }
  }
  return problem;
}

// A workspace that grows to the largest size asked, so that timed calls do not allocate.
class Workspace {
 public:
  ~Workspace() {
    if (memory_ != nullptr) aclrtFree(memory_);
  }
  void *Get(uint64_t size) {
    if (size > capacity_) {
      if (memory_ != nullptr) CHECK_ACL(aclrtFree(memory_));
      CHECK_ACL(aclrtMalloc(&memory_, size, ACL_MEM_MALLOC_HUGE_FIRST));
      capacity_ = size;
    }
    return memory_;
  }

 private:
  void *memory_ = nullptr;
  uint64_t capacity_ = 0;
};

// Seconds per call of `call`, after one warm-up call (first-touch page faults and the
// workspace's allocation stay out of the timing).
template <typename Call>
double SecondsPerCall(int iters, Call call) {
  call();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) call();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iters;
}

struct Checked {
  const char *name;
  aclhost::testing::ErrorSummary error;
  aclDataType dtype;
};

// Prints the report; true when every output passed.
bool Report(const char *command, const Options &options, const Problem &problem, double seconds, double bytes,
            const std::vector<Checked> &outputs) {
  std::printf("aclnn-host %s\n", command);
  std::printf("  shape        %s, normalized dims %d (M=%lld, N=%lld)\n", ShapeText(options.shape).c_str(),
              options.norm_dims, static_cast<long long>(problem.rows), static_cast<long long>(problem.cols));
  std::printf("  dtype        %s (mean/rstd fp32, weight %s)\n", DtypeName(options.dtype),
              options.weight ? DtypeName(options.dtype) : "NULL");
  const aclhost::kernels::KernelConfig config = aclhost::kernels::CurrentKernelConfig();
  std::printf("  kernel       %s, %d threads (ACLNN_HOST_ISA, ACLNN_HOST_NUM_THREADS)\n",
              aclhost::kernels::IsaName(config.isa), config.threads);
  std::printf("  seed         %llu\n", static_cast<unsigned long long>(options.seed));
  std::printf("  time/call    %.3f ms (mean of %d calls: phase 1 + phase 2 + synchronize)\n", seconds * 1e3, options.iters);
  std::printf("  bandwidth    %.2f GB/s effective\n", bytes / seconds / 1e9);
  bool passed = true;
  for (const Checked &output : outputs) {
    std::printf("  max error    %-10s %.3g (%.2f of tolerance %.1e)\n", output.name, output.error.max_abs_error,
                output.error.worst_ratio, aclhost::testing::ToleranceFor(output.dtype));
    passed = passed && output.error.Passed();
  }
  std::printf("%s\n", passed ? "PASS" : "FAIL");
  return passed;
}

// The forward's tensors: the problem's input, weight and bias, and room for its outputs.
struct ForwardTensors {
  ForwardTensors(const Options &options, const Problem &problem)
      : input(options.shape, options.dtype, problem.input),
        out(options.shape, options.dtype, std::vector<double>(problem.input.size(), 0.0)),
        mean(problem.stats_shape, ACL_FLOAT, std::vector<double>(static_cast<size_t>(problem.rows), 0.0)),
        rstd(problem.stats_shape, ACL_FLOAT, std::vector<double>(static_cast<size_t>(problem.rows), 0.0)) {
    if (options.weight) {
      weight.reset(new DeviceTensor(problem.normalized, options.dtype, problem.weight));
      bias.reset(new DeviceTensor(problem.normalized, options.dtype, problem.bias));
    }
    normalized = aclCreateIntArray(problem.normalized.data(), problem.normalized.size());
  }
  ~ForwardTensors() { aclDestroyIntArray(normalized); }

  void Run(Workspace &workspace, aclrtStream stream) {
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = nullptr;
    CHECK_ACL(aclnnLayerNormGetWorkspaceSize(input.tensor, normalized, weight ? weight->tensor : nullptr,
                                             bias ? bias->tensor : nullptr, 1e-5, out.tensor, mean.tensor, rstd.tensor,
                                             &workspace_size, &executor));
    CHECK_ACL(aclnnLayerNorm(workspace.Get(workspace_size), workspace_size, executor, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
  }

  DeviceTensor input, out, mean, rstd;
  std::unique_ptr<DeviceTensor> weight, bias;
  aclIntArray *normalized = nullptr;
};

int RunLayerNorm(const Options &options, const Problem &problem, aclrtStream stream) {
  ForwardTensors forward(options, problem);
  Workspace workspace;
  const double seconds = SecondsPerCall(options.iters, [&] { forward.Run(workspace, stream); });
  const aclhost::reference::LayerNormResult want =
      aclhost::reference::LayerNorm(problem.input, problem.weight, problem.bias, problem.rows, problem.cols, 1e-5);
  std::vector<double> mean_magnitude(static_cast<size_t>(problem.rows), 0.0);
  for (size_t i = 0; i < problem.input.size(); ++i) {
    double &magnitude = mean_magnitude[i / static_cast<size_t>(problem.cols)];
    magnitude = std::max(magnitude, std::fabs(problem.input[i]));
  }
  const size_t elements = problem.input.size(), rows = static_cast<size_t>(problem.rows);
  const std::vector<Checked> outputs = {
      {"out", aclhost::testing::Compare(forward.out.Read(elements), want.out, want.out_magnitude, options.dtype), options.dtype},
      {"mean", aclhost::testing::Compare(forward.mean.Read(rows), want.mean, mean_magnitude, ACL_FLOAT), ACL_FLOAT},
      {"rstd", aclhost::testing::Compare(forward.rstd.Read(rows), want.rstd, std::vector<double>(rows, 0.0), ACL_FLOAT),
       ACL_FLOAT}};
  const double bytes = 2.0 * static_cast<double>(elements) * aclDataTypeSize(options.dtype);
  return Report("layer-norm", options, problem, seconds, bytes, outputs) ? 0 : 1;
}

int RunLayerNormBackward(const Options &options, const Problem &problem, aclrtStream stream) {
  // mean and rstd from the real forward, as in a training step.
  ForwardTensors forward(options, problem);
  Workspace workspace;
  forward.Run(workspace, stream);
  const size_t elements = problem.input.size(), cols = static_cast<size_t>(problem.cols);
  const std::vector<double> mean = forward.mean.Read(static_cast<size_t>(problem.rows));
  const std::vector<double> rstd = forward.rstd.Read(static_cast<size_t>(problem.rows));

  DeviceTensor grad_out(options.shape, options.dtype, problem.grad_out);
  DeviceTensor grad_input(options.shape, options.dtype, std::vector<double>(elements, 0.0));
  DeviceTensor grad_weight(problem.normalized, options.dtype, std::vector<double>(cols, 0.0));
  DeviceTensor grad_bias(problem.normalized, options.dtype, std::vector<double>(cols, 0.0));
  const bool mask_values[3] = {true, true, true};
  aclBoolArray *mask = aclCreateBoolArray(mask_values, 3);
  const double seconds = SecondsPerCall(options.iters, [&] {
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = nullptr;
    CHECK_ACL(aclnnLayerNormBackwardGetWorkspaceSize(
        grad_out.tensor, forward.input.tensor, forward.normalized, forward.mean.tensor, forward.rstd.tensor,
        forward.weight ? forward.weight->tensor : nullptr, nullptr, mask, grad_input.tensor, grad_weight.tensor,
        grad_bias.tensor, &workspace_size, &executor));
    CHECK_ACL(aclnnLayerNormBackward(workspace.Get(workspace_size), workspace_size, executor, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
  });
  aclDestroyBoolArray(mask);

  const aclhost::reference::LayerNormBackwardResult want = aclhost::reference::LayerNormBackward(
      problem.grad_out, problem.input, mean, rstd, problem.weight, problem.rows, problem.cols);
  const std::vector<Checked> outputs = {
      {"gradInput", aclhost::testing::Compare(grad_input.Read(elements), want.grad_input, want.grad_input_magnitude, options.dtype),
       options.dtype},
      {"gradWeight", aclhost::testing::Compare(grad_weight.Read(cols), want.grad_weight, want.grad_weight_magnitude, options.dtype),
       options.dtype},
      {"gradBias", aclhost::testing::Compare(grad_bias.Read(cols), want.grad_bias, want.grad_bias_magnitude, options.dtype),
       options.dtype}};
  const double bytes = 3.0 * static_cast<double>(elements) * aclDataTypeSize(options.dtype);
  return Report("layer-norm-backward", options, problem, seconds, bytes, outputs) ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  const Options options = Parse(argc, argv);
  const Problem problem = MakeProblem(options);
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));
  const int exit_code = options.forward ? RunLayerNorm(options, problem, stream) : RunLayerNormBackward(options, problem, stream);
  CHECK_ACL(aclrtDestroyStream(stream));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  return exit_code;
}
