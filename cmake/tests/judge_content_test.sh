#!/usr/bin/env bash
# Flush-to-zero refused by content (cmake/JudgeFlags.cmake), on a scratch copy of
# cmake/tests/judge_content. host: configuring with -ffast-math or -Ofast in the host flags
# fails (the subnormal probe), and plain flags pass. device: the library's build fails when
# NVCC_APPEND_FLAGS, NVCC_PREPEND_FLAGS or an --options-file (none of which the flag check
# sees) put .ftz in its PTX, or --use_fast_math does, and passes without them, before and after.
# Usage: judge_content_test.sh host|device REPO_ROOT GENERATOR [NVCC]   (77: no nvcc for device)
set -uo pipefail
mode=$1 root=$2 generator=$3 nvcc=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/cmake/tests/judge_content" "$work/src"
failures=0
# expect accepted|refused WHAT PATTERN COMMAND...: the command's exit and, if refused, PATTERN in its output.
expect() {
  local want=$1 what=$2 pattern=$3; shift 3
  local start=$SECONDS
  "$@" >"$work/out" 2>&1; local rc=$?
  local got=accepted; [ $rc = 0 ] || got=refused
  if [ $got != "$want" ] || { [ "$want" = refused ] && ! grep -q "$pattern" "$work/out"; } \
     || { [ "$want" = accepted ] && ! grep -q "$pattern" "$work/out"; }; then
    echo "FAIL: $what: $got (exit $rc), expected $want with '$pattern'"; tail -30 "$work/out" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok: $what: $want ($((SECONDS - start)) s)"
  fi
}
configure() {  # configure BUILD_DIR ARGS...: a fresh build folder
  local dir=$1; shift
  rm -rf "$dir"
  cmake -S "$work/src" -B "$dir" -G "$generator" -DROPE2D_JUDGE_FLAGS="$root/cmake/JudgeFlags.cmake" "$@"
}
build() { cmake --build "$1" --clean-first; }
case $mode in
  host)
    expect accepted "plain host flags" "subnormals survive" configure "$work/b" -DCMAKE_BUILD_TYPE=Release
    expect refused "CMAKE_CXX_FLAGS=-ffast-math" "flush subnormals to zero" \
      configure "$work/b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-ffast-math
    expect refused "CMAKE_CXX_FLAGS_RELEASE=-Ofast" "flush subnormals to zero" \
      configure "$work/b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-Ofast
    expect refused "CXXFLAGS=-ffast-math in the environment" "flush subnormals to zero" \
      env CXXFLAGS=-ffast-math cmake -S "$work/src" -B "$work/b2" -G "$generator" -DROPE2D_JUDGE_FLAGS="$root/cmake/JudgeFlags.cmake"
    expect accepted "-ffast-math -fno-fast-math" "subnormals survive" \
      configure "$work/b" -DCMAKE_CXX_FLAGS="-ffast-math -fno-fast-math"
    ;;
  device)
    if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then echo "SKIPPED: no nvcc"; exit 77; fi
    b=$work/d
    expect accepted "configure with CUDA" "subnormals survive" configure "$b" -DWITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc"
    expect accepted "plain build" "hold PTX with no .ftz" build "$b"
    expect refused "NVCC_APPEND_FLAGS=-ftz=true" "instructions with .ftz" env NVCC_APPEND_FLAGS=-ftz=true cmake --build "$b" --clean-first
    [ -e "$b/libjudge.a" ] && { echo "FAIL: the refused library was left in place"; failures=$((failures + 1)); }
    expect refused "NVCC_PREPEND_FLAGS=-ftz=true" "instructions with .ftz" env NVCC_PREPEND_FLAGS=-ftz=true cmake --build "$b" --clean-first
    expect refused "NVCC_APPEND_FLAGS=--use_fast_math" "instructions with .ftz" env NVCC_APPEND_FLAGS=--use_fast_math cmake --build "$b" --clean-first
    expect accepted "plain build after the refusals" "hold PTX with no .ftz" build "$b"
    echo "-ftz=true" >"$work/nvcc.options"
    expect accepted "CMAKE_CUDA_FLAGS=--options-file (the flag check cannot see into it)" "Generating done" \
      cmake "$b" -DCMAKE_CUDA_FLAGS="--options-file $work/nvcc.options"
    expect refused "--options-file holding -ftz=true" "instructions with .ftz" build "$b"
    expect refused "-ftz=true in CMAKE_CUDA_FLAGS (the flag check, kept)" "holds -ftz=true" cmake "$b" -DCMAKE_CUDA_FLAGS=-ftz=true
    ;;
  *) echo "usage: judge_content_test.sh host|device REPO_ROOT GENERATOR [NVCC]"; exit 2 ;;
esac
echo "$failures failures"
[ $failures = 0 ]
