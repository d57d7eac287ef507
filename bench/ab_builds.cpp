// Two builds of the library compared in one process, call by call: each build's libopapi_nn.so is
// loaded with dlmopen into a link-map namespace of its own (its own runtime, OpenMP and C
// library), both work on the same operand buffers and one shared workspace, and their calls
// alternate, the first of each pair alternating too. On a machine whose bandwidth drifts by tens of
// per cent between minutes, alternating whole benchmark runs of two builds compares them at
// different bandwidths; alternating single calls does not.
//
// usage: ab_builds LIBDIR_A LIBDIR_B M N fp32|fp16|bf16 PAIRS [forward]
//                  [transposed|sequence_first|heads [batches=B]] [output_offset=BYTES] [cold|warm]
//   LIBDIR_*: a build's lib64 (build/lib64, or a worktree's of another commit)
//   the row operands (gradOut, input, gradInput; the forward's input and out) are, instead of
//   dense [M, N] tensors:
//   transposed: views with strides [1, M] of [N, M] memory; with batches=B, B batches of such
//   views, [B, M / B, N] with strides [N * M / B, 1, M / B] (NCHW memory normalized over C)
//   sequence_first: [B, M / B, N] with strides [N, B * N, 1], [M / B, B, N] memory seen batch-first
//   heads: [M / B, B, N] with strides [3 * B * N, N, 1], the queries of [M / B, 3, B, N] memory
//   (a fused projection's B heads of N each a token: rows in runs of B, gaps between)
//   output_offset: gradInput (the forward's out) starts BYTES (a multiple of 64) into its block
//   rather than, as the inputs and aclrtMalloc's large blocks, at a 2 MiB boundary: whether a
//   case waits on loads that share the low address bits of its stores (4K aliasing)
//   prints whether the two builds' outputs have the same bits, each build's fastest and median
//   time of the whole user call sequence (phase 1, phase 2, aclrtSynchronizeStream) and in how
//   many pairs B was the faster; with two threads or more, the same split by the state a
//   cross-core round trip after each pair found the machine in (CoreRoundTripNs: the Zen 5 VM's
//   vCPUs on one CCD or on two, which changes a call's time by tens of per cent within seconds).
//   Calls of 8 MiB or more start with their operands out of the caches, as the benchmarks' do
//   (CacheEvictor; until 2026-12-04's twelfth session, every call ran back to back); cold or warm
//   makes every call start cold, or run back to back, whatever its size.
//
// Each build has its own OpenMP thread team, and so does this program (the cache eviction and the
// round trip); OMP_WAIT_POLICY=passive (unless set) keeps one team from spinning on the cores
// while another works (with spinning teams, an A/A run of one build against itself measured the
// second faster in 97 of 100 pairs; passive: 44 of 100). This program's own runtime reads it when
// the program loads: ab_builds sets it and starts itself again.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "common/float_convert.h"
#include "stream_bandwidth.h"
#include "warm_case.h"

namespace {

using aclhost::FloatToBf16;
using aclhost::FloatToHalf;

// Reads twice the last-level cache before each timed call of kWarmCaseBytes or more, so that the
// call finds its operands in memory, as the benchmarks' calls do: back to back, calls whose
// operands fit an L3 (an Intel Xeon VM reports 260 MiB) would read them from there. Clean lines,
// one float a line, the whole array on each of the call's threads: with the Zen 5 VM's vCPUs on
// two CCDs, each has an L3 of its own, which a read on one thread left holding the other thread's
// operands (until the forty-first session: its calls' second thread then found up to 25 MiB of
// them in its L3, and (8192, 768) FLOAT transposed took 2.2 ms where the benchmark's cold calls
// took 2.7).
class CacheEvictor {
 public:
  CacheEvictor() {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    constexpr size_t kLeastBytes = size_t{64} << 20;
    const size_t bytes = std::max(kLeastBytes, l3 > 0 ? 2 * static_cast<size_t>(l3) : size_t{0});
    lines_.assign(bytes / sizeof(float), 1.0f);
  }

  void Run(int threads) {
    float sums = 0.0f;
#pragma omp parallel num_threads(threads) reduction(+ : sums)
    for (size_t i = 0; i < lines_.size(); i += 64 / sizeof(float)) sums += lines_[i];  // not a worksharing loop: every thread reads all
    sink_ = sums;
  }

