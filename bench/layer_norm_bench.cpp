// aclnnLayerNorm against this machine's memory bandwidth, measured in the same process: a STREAM
// copy (a[i] = b[i]) with the same thread count, since the forward reads input once and writes
// out once. Every figure is the whole user call sequence: phase 1, phase 2, synchronisation.
//
// Effective bandwidth = (M * N * sizeof(input) + M * N * sizeof(out)) / time.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "dtype_codec.h"
#include "kernels/common/kernel_config.h"
#include "bench_case.h"
#include "stream_bandwidth.h"

namespace {

int g_threads = 1;

struct Problem {
  std::vector<int64_t> dims;  // normalized over the last dim
  aclDataType dtype;
};

// Dense device tensors for one problem (weight and bias in the input's dtype, FLOAT statistics),
// reused by every iteration.
class Fixture {
 public:
  explicit Fixture(const Problem &problem) {
    const int64_t cols = problem.dims.back();
    const int64_t rows = problem.dims[0];
    std::mt19937_64 random(7);
    std::normal_distribution<double> normal;
    auto values = [&](size_t count, double shift) {
      std::vector<double> out(count);
      for (double &value : out) value = shift + normal(random);
      return out;
    };
    const size_t elements = static_cast<size_t>(rows * cols);
    input_ = Make(problem.dims, problem.dtype, values(elements, 0.5));
    out_ = Make(problem.dims, problem.dtype, std::vector<double>(elements, 0.0));
    weight_ = Make({cols}, problem.dtype, values(static_cast<size_t>(cols), 1.0));
    bias_ = Make({cols}, problem.dtype, values(static_cast<size_t>(cols), 0.0));
    mean_ = Make({rows, 1}, ACL_FLOAT, std::vector<double>(static_cast<size_t>(rows), 0.0));
    rstd_ = Make({rows, 1}, ACL_FLOAT, std::vector<double>(static_cast<size_t>(rows), 0.0));
    norm_ = aclCreateIntArray(&cols, 1);
    aclrtCreateStream(&stream_);
    effective_bytes_ = 2.0 * static_cast<double>(elements) * static_cast<double>(aclDataTypeSize(problem.dtype));
  }

  ~Fixture() {
    aclrtSynchronizeStream(stream_);
    for (auto &tensor : tensors_) {
      aclDestroyTensor(tensor.first);
      aclrtFree(tensor.second);
    }
    aclDestroyIntArray(norm_);
    aclrtDestroyStream(stream_);
  }

  bool Call() {
    uint64_t size = 0;
    aclOpExecutor *executor = nullptr;
    if (aclnnLayerNormGetWorkspaceSize(input_, norm_, weight_, bias_, 1e-5, out_, mean_, rstd_, &size, &executor) != 0) {
      return false;
    }
    return aclnnLayerNorm(workspace_.Get(size), size, executor, stream_) == 0 && aclrtSynchronizeStream(stream_) == ACL_SUCCESS;
  }

  double effective_bytes() const { return effective_bytes_; }

 private:
  aclTensor *Make(std::vector<int64_t> dims, aclDataType dtype, const std::vector<double> &values) {
    const std::vector<uint8_t> bytes = aclhost::testing::Encode(dtype, values);
    void *memory = nullptr;
    aclrtMalloc(&memory, bytes.size(), ACL_MEM_MALLOC_HUGE_FIRST);
    std::memcpy(memory, bytes.data(), bytes.size());  // first touch outside the timing
    const int64_t storage = static_cast<int64_t>(values.size());
    aclTensor *tensor = aclCreateTensor(dims.data(), dims.size(), dtype, nullptr, 0, ACL_FORMAT_ND, &storage, 1, memory);
    tensors_.emplace_back(tensor, memory);
    return tensor;
  }

  std::vector<std::pair<aclTensor *, void *>> tensors_;
  aclTensor *input_, *out_, *weight_, *bias_, *mean_, *rstd_;
  aclIntArray *norm_ = nullptr;
  aclrtStream stream_ = nullptr;
  aclhost::bench::GrowingWorkspace workspace_;
  double effective_bytes_ = 0;
};

void RunProblem(benchmark::State &state, Problem problem) {
  Fixture fixture(problem);
  aclhost::bench::TimeAgainst(state, "copy", &aclhost::bench::MeasureCopy, g_threads, fixture.effective_bytes(),
                              [&] { return fixture.Call(); });
}

}  // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  aclInit(nullptr);
  aclrtSetDevice(0);
  const aclhost::kernels::KernelConfig config = aclhost::kernels::CurrentKernelConfig();
  g_threads = config.threads;
  std::printf("kernel %s, %d threads; a STREAM copy with %d threads is measured before and after every case\n",
              aclhost::kernels::IsaName(config.isa), config.threads, config.threads);
  const std::vector<std::vector<int64_t>> shapes = {{8192, 768},  {4096, 4096},  {32768, 1024},
                                                    {262144, 128}, {1024, 32768}, {16384, 5120}};
  for (const aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const auto &shape : shapes) {
      const std::string name = std::string("LayerNorm/") + aclhost::bench::DtypeName(dtype) + "/" + std::to_string(shape[0]) + "x" +
                               std::to_string(shape[1]);
      benchmark::RegisterBenchmark(name.c_str(), RunProblem, Problem{shape, dtype})
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
