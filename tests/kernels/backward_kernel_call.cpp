#include "backward_kernel_call.h"

#include <cstdlib>
#include <memory>

namespace aclhost {
namespace testing {

kernels::LayerNormBackwardArgs BackwardArgs(int64_t rows, int64_t cols, kernels::ElementType type,
                                            const BackwardOperands &operands, const kernels::KernelConfig &config) {
  kernels::LayerNormBackwardArgs args;
  args.rows = rows;
  args.cols = cols;
  args.data_type = type;
  args.grad_out = operands.grad_out;
  args.input = operands.input;
  args.mean = operands.mean;
  args.rstd = operands.rstd;
  args.weight = operands.weight;
  args.grad_input = operands.grad_input;
  args.grad_weight = operands.grad_weight;
  args.grad_bias = operands.grad_bias;
  args.config = config;
  return args;
}

aclDataType DtypeOf(kernels::ElementType type) {
  switch (type) {
    case kernels::ElementType::kFloat16: return ACL_FLOAT16;
    case kernels::ElementType::kBFloat16: return ACL_BF16;
    default: return ACL_FLOAT;
  }
}

void RunBackward(kernels::LayerNormBackwardArgs args) {
  struct FreeDeleter {
    void operator()(void *memory) const { std::free(memory); }
  };
  const size_t bytes = kernels::LayerNormBackwardScratchBytes(
      args.rows, args.cols, args.data_type, kernels::ElementType::kFloat32,
      args.grad_weight != nullptr || args.grad_bias != nullptr, 0, args.input_columns.batch_rows > 0, args.config);
  // At least one line: aligned_alloc of 0 bytes may return null.
  const std::unique_ptr<void, FreeDeleter> scratch(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64));
  args.scratch = scratch.get();
  kernels::LayerNormBackward(args);
}

kernels::LayerNormArgs ForwardArgs(int64_t rows, int64_t cols, kernels::ElementType type, const void *input, const float *weight,
                                   void *out, float *mean, float *rstd, kernels::Isa isa) {
  kernels::LayerNormArgs args;
  args.rows = rows;
  args.cols = cols;
  args.eps = 1e-5;
  args.input_type = args.out_type = type;
  args.input = input;
  args.weight = weight;
  args.out = out;
  args.mean = mean;
  args.rstd = rstd;
  args.config.isa = isa;
  return args;
}

}  // namespace testing
}  // namespace aclhost
