// Passes over memory with the CPU's widest vectors (Highway dynamic dispatch, as the kernels):
// the column floors' reads and writes (column_runs_floor.cpp) and thread_rates' probes.
#pragma once

#include <cstdint>

namespace aclhost {
namespace bench {

// The XOR of `bytes` (a multiple of 64) of a and b: a read the compiler keeps.
uint64_t ReadBoth(const char *a, const char *b, int64_t bytes);

// out = a XOR b over `bytes` (a multiple of 64), with streaming stores where the target has them.
void WriteFromBoth(const char *a, const char *b, char *out, int64_t bytes);

// Nanoseconds per vector multiply-add over `rounds` rounds of 12 independent chains of float
// multiply-adds (the target's FMA where it has one): the arithmetic a core gives, in registers.
double MulAddNsPerVector(int64_t rounds);

}  // namespace bench
}  // namespace aclhost
