// This machine's memory bandwidth, measured in the benchmark's own process with the same thread
// count: the STREAM triad (a[i] = b[i] + s * c[i]) and copy (a[i] = b[i]) kernels.
#pragma once

namespace aclhost {
namespace bench {

// Bytes per second, the best of several passes over arrays far larger than the caches. This
// machine's bandwidth drifts while a benchmark runs (a virtual machine's neighbours), so the
// benchmarks measure it again next to every case; the arrays are kept between calls.
double MeasureTriad(int threads);
double MeasureCopy(int threads);

}  // namespace bench
}  // namespace aclhost
