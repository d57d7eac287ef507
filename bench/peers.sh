#!/usr/bin/env bash
# aclnn-host, oneDNN and PyTorch side by side on the large shapes, FLOAT and BF16, at the same
# thread count (ACLNN_HOST_NUM_THREADS, default: all online CPUs). A peer that is not installed
# (Debian: libdnnl-dev, python3-torch) is reported as skipped. PEERS_ROUNDS=N (default 1) measures
# each case N times, the three taking turns, and keeps each one's best: on a machine whose
# bandwidth drifts, one run each can compare the peers at different bandwidths. PEERS_SHAPES="MxN
# ..." replaces the issue's six shapes.
# Usage: bench/peers.sh [BUILD_DIR]   (BUILD_DIR defaults to build; it must hold
# bin/aclnn_host_layer_norm_backward, built with the benchmarks)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
threads=${ACLNN_HOST_NUM_THREADS:-$(nproc)}
rounds=${PEERS_ROUNDS:-1}
export ACLNN_HOST_NUM_THREADS=$threads OMP_NUM_THREADS=$threads
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

onednn=""
if [ -f /usr/include/oneapi/dnnl/dnnl.hpp ]; then
  g++ -O2 -std=c++17 "$here/peers/onednn_layer_norm_backward.cpp" -o "$work/onednn" -ldnnl && onednn="$work/onednn"
fi
python=""
if /usr/bin/python3 -c "import torch" 2> /dev/null; then python=/usr/bin/python3; fi

ours() {  # GB/s of aclnn-host for M N f32|bf16, timed as the peers are
  "$build/bin/aclnn_host_layer_norm_backward" "$1" "$2" "$3" | awk '/^GB\/s/ {print $2}'
}

best() {  # the larger of two figures, either of which may be "skipped" or empty
  if [[ "$1" =~ ^[0-9.]+$ ]] && [[ "$2" =~ ^[0-9.]+$ ]]; then awk -v a="$1" -v b="$2" 'BEGIN {print (a > b) ? a : b}';
  elif [[ "$1" =~ ^[0-9.]+$ ]]; then echo "$1"; else echo "$2"; fi
}

status=0  # 1 once aclnn-host's harness gave no figure
printf "threads: %s, best of %s round(s)\n" "$threads" "$rounds"
printf "%-14s %-5s %12s %12s %12s %10s %10s\n" shape dtype "ours GB/s" "oneDNN GB/s" "torch GB/s" "x oneDNN" "x torch"
for shape in ${PEERS_SHAPES:-8192x768 4096x4096 32768x1024 262144x128 1024x32768 16384x5120}; do
  rows=${shape%x*} cols=${shape#*x}
  for dtype in fp32 bf16; do
    peer_dtype=$([ "$dtype" = fp32 ] && echo f32 || echo bf16)
    mine=""; dnnl="skipped"; torch="skipped"
    for ((round = 0; round < rounds; ++round)); do
      mine=$(best "$mine" "$(ours "$rows" "$cols" "$peer_dtype")")
      [ -n "$onednn" ] && dnnl=$(best "$dnnl" "$("$onednn" "$rows" "$cols" "$peer_dtype" | awk '/^GB\/s/ {print $2} /^skipped/ {print "skipped"}')")
      [ -n "$python" ] && torch=$(best "$torch" "$("$python" "$here/peers/torch_layer_norm_backward.py" "$rows" "$cols" "$peer_dtype" "$threads" | awk '{print $2}')")
    done
    if [ -z "$mine" ]; then mine="failed"; status=1; fi
    ratio() { if [[ "$2" =~ ^[0-9.]+$ ]]; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; else echo "-"; fi; }
    printf "%-14s %-5s %12s %12s %12s %10s %10s\n" "$shape" "$dtype" "$mine" "$dnnl" "$torch" "$(ratio "$mine" "$dnnl")" "$(ratio "$mine" "$torch")"
  done
done
exit "$status"