 private:
  std::vector<float> lines_;
  volatile float sink_ = 0.0f;
};

// The functions of one build, looked up in its namespace.
struct Build {
  const char *dir = nullptr;
  decltype(&aclInit) init;
  decltype(&aclrtSetDevice) set_device;
  decltype(&aclrtCreateStream) create_stream;
  decltype(&aclrtSynchronizeStream) synchronize;
  decltype(&aclCreateTensor) create_tensor;
  decltype(&aclCreateIntArray) create_int_array;
  decltype(&aclCreateBoolArray) create_bool_array;
  decltype(&aclnnLayerNormBackwardGetWorkspaceSize) backward_plan;
  decltype(&aclnnLayerNormBackward) backward_run;
  decltype(&aclnnLayerNormGetWorkspaceSize) forward_plan;
  decltype(&aclnnLayerNorm) forward_run;
};

template <typename Function>
void Find(void *library, const char *name, Function *function) {
  *function = reinterpret_cast<Function>(dlsym(library, name));
  if (*function == nullptr) {
    std::fprintf(stderr, "ab_builds: %s not found: %s\n", name, dlerror());
    std::exit(2);
  }
}

Build Load(const char *dir) {
  const std::string path = std::string(dir) + "/libopapi_nn.so";
  void *library = dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "ab_builds: cannot load %s: %s\n", path.c_str(), dlerror());
    std::exit(2);
  }
  Build build;
  build.dir = dir;
  Find(library, "aclInit", &build.init);
  Find(library, "aclrtSetDevice", &build.set_device);
  Find(library, "aclrtCreateStream", &build.create_stream);
  Find(library, "aclrtSynchronizeStream", &build.synchronize);
  Find(library, "aclCreateTensor", &build.create_tensor);
  Find(library, "aclCreateIntArray", &build.create_int_array);
  Find(library, "aclCreateBoolArray", &build.create_bool_array);
  Find(library, "aclnnLayerNormBackwardGetWorkspaceSize", &build.backward_plan);
  Find(library, "aclnnLayerNormBackward", &build.backward_run);
  Find(library, "aclnnLayerNormGetWorkspaceSize", &build.forward_plan);
  Find(library, "aclnnLayerNorm", &build.forward_run);
  return build;
}

// Zeroed memory on 2 MiB boundaries, on transparent huge pages where the kernel gives them (as
// aclrtMalloc places large blocks), touched here so that no timed call takes its page faults.
void *Allocate(size_t bytes) {
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t size = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void *memory = std::aligned_alloc(kHugePage, size);
  if (memory == nullptr) {
    std::fprintf(stderr, "ab_builds: out of memory\n");
    std::exit(2);
  }
  madvise(memory, size, MADV_HUGEPAGE);
  std::memset(memory, 0, size);
  return memory;
}

// The operands, shared by both builds: the same addresses, so the same cache and page conditions.
struct Operands {
  int64_t rows, cols;
  aclDataType dtype;
  void *grad_out, *input, *grad_input, *mean, *rstd, *weight, *grad_weight, *grad_bias;
  size_t row_bytes, vector_bytes;  // of an operand of M x N elements (times the spread), of N

  // spread: the row operands' memory holds that many times their elements; output_offset: bytes
  // from gradInput's block's start to gradInput.
  Operands(int64_t m, int64_t n, aclDataType type, int64_t spread, size_t output_offset) : rows(m), cols(n), dtype(type) {
    // Not the library's aclDataTypeSize: the library is loaded twice, not linked.
    const size_t size = type == ACL_FLOAT ? 4 : 2, elements = static_cast<size_t>(m * n * spread);
    row_bytes = elements * size;
    vector_bytes = static_cast<size_t>(n) * size;
    grad_out = Allocate(elements * size);
    input = Allocate(elements * size);
    grad_input = static_cast<char *>(Allocate(elements * size + output_offset)) + output_offset;
    mean = Allocate(static_cast<size_t>(m) * sizeof(float));
    rstd = Allocate(static_cast<size_t>(m) * sizeof(float));
    weight = Allocate(static_cast<size_t>(n) * size);
    grad_weight = Allocate(static_cast<size_t>(n) * size);
    grad_bias = Allocate(static_cast<size_t>(n) * size);
    // Finite values that vary (their bits do not change the time; zeros could, through subnormals).
    for (size_t i = 0; i < elements; ++i) {
      Put(grad_out, i, 0.5 + static_cast<double>(i * 7919 % 1000) * 1e-3);
      Put(input, i, 0.2 + static_cast<double>(i * 104729 % 1000) * 1e-3);
    }
    for (int64_t i = 0; i < n; ++i) Put(weight, static_cast<size_t>(i), 1.0 + static_cast<double>(i % 3));
    for (int64_t i = 0; i < m; ++i) {
      static_cast<float *>(mean)[i] = 0.7f;
      static_cast<float *>(rstd)[i] = 1.5f;
    }
  }

