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

// Reads 64 MiB with `threads` threads, so that the caches hold clean lines of no operand: the
// lines a reference pass left dirty are written back here, not during the call timed next. 64 MiB
// is more than the L3 of the machines measured so far gives a call (an Intel Xeon VM reports 260
// MiB but its reads slow down from 16 to 64 MiB arrays as from a cache of tens of MiB;
// docs/PERFORMANCE.md, tenth session).
void LeaveCachesClean(int threads);

// Nanoseconds for a cache line to go from one OpenMP thread to another and back (two threads
// handing a counter to each other), 0 with fewer than two threads. On the Zen 5 VM it tells the
// machine's two states apart: 75-125 ns, where the triad gave 40-50 GB/s, and 340-400 ns, where
// it gave 70-80 GB/s in some runs and 46-52 in others while one pass with streaming stores moved
// twice that (the vCPUs apparently on two CCDs then, each with its own L3 and link to memory;
// docs/PERFORMANCE.md, thirty-ninth session).
double CoreRoundTripNs(int threads);

// Which of the Zen 5 VM's two states a round trip tells: above 250 ns its vCPUs apart (340-460 ns
// measured, against 75-160 together); above 2 us a thread that lost its vCPU meanwhile (tens of
// microseconds), no state.
enum class CoreState { kTogether, kApart, kNone };
CoreState CoreStateOf(double round_trip_ns);

}  // namespace bench
}  // namespace aclhost
