#!/usr/bin/env bash
# The change table of docs/architecture.md, enforced by the compiler: a copy of the headers gets
# a fake tier, grad dtype or ABI code with only some of its table entries, and each such copy
# must fail to compile with the diagnostic that names the missing entry; with every entry (and
# unpatched) it must compile. Syntax checks only, no CUDA. The Python copies of the ABI codes
# are compared with the header.
# Usage: change_table_test.sh CXX SOURCE_DIR GENERATED_INCLUDE_DIR (bound_formulas.hpp, made at configure time)
set -uo pipefail
cxx=$1 src=$2 generated=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A fresh copy of what the scratch translation units include, in $tmp/$1.
copy() {
  local d=$tmp/$1
  mkdir -p "$d/verify/src/model" "$d/verify/src/judge/gpu_check"
  cp -r "$src/reference/include" "$d/reference-include"
  cp -r "$src/verify/include" "$d/verify-include"
  cp -r "$src/cuda/include" "$d/cuda-include"
  cp "$src/verify/src/model/tolerance.cpp" "$d/verify/src/model/"
  cp "$src/verify/src/judge/gpu_check/element.hpp" "$d/verify/src/judge/gpu_check/"
  printf '#include "judge/gpu_check/element.hpp"\n' >"$d/verify/src/element.cpp"
}
# patch CASE FILE SED-SCRIPT: edits FILE of the copy; the edit must change it.
patch_file() {
  local f=$tmp/$1/$2
  cp "$f" "$f.orig"
  sed -i "$3" "$f"
  cmp -s "$f" "$f.orig" && fail "$1: the edit of $2 changed nothing (the file moved on: update this test)"
  rm -f "$f.orig"
}
# compile CASE: tolerance.cpp (tiers and, through backward.hpp, dtypes) and, for the ABI cases,
# a unit of the GPU judge's element code; their diagnostics in $tmp/CASE.log, status returned.
compile() {
  local d=$tmp/$1 rc=0 tus=model/tolerance.cpp
  case $1 in control | abi*) tus="model/tolerance.cpp element.cpp" ;; esac
  for tu in $tus; do
    "$cxx" -std=c++20 -fsyntax-only -Wall -Werror=switch -I"$d/reference-include" -I"$d/verify-include" \
      -I"$d/cuda-include" -I"$d/verify/src" -I"$generated" "$d/verify/src/$tu" >>"$tmp/$1.log" 2>&1 || rc=1
  done
  return $rc
}
# must_fail CASE PATTERN: the copy fails to compile, with a diagnostic matching PATTERN.
must_fail() {
  if compile "$1"; then
    fail "$1: compiled, but should not"
  elif ! grep -Eq "$2" "$tmp/$1.log"; then
    fail "$1: failed to compile, but without the expected diagnostic /$2/:"
    head -20 "$tmp/$1.log"
  fi
}
must_compile() { compile "$1" || { fail "$1: does not compile:"; head -30 "$tmp/$1.log"; }; }

tier_h=verify-include/rope2d/verify/model/tier.hpp
core_h=verify-include/rope2d/verify/model/tolerance_core.hpp
dtype_h=reference-include/rope2d/ref/dtype.hpp
abi_h=cuda-include/rope2d/rope2d_backward.h
# The edits, each building on the one before.
tier_enum='s/^  solexecbench,$/  solexecbench,\n  fake_tier,/'
tier_coeffs='s/^\(    case Tier::solexecbench: return .*\)$/\1\n    case Tier::fake_tier: return {u24, u24, 0, true, bound_rules};/'
tier_list='s/^\(                                     Tier::solexecbench\)};$/\1, Tier::fake_tier};/'
tier_row='s/^constexpr TierRule table\[\] = {$/&\n    row(Tier::fake_tier, "fake-tier", "", 1.0, "a test"),/'
tier_row_last='s/^};$/    row(Tier::fake_tier, "fake-tier", "", 1.0, "a test"),\n};/'
dtype_enum='s/^enum class Dtype { bf16, fp16, fp32 };$/enum class Dtype { bf16, fp16, fp32, fake8 };/'
dtype_row='s/^\(    case Dtype::fp32: return {"fp32".*\)$/\1\n    case Dtype::fake8: return {"fake8", {"", ""}, 1, {4, -6, 7}, "F8", ROPE2D_GRAD_FP32};/'
dtype_list='s/^inline constexpr Dtype all_dtypes\[\] = {Dtype::bf16, Dtype::fp16, Dtype::fp32};$/inline constexpr Dtype all_dtypes[] = {Dtype::bf16, Dtype::fp16, Dtype::fp32, Dtype::fake8};/'
abi_code='s/ROPE2D_GRAD_FP32 = 2 };/ROPE2D_GRAD_FP32 = 2, ROPE2D_GRAD_FAKE8 = 3 };/'