  // What a call writes: gradInput (the forward's out), and gradWeight and gradBias, or (forward)
  // mean and rstd, which the backward reads.
  std::vector<std::pair<void *, size_t>> Outputs(bool forward) const {
    const size_t stats_bytes = static_cast<size_t>(rows) * sizeof(float);
    if (forward) return {{grad_input, row_bytes}, {mean, stats_bytes}, {rstd, stats_bytes}};
    return {{grad_input, row_bytes}, {grad_weight, vector_bytes}, {grad_bias, vector_bytes}};
  }

  std::vector<uint8_t> OutputBytes(bool forward) const {
    std::vector<uint8_t> bytes;
    for (const auto &[data, size] : Outputs(forward)) {
      const uint8_t *begin = static_cast<const uint8_t *>(data);
      bytes.insert(bytes.end(), begin, begin + size);
    }
    return bytes;
  }

  // Fills the outputs with all-ones bytes (NaNs), so that one a build leaves unwritten shows.
  void SpoilOutputs(bool forward) const {
    for (const auto &[data, size] : Outputs(forward)) std::memset(data, 0xFF, size);
  }

  // value at element i in dtype.
  void Put(void *data, size_t i, double value) const {
    const float as_float = static_cast<float>(value);
    if (dtype == ACL_FLOAT) {
      static_cast<float *>(data)[i] = as_float;
    } else {
      static_cast<uint16_t *>(data)[i] = dtype == ACL_BF16 ? FloatToBf16(as_float) : FloatToHalf(as_float);
    }
  }
};

// How the row operands are laid out (the usage above).
enum class RowsView { kDense, kTransposed, kSequenceFirst, kHeads };

// The row operands (M x N elements) as a view of three dims, with its strides.
struct ViewShape {
  std::vector<int64_t> dims, strides;
};

ViewShape ShapeOf(RowsView view, int64_t rows, int64_t cols, int64_t batches) {
  const int64_t inner = rows / batches;
  switch (view) {
    case RowsView::kDense: break;
    case RowsView::kTransposed: return {{batches, inner, cols}, {cols * inner, 1, inner}};
    case RowsView::kSequenceFirst: return {{batches, inner, cols}, {cols, batches * cols, 1}};
    case RowsView::kHeads: return {{inner, batches, cols}, {3 * batches * cols, cols, 1}};
  }
  return {{1, rows, cols}, {rows * cols, cols, 1}};
}

// One build's descriptors of the shared operands, its stream and its times.
class Side {
 public:
  Side(const Build &build, const Operands &operands, bool forward, const ViewShape &shape) : build_(build), forward_(forward) {
    build_.init(nullptr);
    build_.set_device(0);
    build_.create_stream(&stream_);
    const std::vector<int64_t> &matrix = shape.dims, &matrix_strides = shape.strides;
    const std::vector<int64_t> stats = {matrix[0], matrix[1], 1}, row = {operands.cols};
    grad_out_ = Tensor(matrix, operands.dtype, operands.grad_out, matrix_strides);
    input_ = Tensor(matrix, operands.dtype, operands.input, matrix_strides);
    grad_input_ = Tensor(matrix, operands.dtype, operands.grad_input, matrix_strides);
    mean_ = Tensor(stats, ACL_FLOAT, operands.mean);
    rstd_ = Tensor(stats, ACL_FLOAT, operands.rstd);
    weight_ = Tensor(row, operands.dtype, operands.weight);
    grad_weight_ = Tensor(row, operands.dtype, operands.grad_weight);
    grad_bias_ = Tensor(row, operands.dtype, operands.grad_bias);
    normalized_ = build_.create_int_array(&operands.cols, 1);
    const bool mask[3] = {true, true, true};
    mask_ = build_.create_bool_array(mask, 3);
  }

