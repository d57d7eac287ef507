// aclnnLayerNormBackward against this machine's memory bandwidth, measured in the same process:
// a STREAM triad (a[i] = b[i] + s * c[i]) with the same thread count. Every figure is the whole
// user call sequence: phase 1, phase 2 and aclrtSynchronizeStream.
//
// Effective bandwidth = (2 * M * N * sizeof(input) + M * N * sizeof(gradInput)) / time.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "kernels/common/kernel_config.h"
#include "kernels/layer_norm_backward/layer_norm_backward_kernel.h"
#include "bench_case.h"
#include "column_runs_floor.h"
#include "stream_bandwidth.h"

namespace {

int g_threads = 1;
aclhost::kernels::KernelConfig g_config;  // set in main

using aclhost::bench::Layout;

struct Problem {
  std::vector<int64_t> dims;
  size_t norm_dims;
  aclDataType dtype;
  Layout layout = Layout::kContiguous;
  // Phase 1 once, outside the timing, for an executor made repeatable; each timed call is then
  // phase 2 and the synchronisation (what a program that repeats a small call can do).
  bool repeatable_executor = false;
};

// Device buffers and descriptors for one problem, reused by every iteration.
class Fixture {
 public:
  explicit Fixture(const Problem &problem) : repeatable_(problem.repeatable_executor) {
    const size_t begin = problem.dims.size() - problem.norm_dims;
    for (size_t d = 0; d < problem.dims.size(); ++d) (d < begin ? rows_ : cols_) *= problem.dims[d];
    normalized_.assign(problem.dims.begin() + static_cast<std::ptrdiff_t>(begin), problem.dims.end());
    std::vector<int64_t> stats(problem.dims.begin(), problem.dims.begin() + static_cast<std::ptrdiff_t>(begin));
    stats.resize(problem.dims.size(), 1);
    std::mt19937_64 random(7);
    std::normal_distribution<double> normal;
    auto values = [&](size_t count, double shift) {
      std::vector<double> out(count);
      for (double &value : out) value = shift + normal(random);
      return out;
    };
    const size_t elements = static_cast<size_t>(rows_ * cols_);
    grad_out_ = tensors_.Make(problem.dims, problem.dtype, problem.layout, values(elements, 0.0));
    input_ = tensors_.Make(problem.dims, problem.dtype, problem.layout, values(elements, 0.5));
    grad_input_ = tensors_.Make(problem.dims, problem.dtype, problem.layout, std::vector<double>(elements, 0.0));
    mean_ = tensors_.Make(stats, ACL_FLOAT, Layout::kContiguous, std::vector<double>(static_cast<size_t>(rows_), 0.5));
    rstd_ = tensors_.Make(stats, ACL_FLOAT, Layout::kContiguous, std::vector<double>(static_cast<size_t>(rows_), 1.0));
    weight_ = tensors_.Make(normalized_, problem.dtype, Layout::kContiguous, values(static_cast<size_t>(cols_), 1.0));
    grad_weight_ = tensors_.Make(normalized_, problem.dtype, Layout::kContiguous, std::vector<double>(static_cast<size_t>(cols_), 0.0));
    grad_bias_ = tensors_.Make(normalized_, problem.dtype, Layout::kContiguous, std::vector<double>(static_cast<size_t>(cols_), 0.0));
    norm_ = aclCreateIntArray(normalized_.data(), normalized_.size());
    const bool mask[3] = {true, true, true};
    mask_ = aclCreateBoolArray(mask, 3);
    aclrtCreateStream(&stream_);
    effective_bytes_ = aclhost::bench::EffectiveBytes(static_cast<double>(elements), static_cast<double>(aclDataTypeSize(problem.dtype)), false);
  }

  ~Fixture() {
    aclrtSynchronizeStream(stream_);
    if (executor_ != nullptr) aclDestroyAclOpExecutor(executor_);
    aclDestroyIntArray(norm_);
    aclDestroyBoolArray(mask_);
    aclrtDestroyStream(stream_);
  }

  // The whole user sequence: phase 1, phase 2, synchronise; with a repeatable executor, phase 1
  // at the first call only.
  bool Call() {
    uint64_t size = executor_size_;
    aclOpExecutor *executor = executor_;
    if (executor == nullptr) {
      if (aclnnLayerNormBackwardGetWorkspaceSize(grad_out_, input_, norm_, mean_, rstd_, weight_, nullptr, mask_, grad_input_,
                                                 grad_weight_, grad_bias_, &size, &executor) != 0) {
        return false;
      }
      if (repeatable_) {
        if (aclSetAclOpExecutorRepeatable(executor) != 0) return false;
        executor_ = executor;
        executor_size_ = size;
      }
    }
    return aclnnLayerNormBackward(workspace_.Get(size), size, executor, stream_) == 0 && aclrtSynchronizeStream(stream_) == ACL_SUCCESS;
  }

