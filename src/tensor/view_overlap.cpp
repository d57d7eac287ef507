#include "tensor/view_overlap.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "acl/acl_base.h"

namespace aclhost {
namespace {

// Byte arithmetic on two views can exceed int64 (two addresses plus two reaches).
using Wide = __int128;

// Search nodes per equation before giving up; real views need a few dozen.
constexpr int64_t kWorkLimit = int64_t{1} << 20;

struct Term {
  Wide coefficient;
  Wide bound;  // the unknown ranges over [0, bound]
};

enum class Solution { kNone, kFound, kTooHard };

Wide Gcd(Wide a, Wide b) {
  while (b != 0) a = std::exchange(b, a % b);
  return a;
}

// Does sum(coefficient_k * z_k) == target have a solution with 0 <= z_k <= bound_k?
// Depth-first over the largest coefficients first, pruned by what the remaining terms can reach
// and by their gcd.
class BoundedEquation {
 public:
  explicit BoundedEquation(std::vector<Term> terms) {
    std::sort(terms.begin(), terms.end(), [](const Term &x, const Term &y) { return x.coefficient > y.coefficient; });
    for (const Term &term : terms) {
      if (term.coefficient == 0 || term.bound == 0) continue;  // contributes nothing
      if (!terms_.empty() && terms_.back().coefficient == term.coefficient) {
        terms_.back().bound += term.bound;  // z1 + z2 covers [0, b1 + b2]
      } else {
        terms_.push_back(term);
      }
    }
    reach_.assign(terms_.size() + 1, 0);
    gcd_.assign(terms_.size() + 1, 0);
    for (size_t k = terms_.size(); k-- > 0;) {
      reach_[k] = reach_[k + 1] + terms_[k].coefficient * terms_[k].bound;
      gcd_[k] = Gcd(terms_[k].coefficient, gcd_[k + 1]);
    }
  }

  Solution Solve(Wide target) {
    work_ = 0;
    return Search(0, target);
  }

 private:
  Solution Search(size_t k, Wide target) {
    if (++work_ > kWorkLimit) return Solution::kTooHard;
    if (target == 0) return Solution::kFound;
    if (target < 0 || k == terms_.size() || target > reach_[k] || target % gcd_[k] != 0) return Solution::kNone;
    const Term &term = terms_[k];
    const Wide shortfall = target - reach_[k + 1];  // what this term must cover at least
    const Wide low = shortfall <= 0 ? 0 : (shortfall + term.coefficient - 1) / term.coefficient;
    const Wide high = std::min(term.bound, target / term.coefficient);
    for (Wide z = high; z >= low; --z) {
      const Solution found = Search(k + 1, target - term.coefficient * z);
      if (found != Solution::kNone) return found;
    }
    return Solution::kNone;
  }

