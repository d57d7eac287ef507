// Which bytes two tensor views share: the question behind "an output must not overlap an input,
// another output, or itself". Views are lattices (offset + sum of index * stride), so the answer
// is a bounded integer equation; it is solved exactly, with a work limit for pathological views.
#pragma once

#include "common/export.h"
#include "tensor/tensor.h"

namespace aclhost {

enum class ViewOverlap {
  kDisjoint,   // no byte in common (always so when either view is empty)
  kIdentical,  // element i of one is element i of the other, same element size: in-place use
  kShared,     // some byte is in both, and not as kIdentical
  kUnknown,    // the search hit its work limit; callers treat it as shared
};

ACLHOST_EXPORT ViewOverlap CompareViewMemory(const TensorView &a, const TensorView &b);

// The bytes a view's elements reach, [start, end): none (start == end) for an empty view, at least
// one element's for any other. Byte arithmetic on views can exceed int64 (an address plus a
// reach), hence 128 bits.
struct ByteSpan {
  __int128 start = 0, end = 0;
  bool Empty() const { return start == end; }
};
ACLHOST_EXPORT ByteSpan ViewByteSpan(const TensorView &view);

// CompareViewMemory for views whose byte spans intersect (neither empty): the lattices solved.
ACLHOST_EXPORT ViewOverlap CompareIntersectingViews(const TensorView &a, const TensorView &b);

// CompareViewMemory for views whose spans (ViewByteSpan) the caller took once: an operator
// compares each output with every other operand, and views in separate buffers, the common case,
// are then settled by their spans alone, inline (a call sequence compares about 20 pairs).
inline ViewOverlap CompareViewMemory(const TensorView &a, const ByteSpan &a_span, const TensorView &b,
                                     const ByteSpan &b_span) {
  if (a_span.Empty() || b_span.Empty() || a_span.end <= b_span.start || b_span.end <= a_span.start) {
    return ViewOverlap::kDisjoint;
  }
  return CompareIntersectingViews(a, b);
}

// kShared when two distinct indices of the view reach a common byte (a zero stride over a dim
// larger than 1, or strides that interleave), kDisjoint when none do, kUnknown past the limit.
ACLHOST_EXPORT ViewOverlap CompareViewWithItself(const TensorView &view);

}  // namespace aclhost