  double effective_bytes() const { return effective_bytes_; }

 private:
  int64_t rows_ = 1, cols_ = 1;
  std::vector<int64_t> normalized_;
  aclhost::bench::DeviceTensors tensors_;
  aclTensor *grad_out_, *input_, *grad_input_, *mean_, *rstd_, *weight_, *grad_weight_, *grad_bias_;
  aclIntArray *norm_ = nullptr;
  aclBoolArray *mask_ = nullptr;
  aclrtStream stream_ = nullptr;
  aclhost::bench::GrowingWorkspace workspace_;
  double effective_bytes_ = 0;
  const bool repeatable_;
  aclOpExecutor *executor_ = nullptr;  // the repeatable executor, once made
  uint64_t executor_size_ = 0;
};

void RunProblem(benchmark::State &state, Problem problem) {
  Fixture fixture(problem);
  aclhost::bench::TimeAgainst(state, "triad", &aclhost::bench::TriadPass, g_threads, fixture.effective_bytes(),
                              [&] { return fixture.Call(); });
}

// A view against its dense case, call by call: each iteration calls both, in alternating order,
// each from cold caches as TimeAgainst's calls (TimeCall, after a triad pass), then takes a
// cross-core round trip, so that the two share the machine's state of those milliseconds (on the
// Zen 5 VM the dense cases run a third faster with the vCPUs apart and the transposed views do
// not, and cases run seconds apart could meet different states). The benchmark's time is the
// view's. Reports the medians of both ("view_us", "dense_us"), "x_dense", the median over the
// pairs of the dense call's time over the view's (the view's share of the dense speed; the
// performance issue asks 0.5), and with two threads or more the same over the pairs in each
// state, "x_dense_together" and "x_dense_apart" (0: no pair), "pairs_apart" and "xcore_ns".
void RunViewAgainstDense(benchmark::State &state, Problem view) {
  Problem dense = view;
  dense.layout = Layout::kContiguous;
  Fixture dense_fixture(dense), view_fixture(view);
  Fixture *const fixtures[2] = {&dense_fixture, &view_fixture};
  if (!dense_fixture.Call() || !view_fixture.Call()) {  // the first calls size the workspaces
    state.SkipWithError("the operator failed");
    return;
  }
  using aclhost::bench::CoreState;
  std::vector<double> seconds[2], ratios, ratios_together, ratios_apart, round_trips;  // seconds: dense, view
  for (auto _ : state) {
    double elapsed[2] = {0, 0}, triad_rate = 0;
    const bool dense_first = ratios.size() % 2 == 0;  // the order alternates pair by pair
    for (int turn = 0; turn < 2; ++turn) {
      const int side = dense_first ? turn : 1 - turn;
      const std::optional<double> timed =
          aclhost::bench::TimeCall([&] { return fixtures[side]->Call(); }, true, &aclhost::bench::TriadPass, g_threads, &triad_rate);
      if (!timed) {
        state.SkipWithError("the operator failed");
        return;
      }
      elapsed[side] = *timed;
    }
    state.SetIterationTime(elapsed[1]);
    for (int side = 0; side < 2; ++side) seconds[side].push_back(elapsed[side]);
    const double ratio = elapsed[0] / elapsed[1];
    ratios.push_back(ratio);
    const double round_trip_ns = aclhost::bench::CoreRoundTripNs(g_threads);
    round_trips.push_back(round_trip_ns);
    const CoreState core_state = aclhost::bench::CoreStateOf(round_trip_ns);
    if (core_state == CoreState::kTogether) ratios_together.push_back(ratio);
    if (core_state == CoreState::kApart) ratios_apart.push_back(ratio);
  }
  if (ratios.empty()) return;
  using aclhost::bench::Median;
  state.counters["dense_us"] = Median(seconds[0]) * 1e6;
  state.counters["view_us"] = Median(seconds[1]) * 1e6;
  state.counters["x_dense"] = Median(ratios);
  if (g_threads < 2) return;
  state.counters["x_dense_together"] = ratios_together.empty() ? 0.0 : Median(ratios_together);
  state.counters["x_dense_apart"] = ratios_apart.empty() ? 0.0 : Median(ratios_apart);
  state.counters["pairs_apart"] = static_cast<double>(ratios_apart.size());
  state.counters["xcore_ns"] = Median(round_trips);
}

std::string Name(const Problem &problem) {
  std::string name = "LayerNormBackward/";
  name += aclhost::bench::DtypeName(problem.dtype);
  name += "/";
  for (size_t d = 0; d < problem.dims.size(); ++d) name += (d ? "x" : "") + std::to_string(problem.dims[d]);
  if (problem.norm_dims > 1) name += "/norm" + std::to_string(problem.norm_dims);
  if (problem.layout == Layout::kPaddedRows) name += "/padded_rows";
  if (problem.layout == Layout::kTransposed) name += "/transposed";
  if (problem.layout == Layout::kSequenceFirst) name += "/sequence_first";
  if (problem.layout == Layout::kHeads) name += "/heads";
  if (problem.repeatable_executor) name += "/repeatable_executor";
  return name;
}

void Register(const Problem &problem) {
  benchmark::RegisterBenchmark(Name(problem).c_str(), RunProblem, problem)->UseManualTime()->Unit(benchmark::kMicrosecond);
}

// 60 pairs: a few seconds a case, so that a state that lasts tens of seconds gives several pairs.
void RegisterViewAgainstDense(const Problem &view) {
  const std::string name = "ViewAgainstDense" + Name(view).substr(std::string("LayerNormBackward").size());
  benchmark::RegisterBenchmark(name.c_str(), RunViewAgainstDense, view)->UseManualTime()->Iterations(60)->Unit(benchmark::kMicrosecond);
}

// Memory floors of (rows, cols) (bench/column_runs_floor.h): its operands' bytes moved without
// arithmetic in one dense pass, and in two passes as the operator takes them: over column runs in
// the blocks of rows the columns path takes on this CPU (the transposed case), or over groups of
// long rows (long_row_group rows: the operator's groups of long rows on AVX-512, 4 FLOAT rows of
// 16 KiB, 2 of 128 KiB, 2 BF16 rows of 64 KiB on Zen 5) in one of three orders: one row after another; a line of each row at a
// time (groups of 4 rows' pass 1); and pass 1 in tiles of 4 lines of a row (kPass1TileBlocks),
// pass 2 a line of each row at a time (the operator's order for groups of 2). docs/PERFORMANCE.md
// (twenty-fifth to twenty-seventh sessions) compares them.
using aclhost::bench::FloorOperands;
enum class Floor { kDense, kTwoPassColumns, kTwoPassWholeColumns, kTwoPassRows, kTwoPassRowsByLines, kTwoPassRowsByTiles };
constexpr int64_t kLine = FloorOperands::kLineBytes, kPass1TileBytes = 4 * kLine;

void RegisterFloors(int64_t rows, int64_t cols, aclDataType dtype, std::initializer_list<Floor> floors, int64_t long_row_group = 0) {
  const std::string shape = std::string(aclhost::bench::DtypeName(dtype)) + "/" + std::to_string(rows) + "x" + std::to_string(cols);
  using aclhost::kernels::ElementType;
  const ElementType type =
      dtype == ACL_FLOAT ? ElementType::kFloat32 : dtype == ACL_FLOAT16 ? ElementType::kFloat16 : ElementType::kBFloat16;
  const int64_t column_block_rows = aclhost::kernels::LayerNormBackwardColumnBlockRows(g_config, rows, cols, type);
  for (const Floor floor : floors) {
    static const char *const kNames[] = {"/dense",         "/two_pass_columns",       "/two_pass_whole_columns",
                                         "/two_pass_rows", "/two_pass_rows_by_lines", "/two_pass_rows_by_tiles"};
    const std::string name = "MemoryFloor/" + shape + kNames[static_cast<int>(floor)];
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State &state) {
      FloorOperands operands(rows, cols, aclDataTypeSize(dtype));
      aclhost::bench::TimeAgainst(state, "triad", &aclhost::bench::TriadPass, g_threads, operands.effective_bytes(), [&] {
        switch (floor) {
          case Floor::kDense: operands.DensePass(g_threads); break;
          case Floor::kTwoPassColumns: operands.TwoPassColumns(g_threads, column_block_rows); break;
          case Floor::kTwoPassWholeColumns: operands.TwoPassWholeColumns(g_threads); break;
          case Floor::kTwoPassRows: operands.TwoPassRows(g_threads, long_row_group, FloorOperands::kWholeRow, FloorOperands::kWholeRow); break;
          case Floor::kTwoPassRowsByLines: operands.TwoPassRows(g_threads, long_row_group, kLine, kLine); break;
          case Floor::kTwoPassRowsByTiles: operands.TwoPassRows(g_threads, long_row_group, kPass1TileBytes, kLine); break;
        }
        return true;
      });
    })->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  aclInit(nullptr);
  aclrtSetDevice(0);
  g_config = aclhost::kernels::CurrentKernelConfig();
  g_threads = g_config.threads;
  std::printf("kernel %s, %d threads; one pass of a STREAM triad with %d threads runs before every timed call of a case of 8 MiB or more\n",
              aclhost::kernels::IsaName(g_config.isa), g_config.threads, g_config.threads);
  benchmark::AddCustomContext("kernel", aclhost::kernels::IsaName(g_config.isa));
  benchmark::AddCustomContext("threads", std::to_string(g_config.threads));

