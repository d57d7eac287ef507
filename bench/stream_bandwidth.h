// This machine's memory bandwidth, measured in the benchmark's own process with the same thread
// count: the STREAM triad (a[i] = b[i] + s * c[i]) and copy (a[i] = b[i]) kernels.
#pragma once

namespace aclhost {
namespace bench {

// Bytes per second of one pass over arrays far larger than the caches (3 x 128 MiB for the
// triad, 2 for the copy; the arrays are allocated and touched once, on the first call). One pass,
// not the best of several: this machine's bandwidth drifts while a benchmark runs (a virtual
// machine's neighbours), so the benchmarks take a pass next to every call they time and compare
// the two (bench_case.h, TimeAgainst).
double TriadPass(int threads);
double CopyPass(int threads);

// Reads an array twice the size of this machine's last-level cache (64 MiB) with `threads`
// threads, so that the caches hold clean lines of no operand: the lines a reference pass left
// dirty are written back here, not during the call timed next.
void LeaveCachesClean(int threads);

}  // namespace bench
}  // namespace aclhost
