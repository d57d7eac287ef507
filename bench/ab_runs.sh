#!/usr/bin/env bash
# Two builds of the library compared in the benchmark's own protocol: layer_norm_backward_bench
# runs the cases FILTER picks once with each build's libraries in turn, ROUNDS times (the loader
# searches LD_LIBRARY_PATH before the benchmark's RUNPATH). bench/ab_builds alternates single calls
# in one process, with its own cache eviction and passive OpenMP waits, and the two measured a change
# differently (docs/PERFORMANCE.md, forty-third session); here a build's runs are seconds from the
# other's, so each run is read with the state it reports: ViewAgainstDense's pairs_apart gives
# `apart` (two thirds of its pairs or more), `together` (a third or fewer) or `mixed`; other cases `-`.
#
# usage: bench/ab_runs.sh LIBDIR_A LIBDIR_B ROUNDS FILTER [BENCH]
#   FILTER: a --benchmark_filter of cases that report the same counters (one family), as CSV needs
#   LIBDIR_*: a build's lib64; BENCH: the benchmark binary (default build/bin/layer_norm_backward_bench)
# prints CSV: round, build, state, then the benchmark's own CSV fields (its counters included)
set -euo pipefail

if [ $# -lt 4 ]; then
  sed -n '/^# usage:/,/^# prints CSV/p' "$0" >&2
  exit 2
fi
lib_a=$1 lib_b=$2 rounds=$3 filter=$4
bench=${5:-$(dirname "$0")/../build/bin/layer_norm_backward_bench}

errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
header_printed=0
for ((round = 1; round <= rounds; ++round)); do
  for lib in "$lib_a" "$lib_b"; do
    status=0
    out=$(LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$bench" --benchmark_filter="$filter" \
          --benchmark_format=csv 2>"$errors") || status=$?
    csv=$(sed -n '/^name,/,$p' <<<"$out")
    if [ "$status" -ne 0 ] || [ -z "$csv" ]; then
      # Google Benchmark's CSV takes only cases that report the same counters: one family a filter.
      cat "$errors" >&2
      echo "ab_runs: the benchmark failed or ran no case with $lib (status $status; one family of cases a filter)" >&2
      exit 1
    fi
    awk -F, -v round="$round" -v build="$lib" -v print_header=$((header_printed == 0)) '
      NR == 1 {
        for (i = 1; i <= NF; ++i) { name = $i; gsub(/"/, "", name); column[name] = i }
        if (print_header) print "round,build,state," $0
        next
      }
      {
        state = "-"
        if (("pairs_apart" in column) && $column["pairs_apart"] != "") {
          apart = $column["pairs_apart"]; pairs = $column["iterations"]
          state = 3 * apart >= 2 * pairs ? "apart" : 3 * apart <= pairs ? "together" : "mixed"
        }
        print round "," build "," state "," $0
      }' <<<"$csv"
    header_printed=1
  done
done
