// aclnn-host: runs aclnnLayerNormBackward through the public API on random data, checks it
// against the long-double reference and reports time, effective bandwidth and error.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "dtype_codec.h"
#include "kernels/common/kernel_config.h"
#include "layer_norm_backward_reference.h"
#include "tolerance.h"

namespace {

struct Options {
  std::vector<int64_t> shape{2048, 4096};  // a transformer's tokens x hidden
  int norm_dims = 1;
  aclDataType dtype = ACL_BF16;
  bool weight = true;
  int iters = 5;
  uint64_t seed = 20261202;
};

const char kUsage[] =
    "usage: aclnn-host layer-norm-backward [options]\n"
    "\n"
    "Runs aclnnLayerNormBackward (phase 1, phase 2, stream synchronisation) on random inputs\n"
    "whose mean/rstd are computed from the input, checks gradInput, gradWeight and gradBias\n"
    "against a long-double reference with the dtype's tolerance, and prints the shape, dtype,\n"
    "time per call, effective bandwidth (2 reads + 1 write of the tensor), the largest error\n"
    "and PASS or FAIL. Exit code 0 on PASS, 1 on FAIL, 2 on bad usage or an API error.\n"
    "\n"
    "options:\n"
    "  --shape D0,D1,...   input shape, 1 to 8 dims (default 2048,4096)\n"
    "  --norm-dims K       number of trailing dims normalised (default 1)\n"
    "  --dtype T           fp32 | fp16 | bf16 for gradOut, input, weight and outputs (default bf16);\n"
    "                      mean and rstd are FLOAT\n"
    "  --no-weight         pass weightOptional = NULL (weight of ones)\n"
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
  if (i < argc && std::strcmp(argv[i], "layer-norm-backward") == 0) ++i;
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

}  // namespace