  // The whole user sequence once; the workspace is shared by both sides and grows as asked.
  double Call(void **workspace, uint64_t *workspace_size) {
    const auto start = std::chrono::steady_clock::now();
    uint64_t size = 0;
    aclOpExecutor *executor = nullptr;
    // Forward: gradBias's buffer serves as the bias, gradInput's as out.
    const aclnnStatus planned =
        forward_ ? build_.forward_plan(input_, normalized_, weight_, grad_bias_, 1e-5, grad_input_, mean_, rstd_, &size, &executor)
                 : build_.backward_plan(grad_out_, input_, normalized_, mean_, rstd_, weight_, nullptr, mask_, grad_input_,
                                        grad_weight_, grad_bias_, &size, &executor);
    if (planned != 0) Fail("phase 1");
    if (size > *workspace_size) {  // only in the untimed first calls
      std::free(*workspace);
      *workspace = Allocate(size);
      *workspace_size = size;
    }
    const aclnnStatus ran = forward_ ? build_.forward_run(*workspace, size, executor, stream_)
                                     : build_.backward_run(*workspace, size, executor, stream_);
    if (ran != 0 || build_.synchronize(stream_) != ACL_SUCCESS) Fail("phase 2");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  const char *dir() const { return build_.dir; }

 private:
  // strides: empty for a dense tensor.
  aclTensor *Tensor(const std::vector<int64_t> &dims, aclDataType dtype, void *data, const std::vector<int64_t> &strides = {}) {
    int64_t elements = 1;  // the storage the view reaches into
    for (size_t d = 0; d < dims.size(); ++d) elements += strides.empty() ? 0 : (dims[d] - 1) * strides[d];
    if (strides.empty()) {
      for (const int64_t dim : dims) elements *= dim;
    }
    return build_.create_tensor(dims.data(), dims.size(), dtype, strides.empty() ? nullptr : strides.data(), 0, ACL_FORMAT_ND,
                                &elements, 1, data);
  }

  [[noreturn]] void Fail(const char *what) const {
    std::fprintf(stderr, "ab_builds: %s failed in %s\n", what, build_.dir);
    std::exit(2);
  }

  Build build_;
  bool forward_;
  aclrtStream stream_ = nullptr;
  aclTensor *grad_out_, *input_, *grad_input_, *mean_, *rstd_, *weight_, *grad_weight_, *grad_bias_;
  aclIntArray *normalized_;
  aclBoolArray *mask_;
};

// One pair of calls, and the cross-core round trip right after it.
struct Pair {
  double time[2] = {0, 0};
  double round_trip_ns = 0;
};

// Each build's fastest and median time over `pairs`, and in how many of them B was the faster;
// with a state, first its name and the round trips' median.
void Report(const std::vector<Pair> &pairs, const std::array<const char *, 2> &dirs, const char *state) {
  if (*state != '\0') {
    std::vector<double> round_trips;
    for (const Pair &pair : pairs) round_trips.push_back(pair.round_trip_ns);
    std::sort(round_trips.begin(), round_trips.end());
    std::printf("%s, round trip median %.0f ns:\n", state, round_trips[round_trips.size() / 2]);
  }
  for (int side = 0; side < 2; ++side) {
    std::vector<double> times;
    for (const Pair &pair : pairs) times.push_back(pair.time[side]);
    std::sort(times.begin(), times.end());
    std::printf("%s: fastest %.1f us, median %.1f us\n", dirs[side], times.front() * 1e6, times[times.size() / 2] * 1e6);
  }
  const auto b_faster = std::count_if(pairs.begin(), pairs.end(), [](const Pair &pair) { return pair.time[1] < pair.time[0]; });
  std::printf("B faster in %d of %zu pairs\n", static_cast<int>(b_faster), pairs.size());
}

}  // namespace

