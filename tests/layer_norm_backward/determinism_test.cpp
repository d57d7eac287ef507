// The bits of every output are the same for every SIMD target (ACLNN_HOST_ISA) and every thread
// count (ACLNN_HOST_NUM_THREADS, 1 to 8): the reduction order is a function of the shape alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "call_spec.h"

namespace lnb_test {
namespace {

struct DeterminismCase {
  const char *name;
  std::vector<int64_t> dims;
  size_t norm_dims;
  aclDataType data;
  aclDataType grad_input;
  bool weight;
  bool wants_grad_input = true;  // false: outputMask {false, true, true}, gradInputOut NULL
  int most_threads = 8;          // fewer for the largest cases, whose calls take long on scalar
};

// Runs the call once under the given environment and returns the three outputs' bytes.
std::vector<std::vector<uint8_t>> RunUnder(const CallSpec &spec, const char *isa, int threads, aclrtStream stream) {
  setenv("ACLNN_HOST_ISA", isa, 1);
  setenv("ACLNN_HOST_NUM_THREADS", std::to_string(threads).c_str(), 1);
  BuiltCall call(spec, 99);
  uint64_t size = 0;
  aclOpExecutor *executor = nullptr;
  EXPECT_EQ(call.GetWorkspaceSize(&size, &executor), 0) << aclGetRecentErrMsg();
  void *workspace = nullptr;
  if (size > 0) {
    EXPECT_EQ(aclrtMalloc(&workspace, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  EXPECT_EQ(aclnnLayerNormBackward(workspace, size, executor, stream), 0);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  unsetenv("ACLNN_HOST_ISA");
  unsetenv("ACLNN_HOST_NUM_THREADS");
  return call.OutputBytes();
}

class DeterminismTest : public ::testing::TestWithParam<DeterminismCase> {};

TEST_P(DeterminismTest, SameBitsForEveryIsaAndThreadCount) {
  const DeterminismCase &c = GetParam();
  CallSpec spec;
  const size_t begin = c.dims.size() - c.norm_dims;
  const std::vector<int64_t> normalized(c.dims.begin() + static_cast<std::ptrdiff_t>(begin), c.dims.end());
  std::vector<int64_t> stats(c.dims.begin(), c.dims.begin() + static_cast<std::ptrdiff_t>(begin));
  stats.resize(c.dims.size(), 1);
  spec.grad_out.dims = spec.input.dims = spec.grad_input.dims = c.dims;
  spec.mean.dims = spec.rstd.dims = stats;
  spec.weight.dims = spec.bias.dims = spec.grad_weight.dims = spec.grad_bias.dims = normalized;
  spec.normalized_shape = normalized;
  spec.SetDataDtype(c.data);
  spec.grad_input.dtype = c.grad_input;
  spec.weight.present = c.weight;
  spec.output_mask[0] = spec.grad_input.present = c.wants_grad_input;
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  const auto reference = RunUnder(spec, "scalar", 1, stream);
  for (const char *isa : {"scalar", "sse4", "avx2", "avx512"}) {
    for (int threads = 1; threads <= c.most_threads; ++threads) {
      EXPECT_EQ(RunUnder(spec, isa, threads, stream), reference) << "ACLNN_HOST_ISA=" << isa
                                                                 << " ACLNN_HOST_NUM_THREADS=" << threads;
    }
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// Shapes with many row chunks (so that threads share work) and ragged row lengths.
INSTANTIATE_TEST_SUITE_P(
    Shapes, DeterminismTest,
    // Short rows: of a call whose row operands fit in cache (512 KiB), grouped in pass 1 (4 rows
    // on AVX-512, 2 on AVX2; 16-bit rows of more than 512 columns 2 on AVX-512 as well, so that
    // they keep theirs for pass 2), 3 and 1 left alone at the end; of larger calls, one at a time.
    ::testing::Values(DeterminismCase{"float_cached_row_groups", {163, 256}, 1, ACL_FLOAT, ACL_FLOAT, true},
                      DeterminismCase{"bf16_cached_row_pairs", {121, 700}, 1, ACL_BF16, ACL_BF16, true},
                      DeterminismCase{"float_1024x256", {1024, 256}, 1, ACL_FLOAT, ACL_FLOAT, true},
                      DeterminismCase{"half_300x1031", {300, 1031}, 1, ACL_FLOAT16, ACL_FLOAT16, true},
                      DeterminismCase{"bf16_3d_no_weight", {4, 130, 515}, 1, ACL_BF16, ACL_BF16, false},
                      DeterminismCase{"bf16_to_float_two_dims", {520, 3, 97}, 2, ACL_BF16, ACL_FLOAT, true},
                      DeterminismCase{"float_ragged_small", {77, 13}, 1, ACL_FLOAT, ACL_BF16, true},
                      // Rows of five segments, which threads share (up to 2 threads); of nine
                      // segments, the last of 17 columns (up to 4 threads, 2 to 3 segments each);
                      // without gradInput, only the sums of the segments of each row; in two
                      // chunks, whole chunks for 1 and 2 threads, shared by 3 (rows of 3 x 32768
                      // columns and more, which 3 threads may share).
                      DeterminismCase{"float_long_rows", {3, 70001}, 1, ACL_FLOAT, ACL_FLOAT, true},
                      DeterminismCase{"float_long_rows_four_threads", {3, 131089}, 1, ACL_FLOAT, ACL_FLOAT, true},
                      DeterminismCase{"bf16_long_rows_without_grad_input", {5, 70001}, 1, ACL_BF16, ACL_BF16, true, false},
                      DeterminismCase{"bf16_long_rows_two_chunks", {65, 98320}, 1, ACL_BF16, ACL_BF16, true, true, 3},
                      DeterminismCase{"half_long_rows_two_dims", {2, 4, 20000}, 2, ACL_FLOAT16, ACL_FLOAT16, false},
                      // Rows too long for L1, run through pass 1 in groups (targets group
                      // differently); 11 rows in the last chunk, a ragged last block.
                      DeterminismCase{"bf16_row_groups", {203, 2051}, 1, ACL_BF16, ACL_BF16, true},
                      // FLOAT rows of 117 and 195 KiB: pass 1 takes them 2 at a time (on
                      // AVX-512, whose groups of 4 would exceed LongRowGroupBytes) and one at a
                      // time; FLOAT16 rows of 59 KiB 2 at a time; one row at the end.
                      DeterminismCase{"float_long_row_pairs", {7, 30000}, 1, ACL_FLOAT, ACL_FLOAT, true},
                      DeterminismCase{"float_long_rows_one_at_a_time", {5, 50000}, 1, ACL_FLOAT, ACL_FLOAT, true},
                      DeterminismCase{"half_long_row_pairs", {9, 30000}, 1, ACL_FLOAT16, ACL_FLOAT16, true},
                      // Short 16-bit rows, grouped as well; 7 rows in the last chunk.
                      DeterminismCase{"half_short_row_groups", {1031, 200}, 1, ACL_FLOAT16, ACL_FLOAT16, true},
                      // Over 8 MiB of gradInput: written with non-temporal stores (16-bit values
                      // with normal ones on SSE4, whose vectors of them are too short to stream).
                      DeterminismCase{"float_streamed_output", {1024, 2304}, 1, ACL_FLOAT, ACL_FLOAT, true},
                      DeterminismCase{"half_streamed_output", {2048, 2304}, 1, ACL_FLOAT16, ACL_FLOAT16, true, true, 2},
                      DeterminismCase{"bf16_streamed_output", {2048, 2304}, 1, ACL_BF16, ACL_BF16, true, true, 2}),
    [](const ::testing::TestParamInfo<DeterminismCase> &info) { return std::string(info.param.name); });

}  // namespace
}  // namespace lnb_test
