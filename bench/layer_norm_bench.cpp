// aclnnLayerNorm against this machine's memory bandwidth, measured in the same process: a STREAM
// copy (a[i] = b[i]) with the same thread count, since the forward reads input once and writes
// out once. Every figure is the whole user call sequence: phase 1, phase 2, synchronisation.
//
// Effective bandwidth = (M * N * sizeof(input) + M * N * sizeof(out)) / time.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "kernels/common/kernel_config.h"
#include "bench_case.h"
#include "stream_bandwidth.h"

namespace {

int g_threads = 1;

using aclhost::bench::Layout;

struct Problem {
  std::vector<int64_t> dims;  // normalized over the last dim
  aclDataType dtype;
  Layout layout = Layout::kContiguous;  // input's and out's
};

// Device tensors for one problem (weight and bias in the input's dtype, FLOAT statistics), reused
// by every iteration.
class Fixture {
 public:
  explicit Fixture(const Problem &problem) {
    const int64_t cols = problem.dims.back();
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < problem.dims.size(); ++d) rows *= problem.dims[d];
    std::mt19937_64 random(7);
    std::normal_distribution<double> normal;
    auto values = [&](size_t count, double shift) {
      std::vector<double> out(count);
      for (double &value : out) value = shift + normal(random);
      return out;
    };
    const size_t elements = static_cast<size_t>(rows * cols);
    std::vector<int64_t> stats = problem.dims;
    stats.back() = 1;
    input_ = tensors_.Make(problem.dims, problem.dtype, problem.layout, values(elements, 0.5));
    out_ = tensors_.Make(problem.dims, problem.dtype, problem.layout, std::vector<double>(elements, 0.0));
    weight_ = tensors_.Make({cols}, problem.dtype, Layout::kContiguous, values(static_cast<size_t>(cols), 1.0));
    bias_ = tensors_.Make({cols}, problem.dtype, Layout::kContiguous, values(static_cast<size_t>(cols), 0.0));
    mean_ = tensors_.Make(stats, ACL_FLOAT, Layout::kContiguous, std::vector<double>(static_cast<size_t>(rows), 0.0));
    rstd_ = tensors_.Make(stats, ACL_FLOAT, Layout::kContiguous, std::vector<double>(static_cast<size_t>(rows), 0.0));
    norm_ = aclCreateIntArray(&cols, 1);
    aclrtCreateStream(&stream_);
    effective_bytes_ = aclhost::bench::EffectiveBytes(static_cast<double>(elements), static_cast<double>(aclDataTypeSize(problem.dtype)), true);
  }

  ~Fixture() {
    aclrtSynchronizeStream(stream_);
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
  aclhost::bench::DeviceTensors tensors_;
  aclTensor *input_, *out_, *weight_, *bias_, *mean_, *rstd_;
  aclIntArray *norm_ = nullptr;
  aclrtStream stream_ = nullptr;
  aclhost::bench::GrowingWorkspace workspace_;
  double effective_bytes_ = 0;
};

void RunProblem(benchmark::State &state, Problem problem) {
  Fixture fixture(problem);
  aclhost::bench::TimeAgainst(state, "copy", &aclhost::bench::CopyPass, g_threads, fixture.effective_bytes(),
                              [&] { return fixture.Call(); });
}

void Register(const Problem &problem) {
  std::string name = std::string("LayerNorm/") + aclhost::bench::DtypeName(problem.dtype) + "/";
  for (size_t d = 0; d < problem.dims.size(); ++d) name += (d ? "x" : "") + std::to_string(problem.dims[d]);
  if (problem.layout == Layout::kTransposed) name += "/transposed";
  if (problem.layout == Layout::kSequenceFirst) name += "/sequence_first";
  if (problem.layout == Layout::kHeads) name += "/heads";
  benchmark::RegisterBenchmark(name.c_str(), RunProblem, problem)->UseManualTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  aclInit(nullptr);
  aclrtSetDevice(0);
  const aclhost::kernels::KernelConfig config = aclhost::kernels::CurrentKernelConfig();
  g_threads = config.threads;
  std::printf("kernel %s, %d threads; one pass of a STREAM copy with %d threads runs before every timed call of a case of 8 MiB or more\n",
              aclhost::kernels::IsaName(config.isa), config.threads, config.threads);
  const std::vector<std::vector<int64_t>> shapes = {{8192, 768},  {4096, 4096},  {32768, 1024},
                                                    {262144, 128}, {1024, 32768}, {16384, 5120}};
  for (const aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const auto &shape : shapes) Register({shape, dtype});
  }
  // Transposed views, and LayerNorm over the channels of NCHW memory seen as [N, H*W, C].
  Register({{8192, 768}, ACL_FLOAT, Layout::kTransposed});
  Register({{4096, 4096}, ACL_BF16, Layout::kTransposed});
  Register({{32, 3136, 128}, ACL_FLOAT});
  Register({{32, 3136, 128}, ACL_FLOAT, Layout::kTransposed});
  // [B, S, H] activations of a sequence-first model ([S, B, H] memory), against the flat (8192, 768).
  Register({{16, 512, 768}, ACL_FLOAT, Layout::kSequenceFirst});
  Register({{16, 512, 768}, ACL_BF16, Layout::kSequenceFirst});
  // LayerNorm over each of 12 heads of 64 (QK-norm) of a fused projection's queries, against the
  // dense (98304, 64).
  Register({{98304, 64}, ACL_FLOAT});
  Register({{98304, 64}, ACL_BF16});
  Register({{8192, 12, 64}, ACL_FLOAT, Layout::kHeads});
  Register({{8192, 12, 64}, ACL_BF16, Layout::kHeads});
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