int main(int argc, char **argv) {
  bool forward = false, known_options = true;
  RowsView view = RowsView::kDense;
  int64_t batches = 1, output_offset = 0;
  int caches = -1;  // 1: every call cold, 0: warm, back to back; -1: by the call's bytes (kWarmCaseBytes)
  for (int arg = 7; arg < argc; ++arg) {
    if (std::strcmp(argv[arg], "forward") == 0) {
      forward = true;
    } else if (std::strcmp(argv[arg], "cold") == 0 || std::strcmp(argv[arg], "warm") == 0) {
      caches = argv[arg][0] == 'c' ? 1 : 0;
    } else if (std::strcmp(argv[arg], "transposed") == 0) {
      view = RowsView::kTransposed;
    } else if (std::strcmp(argv[arg], "sequence_first") == 0) {
      view = RowsView::kSequenceFirst;
    } else if (std::strcmp(argv[arg], "heads") == 0) {
      view = RowsView::kHeads;
    } else if (std::strncmp(argv[arg], "batches=", 8) == 0) {
      batches = std::atoll(argv[arg] + 8);
    } else if (std::strncmp(argv[arg], "output_offset=", 14) == 0) {
      output_offset = std::atoll(argv[arg] + 14);
    } else {
      known_options = false;
    }
  }
  if (argc < 7 || !known_options) {
    std::fprintf(stderr,
                 "usage: ab_builds LIBDIR_A LIBDIR_B M N fp32|fp16|bf16 PAIRS [forward] "
                 "[transposed|sequence_first|heads [batches=B]] [output_offset=BYTES] [cold|warm]\n");
    return 2;
  }
  const int64_t rows = std::atoll(argv[3]), cols = std::atoll(argv[4]);
  const aclDataType dtype = std::strcmp(argv[5], "fp32") == 0   ? ACL_FLOAT
                            : std::strcmp(argv[5], "fp16") == 0 ? ACL_FLOAT16
                            : std::strcmp(argv[5], "bf16") == 0 ? ACL_BF16
                                                                : ACL_DT_UNDEFINED;
  const int pairs = std::atoi(argv[6]);
  if (rows <= 0 || cols <= 0 || dtype == ACL_DT_UNDEFINED || pairs <= 0 || batches <= 0 || rows % batches != 0 ||
      output_offset < 0 || output_offset % 64 != 0) {
    std::fprintf(stderr,
                 "ab_builds: expected positive M, N and PAIRS, a dtype fp32, fp16 or bf16, batches dividing M, and an "
                 "output_offset that is a multiple of 64\n");
    return 2;
  }
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {  // before any OpenMP runtime starts: this program's own at load
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
    std::perror("ab_builds: cannot start itself again with OMP_WAIT_POLICY=passive");  // goes on, its team spinning
  }

  const Operands operands(rows, cols, dtype, view == RowsView::kHeads ? 3 : 1, static_cast<size_t>(output_offset));
  const ViewShape shape = ShapeOf(view, rows, cols, batches);
  Side sides[2] = {Side(Load(argv[1]), operands, forward, shape), Side(Load(argv[2]), operands, forward, shape)};
  void *workspace = nullptr;
  uint64_t workspace_size = 0;
  std::vector<uint8_t> outputs[2];
  for (int side = 0; side < 2; ++side) {  // warm-up, and the workspace sized for both
    operands.SpoilOutputs(forward);
    sides[side].Call(&workspace, &workspace_size);
    sides[side].Call(&workspace, &workspace_size);
    outputs[side] = operands.OutputBytes(forward);
  }
  std::printf("outputs: %s\n", outputs[0] == outputs[1] ? "same bits" : "the bits differ");
  CacheEvictor evictor;
  const double element_bytes = dtype == ACL_FLOAT ? 4.0 : 2.0;
  const bool cold = caches >= 0 ? caches == 1
                                : aclhost::bench::EffectiveBytes(static_cast<double>(rows * cols), element_bytes, forward) >=
                                      aclhost::bench::kWarmCaseBytes;
  const char *const threads_set = std::getenv("ACLNN_HOST_NUM_THREADS");
  const int threads = std::max(1, threads_set != nullptr ? std::atoi(threads_set) : static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<Pair> timed(static_cast<size_t>(pairs));
  for (int pair = 0; pair < pairs; ++pair) {
    for (int turn = 0; turn < 2; ++turn) {
      const int side = pair % 2 == 0 ? turn : 1 - turn;
      if (cold) evictor.Run(threads);
      timed[pair].time[side] = sides[side].Call(&workspace, &workspace_size);
    }
    timed[pair].round_trip_ns = aclhost::bench::CoreRoundTripNs(threads);
  }
  Report(timed, {sides[0].dir(), sides[1].dir()}, "");
  if (threads < 2) return 0;
  using aclhost::bench::CoreState;
  for (const CoreState state : {CoreState::kTogether, CoreState::kApart}) {
    std::vector<Pair> in_state;
    for (const Pair &pair : timed) {
      if (aclhost::bench::CoreStateOf(pair.round_trip_ns) == state) in_state.push_back(pair);
    }
    if (!in_state.empty()) Report(in_state, {sides[0].dir(), sides[1].dir()}, state == CoreState::kApart ? "vCPUs apart" : "vCPUs together");
  }
  return 0;
}