  const std::vector<std::vector<int64_t>> shapes = {{8192, 768},  {4096, 4096},  {32768, 1024},
                                                    {262144, 128}, {1024, 32768}, {16384, 5120}};
  for (const aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const auto &shape : shapes) Register({shape, 1, dtype});
  }
  // Several normalized dims against the same flat shape; strided and transposed views.
  Register({{64, 56, 56, 128}, 3, ACL_FLOAT});
  Register({{64, 401408}, 1, ACL_FLOAT});
  Register({{8192, 768}, 1, ACL_FLOAT, Layout::kPaddedRows});
  Register({{8192, 768}, 1, ACL_FLOAT, Layout::kTransposed});
  Register({{4096, 4096}, 1, ACL_BF16, Layout::kTransposed});
  RegisterFloors(8192, 768, ACL_FLOAT, {Floor::kDense, Floor::kTwoPassColumns, Floor::kTwoPassWholeColumns});
  RegisterFloors(4096, 4096, ACL_BF16, {Floor::kDense, Floor::kTwoPassColumns, Floor::kTwoPassWholeColumns});
  // Long FLOAT rows against their two-pass floors, in the operator's groups.
  RegisterFloors(4096, 4096, ACL_FLOAT, {Floor::kDense, Floor::kTwoPassRows, Floor::kTwoPassRowsByLines}, 4);
  RegisterFloors(1024, 32768, ACL_FLOAT, {Floor::kTwoPassRows, Floor::kTwoPassRowsByLines, Floor::kTwoPassRowsByTiles}, 2);
  // 16-bit long rows, in the same groups (Zen 5's; a line of each row at a time is their operator's
  // order: pass 1 takes a block, half a line, of each row at a time).
  RegisterFloors(1024, 32768, ACL_BF16, {Floor::kTwoPassRows, Floor::kTwoPassRowsByLines}, 2);
  // Rows whose byte length is no multiple of 64, which begin at every offset of a cache line in turn.
  Register({{16384, 1000}, 1, ACL_FLOAT});
  Register({{16384, 1000}, 1, ACL_FLOAT16});
  // LayerNorm over the channels of NCHW memory seen as [N, H*W, C]: 32 batches of transposed rows.
  Register({{32, 3136, 128}, 1, ACL_FLOAT});
  Register({{32, 3136, 128}, 1, ACL_FLOAT, Layout::kTransposed});
  // [B, S, H] activations of a sequence-first model ([S, B, H] memory), against the flat (8192, 768).
  Register({{16, 512, 768}, 1, ACL_FLOAT, Layout::kSequenceFirst});
  Register({{16, 512, 768}, 1, ACL_BF16, Layout::kSequenceFirst});
  // The transposed views and their dense cases call by call, in the same state of the machine.
  RegisterViewAgainstDense({{8192, 768}, 1, ACL_FLOAT, Layout::kTransposed});
  RegisterViewAgainstDense({{4096, 4096}, 1, ACL_BF16, Layout::kTransposed});
  RegisterViewAgainstDense({{32, 3136, 128}, 1, ACL_FLOAT, Layout::kTransposed});
  // LayerNorm over each of 12 heads of 64 (QK-norm) of a fused projection's queries, against the
  // dense (98304, 64).
  Register({{98304, 64}, 1, ACL_FLOAT});
  Register({{98304, 64}, 1, ACL_BF16});
  Register({{8192, 12, 64}, 1, ACL_FLOAT, Layout::kHeads});
  Register({{8192, 12, 64}, 1, ACL_BF16, Layout::kHeads});
  // Calls of a few MiB an operand, from cold caches: short rows taken one at a time, not in the
  // groups of calls in cache (from memory those ran at half the speed; thirty-fifth session).
  Register({{2048, 512}, 1, ACL_FLOAT});
  Register({{2048, 768}, 1, ACL_BF16});
  // Small calls, where the fixed cost of a call is all there is.
  Register({{64, 256}, 1, ACL_FLOAT});
  Register({{1, 1024}, 1, ACL_FLOAT});
  Register({{64, 256}, 1, ACL_FLOAT, Layout::kContiguous, true});
  Register({{1, 1024}, 1, ACL_FLOAT, Layout::kContiguous, true});

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
