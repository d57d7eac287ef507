// A row's partial last block (columns not a multiple of 16) is read without a byte past the
// operand's end: operands that end right before a page the process may not touch, on every
// target (AVX-512 reads such a block with one masked load) and both operators, give the bits
// that the same values in ordinary memory give on the scalar target. A read past the end would
// end the test with a fault.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backward_kernel_call.h"
#include "common/float_convert.h"
#include "test_seed.h"

namespace {

using aclhost::kernels::ElementType;
using aclhost::kernels::Isa;

// A copy of `contents` in memory that ends where a page without access begins; data() is nullptr
// when no such page could be mapped.
class GuardedCopy {
 public:
  explicit GuardedCopy(const std::vector<uint8_t> &contents) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    readable_ = (contents.size() + page - 1) / page * page;
    mapped_ = readable_ + page;
    base_ = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) {
      base_ = nullptr;
      return;
    }
    if (mprotect(static_cast<char *>(base_) + readable_, page, PROT_NONE) != 0) return;
    data_ = static_cast<char *>(base_) + readable_ - contents.size();
    std::memcpy(data_, contents.data(), contents.size());
  }
  GuardedCopy(const GuardedCopy &) = delete;
  GuardedCopy &operator=(const GuardedCopy &) = delete;
  ~GuardedCopy() {
    if (base_ != nullptr) munmap(base_, mapped_);
  }
  const void *data() const { return data_; }

 private:
  size_t readable_ = 0, mapped_ = 0;
  void *base_ = nullptr;
  void *data_ = nullptr;
};

struct Shape {
  int64_t rows, cols;
  ElementType type;
};

std::string Describe(const Shape &shape, Isa isa) {
  return std::to_string(shape.rows) + " x " + std::to_string(shape.cols) +
         (shape.type == ElementType::kFloat32 ? " FLOAT" : " BF16") + " on " + aclhost::kernels::IsaName(isa);
}

class PartialBlockTest : public ::testing::TestWithParam<Shape> {
 protected:
  PartialBlockTest()
      : shape_(GetParam()),
        size_(shape_.type == ElementType::kFloat32 ? 4 : 2),
        bytes_(static_cast<size_t>(shape_.rows * shape_.cols) * size_),
        grad_out_(bytes_),
        input_(bytes_),
        mean_(static_cast<size_t>(shape_.rows)),
        rstd_(static_cast<size_t>(shape_.rows)),
        weight_(static_cast<size_t>(shape_.cols)) {
    std::mt19937_64 random(aclhost::testing::TestSeed());
    std::normal_distribution<float> normal;
    auto fill = [&](std::vector<uint8_t> &bytes) {
      for (size_t at = 0; at < bytes.size(); at += size_) {
        const float value = normal(random);
        if (size_ == 4) {
          std::memcpy(&bytes[at], &value, 4);
        } else {
          const uint16_t bits = aclhost::FloatToBf16(value);
          std::memcpy(&bytes[at], &bits, 2);
        }
      }
    };
    fill(grad_out_);
    fill(input_);
    for (float &value : mean_) value = 0.1f * normal(random);
    for (float &value : rstd_) value = 1.0f + 0.1f * normal(random);
    for (float &value : weight_) value = 1.0f + 0.1f * normal(random);
  }