int main(int argc, char **argv) {
  const Options options = Parse(argc, argv);
  const size_t begin_axis = options.shape.size() - static_cast<size_t>(options.norm_dims);
  int64_t rows = 1, cols = 1;
  for (size_t d = 0; d < options.shape.size(); ++d) (d < begin_axis ? rows : cols) *= options.shape[d];
  const std::vector<int64_t> normalized(options.shape.begin() + static_cast<std::ptrdiff_t>(begin_axis), options.shape.end());
  std::vector<int64_t> stats_shape(options.shape.begin(), options.shape.begin() + static_cast<std::ptrdiff_t>(begin_axis));
  stats_shape.resize(options.shape.size(), 1);

  // Random data, rounded to the dtype before anything (reference included) sees it.
  std::mt19937_64 random(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.5, 1.5);
  const size_t elements = static_cast<size_t>(rows * cols);
  std::vector<double> input(elements), grad_out(elements), weight;
  for (int64_t m = 0; m < rows; ++m) {
    const double shift = normal(random), spread = uniform(random);
    for (int64_t n = 0; n < cols; ++n) input[m * cols + n] = aclhost::testing::RoundTo(options.dtype, shift + spread * normal(random));
  }
  for (double &value : grad_out) value = aclhost::testing::RoundTo(options.dtype, normal(random));
  if (options.weight) {
    weight.resize(static_cast<size_t>(cols));
    for (double &value : weight) value = aclhost::testing::RoundTo(options.dtype, uniform(random));
  }
  std::vector<double> mean, rstd;
  aclhost::reference::RowStatistics(input, rows, cols, 1e-5, &mean, &rstd);
  for (size_t m = 0; m < mean.size(); ++m) {
    mean[m] = aclhost::testing::RoundTo(ACL_FLOAT, mean[m]);
    rstd[m] = aclhost::testing::RoundTo(ACL_FLOAT, rstd[m]);
  }

  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));
  int exit_code = 1;
  {
    DeviceTensor grad_out_t(options.shape, options.dtype, grad_out);
    DeviceTensor input_t(options.shape, options.dtype, input);
    DeviceTensor mean_t(stats_shape, ACL_FLOAT, mean);
    DeviceTensor rstd_t(stats_shape, ACL_FLOAT, rstd);
    std::unique_ptr<DeviceTensor> weight_t;
    if (options.weight) weight_t.reset(new DeviceTensor(normalized, options.dtype, weight));
    const std::vector<double> zeros_x(elements, 0.0), zeros_n(static_cast<size_t>(cols), 0.0);
    DeviceTensor grad_input_t(options.shape, options.dtype, zeros_x);
    DeviceTensor grad_weight_t(normalized, options.dtype, zeros_n);
    DeviceTensor grad_bias_t(normalized, options.dtype, zeros_n);
    aclIntArray *norm = aclCreateIntArray(normalized.data(), normalized.size());
    const bool mask_values[3] = {true, true, true};
    aclBoolArray *mask = aclCreateBoolArray(mask_values, 3);

    void *workspace = nullptr;
    uint64_t workspace_capacity = 0;
    auto call = [&] {
      uint64_t workspace_size = 0;
      aclOpExecutor *executor = nullptr;
      CHECK_ACL(aclnnLayerNormBackwardGetWorkspaceSize(grad_out_t.tensor, input_t.tensor, norm, mean_t.tensor, rstd_t.tensor,
                                                       weight_t ? weight_t->tensor : nullptr, nullptr, mask, grad_input_t.tensor,
                                                       grad_weight_t.tensor, grad_bias_t.tensor, &workspace_size, &executor));
      if (workspace_size > workspace_capacity) {
        if (workspace != nullptr) CHECK_ACL(aclrtFree(workspace));
        CHECK_ACL(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST));
        workspace_capacity = workspace_size;
      }
      CHECK_ACL(aclnnLayerNormBackward(workspace, workspace_size, executor, stream));
      CHECK_ACL(aclrtSynchronizeStream(stream));
    };
    call();  // warm-up: first-touch page faults and workspace allocation stay out of the timing
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < options.iters; ++i) call();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / options.iters;

    const aclhost::reference::LayerNormBackwardResult want =
        aclhost::reference::LayerNormBackward(grad_out, input, mean, rstd, weight, rows, cols);
    const aclhost::testing::ErrorSummary errors[3] = {
        aclhost::testing::Compare(grad_input_t.Read(elements), want.grad_input, want.grad_input_magnitude, options.dtype),
        aclhost::testing::Compare(grad_weight_t.Read(static_cast<size_t>(cols)), want.grad_weight,
                                  want.grad_weight_magnitude, options.dtype),
        aclhost::testing::Compare(grad_bias_t.Read(static_cast<size_t>(cols)), want.grad_bias, want.grad_bias_magnitude,
                                  options.dtype)};
    const char *names[3] = {"gradInput", "gradWeight", "gradBias"};

    const double bytes = static_cast<double>(elements) * (2.0 * aclDataTypeSize(options.dtype) + aclDataTypeSize(options.dtype));
    std::printf("aclnn-host layer-norm-backward\n");
    std::printf("  shape        %s, normalized dims %d (M=%lld, N=%lld)\n", ShapeText(options.shape).c_str(),
                options.norm_dims, static_cast<long long>(rows), static_cast<long long>(cols));
    std::printf("  dtype        %s (mean/rstd fp32, weight %s)\n", DtypeName(options.dtype),
                options.weight ? DtypeName(options.dtype) : "NULL");
    const aclhost::kernels::KernelConfig config = aclhost::kernels::CurrentKernelConfig();
    std::printf("  kernel       %s, %d threads (ACLNN_HOST_ISA, ACLNN_HOST_NUM_THREADS)\n",
                aclhost::kernels::IsaName(config.isa), config.threads);
    std::printf("  seed         %llu\n", static_cast<unsigned long long>(options.seed));
    std::printf("  time/call    %.3f ms (mean of %d calls: phase 1 + phase 2 + synchronize)\n", seconds * 1e3, options.iters);
    std::printf("  bandwidth    %.2f GB/s effective\n", bytes / seconds / 1e9);
    bool passed = true;
    for (int k = 0; k < 3; ++k) {
      std::printf("  max error    %-10s %.3g (%.2f of tolerance %.1e)\n", names[k], errors[k].max_abs_error,
                  errors[k].worst_ratio, aclhost::testing::ToleranceFor(options.dtype));
      passed = passed && errors[k].Passed();
    }
    std::printf("%s\n", passed ? "PASS" : "FAIL");
    exit_code = passed ? 0 : 1;

    if (workspace != nullptr) CHECK_ACL(aclrtFree(workspace));
    aclDestroyIntArray(norm);
    aclDestroyBoolArray(mask);
  }
  CHECK_ACL(aclrtDestroyStream(stream));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  return exit_code;
}