  std::vector<Term> terms_;
  std::vector<Wide> reach_;  // reach_[k]: the largest sum terms k.. can make
  std::vector<Wide> gcd_;    // gcd_[k]: every sum of terms k.. is a multiple of it
  int64_t work_ = 0;
};

// A view as bytes: the first element's address, the element size, and (size, byte stride) for
// every dim larger than 1, with dims merged where one steps exactly over the next.
struct ByteLattice {
  Wide start;
  Wide element_size;
  std::vector<std::pair<Wide, Wide>> dims;  // (size, byte stride), outermost first
};

ByteLattice ToBytes(const TensorView &view) {
  ByteLattice lattice;
  lattice.element_size = std::max<Wide>(1, static_cast<Wide>(aclDataTypeSize(view.dtype)));
  lattice.start = static_cast<Wide>(reinterpret_cast<intptr_t>(view.FirstElement()));
  for (size_t d = 0; d < view.dims.size(); ++d) {
    if (view.dims[d] == 1) continue;
    const Wide size = view.dims[d];
    const Wide stride = view.strides[d] * lattice.element_size;
    if (!lattice.dims.empty() && lattice.dims.back().second == stride * size) {
      lattice.dims.back() = {lattice.dims.back().first * size, stride};
    } else {
      lattice.dims.emplace_back(size, stride);
    }
  }
  return lattice;
}

ViewOverlap FromSolution(Solution solution) {
  switch (solution) {
    case Solution::kFound: return ViewOverlap::kShared;
    case Solution::kTooHard: return ViewOverlap::kUnknown;
    case Solution::kNone: break;
  }
  return ViewOverlap::kDisjoint;
}

}  // namespace

// Without building the view's lattice: the common case (views in separate buffers) is settled by
// the spans alone, allocation-free. One walk over the dims (this runs for every operand of a call).
ByteSpan ViewByteSpan(const TensorView &view) {
  Wide reach = 0;  // elements past the first, along every dim
  for (size_t d = 0; d < view.dims.size(); ++d) {
    if (view.dims[d] == 0) return {};
    reach += static_cast<Wide>(view.dims[d] - 1) * view.strides[d];
  }
  // FirstElement's address, with the one dtype lookup: calling it (and aclDataTypeSize again, both
  // across libraries) cost phase 1 about 150 instructions of 6,260 (callgrind, (64, 256) FLOAT).
  const int64_t dtype_size = static_cast<int64_t>(aclDataTypeSize(view.dtype));
  ByteSpan span;
  span.start = static_cast<Wide>(reinterpret_cast<intptr_t>(view.data)) + static_cast<Wide>(view.offset) * dtype_size;
  span.end = span.start + (reach + 1) * std::max<int64_t>(1, dtype_size);
  return span;
}

ViewOverlap CompareViewMemory(const TensorView &a, const TensorView &b) {
  return CompareViewMemory(a, ViewByteSpan(a), b, ViewByteSpan(b));
}

ViewOverlap CompareIntersectingViews(const TensorView &a, const TensorView &b) {
  const ByteLattice x = ToBytes(a);
  const ByteLattice y = ToBytes(b);
  if (x.start == y.start && x.element_size == y.element_size && x.dims == y.dims) return ViewOverlap::kIdentical;
  // A byte in both: x.start + sum(i*sx) + p == y.start + sum(j*sy) + q, p < ex, q < ey. With
  // j' = (size - 1) - j and q' = (ey - 1) - q every unknown is non-negative and bounded.
  std::vector<Term> terms{{1, x.element_size - 1}, {1, y.element_size - 1}};
  Wide target = y.start - x.start + y.element_size - 1;
  for (const auto &[size, stride] : x.dims) terms.push_back({stride, size - 1});
  for (const auto &[size, stride] : y.dims) {
    terms.push_back({stride, size - 1});
    target += stride * (size - 1);
  }
  return FromSolution(BoundedEquation(std::move(terms)).Solve(target));
}

ViewOverlap CompareViewWithItself(const TensorView &view) {
  if (view.NumElements() == 0 || view.IsDense()) return ViewOverlap::kDisjoint;  // dense: distinct by construction
  ByteLattice lattice = ToBytes(view);
  std::sort(lattice.dims.begin(), lattice.dims.end(),
            [](const auto &p, const auto &q) { return p.second < q.second; });
  // Two indices differ first (from the largest stride down) in dim k, by d_k >= 1 there and by
  // d_j in [-(size_j - 1), size_j - 1] below; they share a byte when the byte distance is under
  // the element size. Shifting every unknown to start at 0 gives one bounded equation per k.
  bool gave_up = false;
  for (size_t k = 0; k < lattice.dims.size(); ++k) {
    const auto &[size_k, stride_k] = lattice.dims[k];
    std::vector<Term> terms{{stride_k, size_k - 2}, {1, 2 * (lattice.element_size - 1)}};
    Wide target = lattice.element_size - 1 - stride_k;
    for (size_t j = 0; j < k; ++j) {
      const auto &[size_j, stride_j] = lattice.dims[j];
      terms.push_back({stride_j, 2 * (size_j - 1)});
      target += stride_j * (size_j - 1);
    }
    const Solution solution = BoundedEquation(std::move(terms)).Solve(target);
    if (solution == Solution::kFound) return ViewOverlap::kShared;
    gave_up = gave_up || solution == Solution::kTooHard;
  }
  return gave_up ? ViewOverlap::kUnknown : ViewOverlap::kDisjoint;
}

}  // namespace aclhost