  // gradInput, gradWeight and gradBias bytes from the backward kernel on isa, its gradOut and
  // input in ordinary memory or each right before a guard page.
  std::vector<uint8_t> Backward(Isa isa, bool guarded) {
    std::optional<GuardedCopy> guarded_grad_out, guarded_input;
    const void *grad_out = grad_out_.data(), *input = input_.data();
    if (guarded) {
      grad_out = guarded_grad_out.emplace(grad_out_).data();
      input = guarded_input.emplace(input_).data();
      if (grad_out == nullptr || input == nullptr) return {};
    }
    std::vector<uint8_t> grad_input(bytes_);
    std::vector<float> grad_weight(weight_.size()), grad_bias(weight_.size());
    aclhost::kernels::KernelConfig config;
    config.isa = isa;
    aclhost::testing::RunBackward(aclhost::testing::BackwardArgs(
        shape_.rows, shape_.cols, shape_.type,
        {grad_out, input, mean_.data(), rstd_.data(), weight_.data(), grad_input.data(), grad_weight.data(), grad_bias.data()},
        config));
    const auto *weight_bytes = reinterpret_cast<const uint8_t *>(grad_weight.data());
    const auto *bias_bytes = reinterpret_cast<const uint8_t *>(grad_bias.data());
    grad_input.insert(grad_input.end(), weight_bytes, weight_bytes + grad_weight.size() * 4);
    grad_input.insert(grad_input.end(), bias_bytes, bias_bytes + grad_bias.size() * 4);
    return grad_input;
  }

  // out, mean and rstd bytes from the forward kernel on isa, its input as Backward's.
  std::vector<uint8_t> Forward(Isa isa, bool guarded) {
    std::optional<GuardedCopy> guarded_input;
    const void *input = input_.data();
    if (guarded) {
      input = guarded_input.emplace(input_).data();
      if (input == nullptr) return {};
    }
    std::vector<uint8_t> out(bytes_);
    std::vector<float> mean(mean_.size()), rstd(rstd_.size());
    aclhost::kernels::LayerNormForward(aclhost::testing::ForwardArgs(shape_.rows, shape_.cols, shape_.type, input, weight_.data(),
                                                                     out.data(), mean.data(), rstd.data(), isa));
    const auto *mean_bytes = reinterpret_cast<const uint8_t *>(mean.data());
    const auto *rstd_bytes = reinterpret_cast<const uint8_t *>(rstd.data());
    out.insert(out.end(), mean_bytes, mean_bytes + mean.size() * 4);
    out.insert(out.end(), rstd_bytes, rstd_bytes + rstd.size() * 4);
    return out;
  }

  // run(isa, guarded)'s bytes on every available target, guarded, equal run(scalar, unguarded)'s.
  template <class Run>
  void ExpectGuardedBitsOnEveryTarget(Run run) {
    const std::vector<uint8_t> want = run(Isa::kScalar, false);
    for (Isa isa : {Isa::kScalar, Isa::kSse4, Isa::kAvx2, Isa::kAvx512}) {
      if (!aclhost::kernels::IsaAvailable(isa)) continue;
      const std::vector<uint8_t> got = run(isa, true);
      ASSERT_FALSE(got.empty()) << "no guard page could be mapped";
      EXPECT_TRUE(got == want) << Describe(shape_, isa);
    }
  }

  const Shape shape_;
  const size_t size_, bytes_;
  std::vector<uint8_t> grad_out_, input_;
  std::vector<float> mean_, rstd_, weight_;
};

TEST_P(PartialBlockTest, BackwardReadsNothingPastItsOperands) {
  ExpectGuardedBitsOnEveryTarget([this](Isa isa, bool guarded) { return Backward(isa, guarded); });
}

TEST_P(PartialBlockTest, ForwardReadsNothingPastItsInput) {
  ExpectGuardedBitsOnEveryTarget([this](Isa isa, bool guarded) { return Forward(isa, guarded); });
}

// Rows of 100 FLOAT columns (a last block of 4) and 197 BF16 ones (of 5), 40 of them (operands
// this small go through pass 1 in groups, of 4 rows on AVX-512), and a single row of 1,001 FLOAT
// columns, taken alone, whose last block holds one element.
INSTANTIATE_TEST_SUITE_P(Shapes, PartialBlockTest,
                         ::testing::Values(Shape{40, 100, ElementType::kFloat32}, Shape{40, 197, ElementType::kBFloat16},
                                           Shape{1, 1001, ElementType::kFloat32}));

}  // namespace