copy control
must_compile control

# A tier: the enumerator alone, then with its coefficients, its place in all_tiers, its row.
copy tier1
patch_file tier1 $tier_h "$tier_enum"
must_fail tier1 "fake_tier.*not handled in switch"
copy tier2
patch_file tier2 $tier_h "$tier_enum"
patch_file tier2 $core_h "$tier_coeffs"
must_fail tier2 "all_tiers \(tier.hpp\) must list every Tier"
copy tier3
patch_file tier3 $tier_h "$tier_enum; $tier_list"
patch_file tier3 $core_h "$tier_coeffs"
must_fail tier3 "table needs one row per Tier"
copy tier4  # a row, but not in the enum's order
patch_file tier4 $tier_h "$tier_enum; $tier_list"
patch_file tier4 $core_h "$tier_coeffs"
patch_file tier4 verify/src/model/tolerance.cpp "$tier_row"
must_fail tier4 "table lists the tiers in the enum's order"
copy tier5  # every entry: compiles
patch_file tier5 $tier_h "$tier_enum; $tier_list"
patch_file tier5 $core_h "$tier_coeffs"
patch_file tier5 verify/src/model/tolerance.cpp "/^constexpr TierRule table/,/^};/{$tier_row_last}"
must_compile tier5

# A grad dtype: the enumerator alone, then with its traits row (an ABI code taken twice), and
# in all_dtypes.
copy dtype1
patch_file dtype1 $dtype_h "$dtype_enum"
must_fail dtype1 "fake8.*not handled in switch"
copy dtype2
patch_file dtype2 $dtype_h "$dtype_enum; $dtype_row"
must_fail dtype2 "all_dtypes \(dtype.hpp\) must list every Dtype"
copy dtype3
patch_file dtype3 $dtype_h "$dtype_enum; $dtype_row; $dtype_list"
must_fail dtype3 "abi_code must be the ROPE2D_GRAD_\* code"

# An ABI code in the C header without its dtype, and without its decoding in the GPU judge.
copy abi1
patch_file abi1 $abi_h "$abi_code"
must_fail abi1 "ROPE2D_GRAD_FAKE8.*not handled in switch"
grep -q "judge/gpu_check/element.hpp.*ROPE2D_GRAD_FAKE8.*not handled" "$tmp/abi1.log" ||
  fail "abi1: judge/gpu_check/element.hpp's decode_grad does not report the new code"

# Python cannot include the header: its copies of the ABI codes must equal the header's.
for name in BF16 FP16 FP32; do
  code=$(grep -o "ROPE2D_GRAD_$name = [0-9]*" "$src/cuda/include/rope2d/rope2d_backward.h" | grep -o '[0-9]*$')
  lower=$(echo "$name" | tr 'A-Z' 'a-z')
  [ -n "$code" ] || fail "rope2d_backward.h: no ROPE2D_GRAD_$name"
  grep -Eq "^DTYPE_CODE = \{.*\"$lower\": $code[,}]" "$src/python/rope2d/_lib.py" ||
    fail "python/rope2d/_lib.py: DTYPE_CODE[\"$lower\"] is not $code (ROPE2D_GRAD_$name)"
done
grep -Eq "^GRAD_BF16 = $(grep -o 'ROPE2D_GRAD_BF16 = [0-9]*' "$src/cuda/include/rope2d/rope2d_backward.h" | grep -o '[0-9]*$') " \
  "$src/python/rope2d/bench_torch.py" || fail "python/rope2d/bench_torch.py: GRAD_BF16 is not ROPE2D_GRAD_BF16"

[ "$fails" -eq 0 ] && echo "change table: every missing entry is a compile error"
exit $((fails > 0))
