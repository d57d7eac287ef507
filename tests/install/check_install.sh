#!/usr/bin/env bash
# Checks the install tree the way a CANN user meets it. Usage: check_install.sh CHECK PREFIX SOURCE_DIR WORK_DIR
set -euo pipefail
check=$1 prefix=$2 source_dir=$3 work=$4/$1
rm -rf "$work" && mkdir -p "$work" && cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }
libs=(libascendcl.so libnnopbase.so libopapi_nn.so libopapi_math.so)

# A program in the style of a CANN sample, written against the public headers only.
# Builds examples/$1 with its own CANN-style CMake against the install tree (through set_env.sh),
# runs it, and compares what it prints with $2.
build_and_run_sample() {
  cp -r "$source_dir/examples/$1" sample
  mkdir sample/build && cd sample/build
  # shellcheck disable=SC1091
  . "$prefix/set_env.sh"
  cmake .. -DCMAKE_CXX_COMPILER=g++ -DCMAKE_SKIP_RPATH=TRUE > cmake.log || { cat cmake.log; fail "sample $1 configure"; }
  make > make.log 2>&1 || { cat make.log; fail "sample $1 build"; }
  ./bin/opapi_test | tee run.log
  [ "$(cat run.log)" = "$2" ] || fail "sample $1 printed other numbers"
}

write_probe() {
  cat > probe.cpp <<'CPP'
#include <cstdio>
#include "acl/acl.h"
#include INCLUDE_OP_HEADER
int main() {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  uint64_t size = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus status = aclnnLayerNormBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                              nullptr, nullptr, nullptr, nullptr, nullptr, &size, &executor);
  std::printf("status %d\n", status);
  aclrtResetDevice(0);
  aclFinalize();
  return status == 161001 ? 0 : 1;
}
CPP
}

case $check in
layout)
  for path in include/acl/acl.h include/acl/acl_base.h include/acl/acl_rt.h include/acl/error_codes/rt_error_codes.h \
              include/aclnn/acl_meta.h include/aclnn/aclnn_base.h include/aclnn/opdev/op_errno.h \
              include/aclnnop/aclnn_layer_norm.h include/aclnnop/aclnn_layer_norm_backward.h include/aclnnop/aclnn_ops_nn.h \
              lib64/libopapi.so lib64/libacl_rt.so set_env.sh \
              share/cmake/aclnn_host/aclnn_hostConfig.cmake lib64/pkgconfig/aclnn_host.pc; do
    [ -f "$prefix/$path" ] || fail "missing $path"
  done
  for lib in "${libs[@]}"; do [ -f "$prefix/lib64/$lib" ] || fail "missing lib64/$lib"; done
  # set_env.sh exports the CANN variables and puts lib64 first on the library path.
  out=$(env -i HOME="$HOME" PATH="$PATH" LD_LIBRARY_PATH=/elsewhere bash -c ". '$prefix/set_env.sh'; echo \"\$ASCEND_CUSTOM_PATH|\$ASCEND_HOME_PATH|\$LD_LIBRARY_PATH\"")
  real=$(cd "$prefix" && pwd)
  [ "$out" = "$real|$real|$real/lib64:/elsewhere" ] || fail "set_env.sh under bash gave: $out"
  out=$(env -i PATH="$PATH" sh -c ". '$prefix/set_env.sh'; echo \"\$ASCEND_CUSTOM_PATH|\$LD_LIBRARY_PATH\"")
  [ "$out" = "$prefix|$prefix/lib64" ] || fail "set_env.sh under sh gave: $out"
  echo "layout OK"
  ;;
headers)
  # Every public header alone, as C++11 and as C11, warning-free.
  while IFS= read -r header; do
    rel=${header#"$prefix/include/"}
    echo "#include \"$rel\"" > one.cpp
    g++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -I "$prefix/include" one.cpp || fail "$rel as C++11"
    echo "#include \"$rel\"" > one.c
    gcc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I "$prefix/include" one.c || fail "$rel as C11"
  done < <(find "$prefix/include" -name '*.h' | sort)
  # The operator header found directly, with <prefix>/include/aclnnop on the include path.
  echo '#include "aclnn_layer_norm_backward.h"' > direct.cpp
  g++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -I "$prefix/include/aclnnop" direct.cpp || fail "header via include/aclnnop"
  # Sample idioms: scoped enum access on unscoped enums, the global OK, both status code families.
  cat > idioms.cpp <<'CPP'
#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnn/opdev/op_errno.h"
static_assert(aclDataType::ACL_FLOAT == 0 && aclDataType::ACL_BF16 == 27, "dtype values");
static_assert(aclFormat::ACL_FORMAT_ND == 2 && ACL_FRACTAL_Z_3D == 33, "format values");
static_assert(OK == 0 && ACLNN_ERR_PARAM_NULLPTR == 161001 && ACL_ERROR_RT_PARAM_INVALID == 107000, "codes");
static_assert(sizeof(aclnnStatus) == 4 && sizeof(aclError) == sizeof(int), "status types");
int main() { return 0; }
CPP
  g++ -std=c++11 -Wall -Wextra -Werror -I "$prefix/include" -I "$prefix/include/aclnn" -fsyntax-only idioms.cpp || fail "sample idioms"
  echo "headers OK"
  ;;
example)
  # The shipped sample, built exactly as CANN's recipe builds samples, found through set_env.sh.
  expected="gradInputOut result[0] is: -2.000000
