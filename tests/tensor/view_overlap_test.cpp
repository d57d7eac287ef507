// The overlap analysis of strided views, against brute force over every byte of small random views,
// and on the views the operator's users build (column halves, interleaved rows, aliases).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "tensor/view_overlap.h"
#include "test_seed.h"
#include "view_test_support.h"

namespace aclhost {
namespace {

// How many elements of the view cover each byte.
std::map<int64_t, int> ByteCover(const TensorView &view) {
  std::map<int64_t, int> cover;
  const int64_t size = static_cast<int64_t>(aclDataTypeSize(view.dtype));
  for (const int64_t address : ElementAddresses(view)) {
    for (int64_t byte = 0; byte < size; ++byte) ++cover[address + byte];
  }
  return cover;
}

ViewOverlap BruteForce(const TensorView &a, const TensorView &b) {
  const std::map<int64_t, int> cover_a = ByteCover(a);
  bool shared = false;
  for (const auto &entry : ByteCover(b)) shared = shared || cover_a.count(entry.first) > 0;
  if (!shared) return ViewOverlap::kDisjoint;
  const bool identical = aclDataTypeSize(a.dtype) == aclDataTypeSize(b.dtype) && ElementAddresses(a) == ElementAddresses(b);
  return identical ? ViewOverlap::kIdentical : ViewOverlap::kShared;
}

ViewOverlap BruteForceSelf(const TensorView &view) {
  for (const auto &entry : ByteCover(view)) {
    if (entry.second > 1) return ViewOverlap::kShared;
  }
  return ViewOverlap::kDisjoint;
}

TEST(ViewOverlap, MatchesBruteForceOnRandomSmallViews) {
  std::mt19937_64 rng(testing::TestSeed());
  int shared = 0, identical = 0, self_shared = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const TensorView a = RandomView(rng);
    const TensorView b = rng() % 8 == 0 ? a : RandomView(rng);
    const ViewOverlap expected = BruteForce(a, b);
    ASSERT_EQ(CompareViewMemory(a, b), expected) << "trial " << trial;
    ASSERT_EQ(CompareViewMemory(b, a), expected) << "trial " << trial;
    const ViewOverlap expected_self = BruteForceSelf(a);
    ASSERT_EQ(CompareViewWithItself(a), expected_self) << "trial " << trial;
    shared += expected == ViewOverlap::kShared;
    identical += expected == ViewOverlap::kIdentical;
    self_shared += expected_self == ViewOverlap::kShared;
  }
  // The random views exercise every answer often.
  EXPECT_GT(shared, 1000);
  EXPECT_GT(identical, 1000);
  EXPECT_GT(self_shared, 1000);
}

// The bytes from a view's first element to one past its last, which the operators take once per
// operand and compare pairwise before any lattice is built.
TEST(ViewOverlap, ByteSpanReachesFromTheFirstToPastTheLastByte) {
  const TensorView strided = View(ACL_FLOAT16, {3, 4}, {10, 2}, 5);  // elements 5 .. 5 + 20 + 6
  const ByteSpan span = ViewByteSpan(strided);
  const __int128 base = static_cast<__int128>(reinterpret_cast<intptr_t>(strided.data));
  EXPECT_FALSE(span.Empty());
  EXPECT_TRUE(span.start == base + 2 * 5);
  EXPECT_TRUE(span.end == base + 2 * (5 + 2 * 10 + 3 * 2 + 1));
  EXPECT_TRUE(ViewByteSpan(View(ACL_FLOAT, {4, 0}, {1, 1}, 0)).Empty());
  // Spans that meet leave the answer to the lattices; the two forms agree.
  const TensorView other = View(ACL_FLOAT16, {3, 4}, {10, 2}, 6);
  EXPECT_EQ(CompareViewMemory(strided, span, other, ViewByteSpan(other)), ViewOverlap::kDisjoint);
  EXPECT_EQ(CompareViewMemory(strided, other), ViewOverlap::kDisjoint);
}

TEST(ViewOverlap, ColumnHalvesOfOneBufferAreDisjoint) {
  const int64_t rows = 8192, cols = 4096;
  const TensorView left = View(ACL_FLOAT, {rows, cols}, {2 * cols, 1}, 0);
  const TensorView right = View(ACL_FLOAT, {rows, cols}, {2 * cols, 1}, cols);
  EXPECT_EQ(CompareViewMemory(left, right), ViewOverlap::kDisjoint);
  // One more column on the left reaches the right half's first column.
  const TensorView wider = View(ACL_FLOAT, {rows, cols + 1}, {2 * cols, 1}, 0);
  EXPECT_EQ(CompareViewMemory(wider, right), ViewOverlap::kShared);
}

TEST(ViewOverlap, InterleavedElementsAreDisjointUnlessTheirBytesMeet) {
  const int64_t rows = 4096, cols = 1024;
  const TensorView even = View(ACL_FLOAT, {rows, cols}, {2 * cols, 2}, 0);
  const TensorView odd = View(ACL_FLOAT, {rows, cols}, {2 * cols, 2}, 1);
  EXPECT_EQ(CompareViewMemory(even, odd), ViewOverlap::kDisjoint);
  // A FLOAT16 view of the same bytes: its elements at even positions sit inside the FLOATs.
  const TensorView halves = View(ACL_FLOAT16, {rows, cols}, {4 * cols, 4}, 0);
  EXPECT_EQ(CompareViewMemory(odd, halves), ViewOverlap::kDisjoint);
  EXPECT_EQ(CompareViewMemory(even, halves), ViewOverlap::kShared);
}

TEST(ViewOverlap, SameMemoryInAnotherShapeIsIdentical) {
  const TensorView flat = View(ACL_FLOAT, {24}, {1}, 3);
  const TensorView cube = View(ACL_FLOAT, {2, 1, 3, 4}, {12, 99, 4, 1}, 3);
  EXPECT_EQ(CompareViewMemory(flat, cube), ViewOverlap::kIdentical);
  // Same bytes, another element size: not an element-for-element alias.
  const TensorView halves = View(ACL_FLOAT16, {48}, {1}, 6);
  EXPECT_EQ(CompareViewMemory(flat, halves), ViewOverlap::kShared);
  // The same elements in another order (a transpose) share memory but are not in-place safe.
  const TensorView transposed = View(ACL_FLOAT, {4, 6}, {1, 4}, 3);
  EXPECT_EQ(CompareViewMemory(View(ACL_FLOAT, {4, 6}, {6, 1}, 3), transposed), ViewOverlap::kShared);
}

TEST(ViewOverlap, SelfOverlapOfZeroAndInterleavingStrides) {
  EXPECT_EQ(CompareViewWithItself(View(ACL_FLOAT, {4, 8}, {0, 1}, 0)), ViewOverlap::kShared);  // broadcast rows
  EXPECT_EQ(CompareViewWithItself(View(ACL_FLOAT, {1, 8}, {0, 1}, 0)), ViewOverlap::kDisjoint);  // size-1 dim
  EXPECT_EQ(CompareViewWithItself(View(ACL_FLOAT, {3, 3}, {3, 4}, 0)), ViewOverlap::kDisjoint);  // 0,4,8,3,7,11,6,10,14
  EXPECT_EQ(CompareViewWithItself(View(ACL_FLOAT, {3, 3}, {1, 2}, 0)), ViewOverlap::kShared);    // 2 twice
  EXPECT_EQ(CompareViewWithItself(View(ACL_FLOAT, {8192, 4096}, {4096, 1}, 0)), ViewOverlap::kDisjoint);
  EXPECT_EQ(CompareViewWithItself(View(ACL_FLOAT, {8192, 4096}, {4095, 1}, 0)), ViewOverlap::kShared);
}

TEST(ViewOverlap, GivesUpOnPathologicalStridesInsteadOfSearchingForever) {
  // Four pairwise coprime strides near a million, a thousand steps each: no short proof either way.
  const TensorView a = View(ACL_INT8, {1000, 1000}, {1000003, 999983}, 1);
  const TensorView b = View(ACL_INT8, {1000, 1000}, {1000033, 999979}, 0);
  EXPECT_EQ(CompareViewMemory(a, b), ViewOverlap::kUnknown);
}

}  // namespace
}  // namespace aclhost
