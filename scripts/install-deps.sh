#!/usr/bin/env bash
# Installs what the build and the tests need (Debian packages); does nothing when all are there.
set -euo pipefail
packages=(
  cmake          # build system (>= 3.25 for the presets)
  ninja-build    # the presets' generator
  g++            # C++17 compiler; also builds the CANN-style sample and link-line probes
  make           # the CANN-style sample is built with its own CMake and make
  pkgconf        # the install-tree test checks the pkg-config file
  libgtest-dev   # GoogleTest
  libhwy-dev     # Google Highway: one SIMD kernel source, every target, chosen at run time
  libbenchmark-dev  # Google Benchmark for bench/
  clang          # the asan preset: sanitizers and libFuzzer
  libclang-rt-14-dev  # clang's sanitizer and libFuzzer runtimes
  libomp-14-dev  # OpenMP for clang builds
)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" > /dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