gradInputOut result[1] is: -94.000000
gradInputOut result[2] is: -877.500000
gradInputOut result[3] is: -1747.500000
gradWeightOut result[0] is: 20.000000
gradWeightOut result[1] is: 62.000000
gradBiasOut result[0] is: 6.000000
gradBiasOut result[1] is: 8.000000"
  build_and_run_sample layer_norm_backward "$expected"
  echo "example OK"
  ;;
training_step)
  # The second sample, forward then backward; the numbers are the formula's (computed in double
  # precision) to 4 decimals.
  expected="out: -1.3416 0.0264 -0.1056 1.8416 -0.9733 -0.0744 -1.0000 2.1222
mean: 2.5000 2.0000
rstd: 0.8944 0.3244
gradInput: 0.1342 -1.2969 2.1913 -1.0286 0.1932 0.0544 -0.3853 0.1377
gradWeight: -1.6441 -0.2017 0.8944 1.7472
gradBias: 1.5000 0.0000 1.5000 1.2500"
  build_and_run_sample layer_norm_training_step "$expected"
  echo "training_step OK"
  ;;
link_lines)
  write_probe
  inc="-I $prefix/include -I $prefix/include/aclnn"
  lib=$prefix/lib64
  variant() {
    local name=$1; shift
    # shellcheck disable=SC2086
    g++ -std=c++11 -Wall $inc -DINCLUDE_OP_HEADER="\"aclnnop/aclnn_layer_norm_backward.h\"" probe.cpp -o "probe_$name" "$@" \
      || fail "link line $name"
    LD_LIBRARY_PATH=$lib "./probe_$name" > /dev/null || fail "run $name"
    echo "link line $name OK"
  }
  variant ops_nn_cmake "$lib/libascendcl.so" "$lib/libnnopbase.so" "$lib/libopapi_math.so" "$lib/libopapi_nn.so"
  variant legacy_all_in_one "$lib/libascendcl.so" "$lib/libnnopbase.so" "$lib/libopapi.so"
  variant build_script -L "$lib" -lopapi_nn -lopapi_math -lascendcl -lnnopbase
  variant build_script_acl_rt -L "$lib" -lopapi_nn -lopapi_math -lacl_rt -lnnopbase
  variant legacy_short -L "$lib" -lascendcl -lnnopbase -lopapi
  # The quick-invocation recipe puts include/aclnnop on the path and includes the header directly.
  g++ -std=c++11 -Wall -I "$prefix/include" -I "$prefix/include/aclnnop" -DINCLUDE_OP_HEADER='"aclnn_layer_norm_backward.h"' \
    probe.cpp -o probe_direct -L "$lib" -lopapi_nn -lnnopbase -lascendcl || fail "direct header include"
  LD_LIBRARY_PATH=$lib ./probe_direct > /dev/null || fail "run direct"
  ;;
symbols)
  # Every exported symbol is defined by exactly one library.
  for lib in "${libs[@]}"; do
    nm -D --defined-only "$prefix/lib64/$lib" | awk '{print $3}' | sed "s|\$| $lib|"
  done | sort > defined.txt
  dupes=$(awk '{print $1}' defined.txt | uniq -d)
  [ -z "$dupes" ] || fail "defined more than once: $dupes"
  for symbol in aclInit aclFinalize aclGetRecentErrMsg aclrtMalloc aclrtMemcpy aclrtSynchronizeStream aclDataTypeSize; do
    grep -q "^$symbol libascendcl.so$" defined.txt || fail "$symbol not in libascendcl.so"
  done
  for symbol in aclCreateTensor aclDestroyTensor aclCreateIntArray aclCreateBoolArray aclDestroyAclOpExecutor aclnnInit; do
    grep -q "^$symbol libnnopbase.so$" defined.txt || fail "$symbol not in libnnopbase.so"
  done
  for symbol in aclnnLayerNormBackwardGetWorkspaceSize aclnnLayerNormBackward; do
    grep -q "^$symbol libopapi_nn.so$" defined.txt || fail "$symbol not in libopapi_nn.so"
  done
  echo "symbols OK ($(wc -l < defined.txt) exported)"
  ;;
cmake_package)
  write_probe
  cat > CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(consumer CXX)
find_package(aclnn_host REQUIRED)
add_executable(probe probe.cpp)
target_compile_definitions(probe PRIVATE INCLUDE_OP_HEADER="aclnnop/aclnn_layer_norm_backward.h")
target_link_libraries(probe PRIVATE aclnn_host::aclnn_host)
CMAKE
  cmake -S . -B build -DCMAKE_PREFIX_PATH="$prefix" > cmake.log || { cat cmake.log; fail "find_package(aclnn_host)"; }
  cmake --build build > build.log || { cat build.log; fail "consumer build"; }
  ./build/probe || fail "consumer run"
  echo "cmake package OK"
  ;;
pkg_config)
  write_probe
  flags=$(PKG_CONFIG_PATH="$prefix/lib64/pkgconfig" pkg-config --cflags --libs aclnn_host)
  # shellcheck disable=SC2086
  g++ -std=c++11 -DINCLUDE_OP_HEADER='"aclnnop/aclnn_layer_norm_backward.h"' probe.cpp -o probe $flags || fail "pkg-config build"
  ./probe || fail "pkg-config run"
  echo "pkg-config OK"
  ;;
*) fail "unknown check $check" ;;
esac
