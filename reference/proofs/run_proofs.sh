#!/usr/bin/env bash
# Runs every Gappa proof of reference/proofs/ with the constants the code is built with:
# CONSTANTS (the program built from constants.cpp) prints them, each @NAME@ of a *.g.in is
# replaced by its value, and gappa must prove the result with no warning (a hint it could not
# check). Then each proof's negative controls, one per "# goal: NAME LOWER" line of the script
# (NAME's constant lowered by 2^-30 relative; by a quarter, QUARTER, where the bound is not
# tight), must fail: a proof that proves nothing is caught. TEMPLATES is the folder of the
# *.g.in with their @formula(args)@ already expanded from formulas.def (gen_formulas.py, run by
# CMake into the build folder).
# With ROPE2D_COQC set (a coqc that has Debian's libcoq-flocq and libcoq-gappa), each proved
# instance's Coq certificate (gappa -Bcoq) is checked by coqc instead of the negative controls
# (formal_proofs runs those), and a tampered certificate (rounding_subnormal's claimed error
# bound halved) must be refused by coqc.
# Usage: run_proofs.sh CONSTANTS GAPPA TEMPLATES [NAME-FILTER]
#   (exit 0: all proved, all controls fail; with a filter, only the matching instances)
set -uo pipefail
constants=$1 gappa=$2 here=$3 filter=${4:-}
coqc=${ROPE2D_COQC:-} certified=0 coq_seconds=0
if grep -l '@[a-z][a-z0-9_]*(' "$here"/*.g.in; then echo "FAIL: unexpanded @formula(...)@ in $here"; exit 1; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$constants" >"$work/constants.txt" || { echo "FAIL: $constants did not run"; exit 1; }
failures=0 proved=0 controls=0 control_how=""

# Writes the script for one instance: template, then NAME=VALUE pairs (the instance's own
# placeholders), the constants for the rest.
instantiate() {
  local template=$1 out=$2; shift 2
  local sed_args=()
  for kv in "$@"; do sed_args+=(-e "s|@${kv%%=*}@|${kv#*=}|g"); done
  while read -r name value; do sed_args+=(-e "s|@${name}@|${value}|g"); done <"$work/constants.txt"
  sed "${sed_args[@]}" "$template" >"$out"
  if grep -q '@[A-Z0-9_]*@' "$out"; then echo "FAIL: $out: unreplaced $(grep -o '@[A-Z0-9_]*@' "$out" | head -1)"; return 1; fi
}

# Checks SCRIPT's Coq certificate with coqc (a module name of its own: labels hold '.' and '-').
certify() {
  local script=$1 label=$2 v="$work/cert$((certified + 1)).v" start=$SECONDS
  if ! "$gappa" -Eprecision=600 -Bcoq "$script" >"$v" 2>"$work/$label.coq.log"; then
    echo "FAIL: $label: gappa -Bcoq failed"; sed 's/^/    /' "$work/$label.coq.log" | head; failures=$((failures + 1)); return
  fi
  if ! (cd "$work" && "$coqc" -q "$(basename "$v")") >"$work/$label.coqc.log" 2>&1; then
    echo "FAIL: $label: coqc refused the certificate"; sed 's/^/    /' "$work/$label.coqc.log" | head; failures=$((failures + 1)); return
  fi
  certified=$((certified + 1)) coq_seconds=$((coq_seconds + SECONDS - start))
  [ "$label" = rounding_subnormal ] && cp "$v" "$work/tamper_source.v"
  echo "certified: $label (coqc $((SECONDS - start)) s)"
}

# Proves one instance, then its negative control.
prove() {
  local template=$1 label=$2; shift 2
  [ -n "$filter" ] && [[ "$label" != *"$filter"* ]] && return 0
  local script="$work/$label.g" control="$work/$label.control.g"
  instantiate "$template" "$script" "$@" || { failures=$((failures + 1)); return; }
  if ! "$gappa" -Eprecision=600 "$script" >"$work/$label.log" 2>&1 || grep -q "Warning" "$work/$label.log"; then
    echo "FAIL: $label: not proved"; sed 's/^/    /' "$work/$label.log" | head -20
    failures=$((failures + 1)); return
  fi
  proved=$((proved + 1))
  if [ -n "$coqc" ]; then certify "$script" "$label"; return; fi
  local goal how lowered lowered_names=""
  while read -r _ _ goal how; do
    [ -n "$control_how" ] && how=$control_how
    lowered=$(awk -v n="${goal}_${how}" '$1 == n {print $2}' "$work/constants.txt")
    [ -n "$lowered" ] || { echo "FAIL: $label: no constant ${goal}_${how}"; failures=$((failures + 1)); return; }
    sed "s|$(awk -v n="$goal" '$1 == n {print $2}' "$work/constants.txt")|$lowered|g" "$script" >"$control"
    if "$gappa" -Eprecision=600 "$control" </dev/null >"$work/$label.control.log" 2>&1 || ! grep -q "not satisfied" "$work/$label.control.log"; then
      echo "FAIL: $label: the negative control ($goal lowered) was proved too"; failures=$((failures + 1)); return
    fi
    controls=$((controls + 1))
    lowered_names="$lowered_names${lowered_names:+, }$goal"
  done < <(grep '^# goal:' "$template")
  [ -n "$lowered_names" ] || { echo "FAIL: $label: no '# goal:' line"; failures=$((failures + 1)); return; }
  echo "proved: $label (control with $lowered_names lowered fails)"
}

# The normal-range bound: three orders (e1, e2: the product roundings an FMA removes), every
# feasible sign case of the two products (sx, sy) and of the exact result (se).
for order in 0 1 2; do
  e1=@U@ e2=@U@
  [ $order = 1 ] && e2=0
  [ $order = 2 ] && e1=0
  for sx in 1 -1; do for sy in 1 -1; do for se in 1 -1; do
    [ $sx != $sy ] && [ $se != $sy ] && continue  # opposite-sign products: exact has sy's sign
    # With an FMA one rounding is gone and the bound is not tight (about 5.5u instead of 6u in
    # the cancelling case): the control lowers c by a quarter there, below every order's worst.
    control_how=""; [ $order != 0 ] && control_how=QUARTER
    prove "$here/normal_bound.g.in" "normal_bound.order$order.sx$sx.sy$sy.se$se" \
      "ORDER=$order" "SX=$sx" "SY=$sy" "SE=$se" "E1=$e1" "E2=$e2"
  done; done; done
done
# The result window: (1 - u)|ref| - c u S <= 2^-126 leaves slack u c u S, so its control
# lowers c by a quarter (below the 6u the cancellation can reach).
control_how=""
for sx in 1 -1; do for sy in 1 -1; do
  [ $sx != $sy ] && [ $sy != 1 ] && continue  # exact >= 0: opposite-sign products need sy = 1
  prove "$here/result_window.g.in" "result_window.sx$sx.sy$sy" "SX=$sx" "SY=$sy"
done; done
prove "$here/product_window.g.in" "product_window"
# The subnormal term eta. IEEE float32 rounding (float<ieee_32,ne>) is x (1 + e) + d,
# |e| <= u, |d| <= 2^-150: proved for each range; then the bound with those roundings, both
# products present (every sign case; one order covers the FMA ones: an FMA's product is exact,
# e = d = 0 inside the proved ranges), one product or none, and the result window with eta.
# eta has slack (3/4 of ETA_ABS and 5/6 of ETA_GRAD are needed): the controls lower a quarter.
control_how=""
prove "$here/rounding_subnormal.g.in" "rounding_subnormal"
for sx in 1 -1; do prove "$here/rounding_normal.g.in" "rounding_normal.sx$sx" "SX=$sx"; done
for sx in 1 -1; do for sy in 1 -1; do for se in 1 -1; do
  [ $sx != $sy ] && [ $se != $sy ] && continue
  prove "$here/eta_bound.g.in" "eta_bound.sx$sx.sy$sy.se$se" "SX=$sx" "SY=$sy" "SE=$se"
done; done; done
for st in 1 -1; do prove "$here/eta_one_term.g.in" "eta_one_term.st$st" "ST=$st"; done
for sx in 1 -1; do for sy in 1 -1; do
  [ $sx != $sy ] && [ $sy != 1 ] && continue
  prove "$here/eta_result_window.g.in" "eta_result_window.sx$sx.sy$sy" "SX=$sx" "SY=$sy"
done; done
prove "$here/eta_result_window_one_term.g.in" "eta_result_window_one_term"

# Every instance above, counted: a loop or filter change that proves less cannot pass.
expected=37
if [ -z "$filter" ] && [ "$proved" != "$expected" ]; then
  echo "FAIL: $proved instances proved, expected $expected"; failures=$((failures + 1))
fi
if [ -n "$coqc" ]; then
  # Negative control: the certificate of |RN(x) - x| <= 2^-150 below 2^-126, its bound
  # rewritten to 2^-151 (false: 2^-150 is reached), must not check.
  if [ -f "$work/tamper_source.v" ]; then
    sed -e 's/Float2 (-1) (-150)/Float2 (-1) (-151)/' -e 's/Float2 (1) (-150)/Float2 (1) (-151)/' \
      "$work/tamper_source.v" >"$work/tampered.v"
    if cmp -s "$work/tamper_source.v" "$work/tampered.v"; then
      echo "FAIL: the tampering changed nothing"; failures=$((failures + 1))
    elif (cd "$work" && "$coqc" -q tampered.v) >"$work/tampered.log" 2>&1; then
      echo "FAIL: coqc accepted a tampered certificate (rounding_subnormal at 2^-151)"; failures=$((failures + 1))
    else
      echo "refused: the tampered certificate: $(tr -s '\n ' ' ' <"$work/tampered.log" | cut -c1-200)"
    fi
  elif [ -z "$filter" ]; then
    echo "FAIL: no rounding_subnormal certificate to tamper with"; failures=$((failures + 1))
  fi
  if [ -z "$filter" ] && [ "$certified" != "$expected" ]; then
    echo "FAIL: $certified certificates checked, expected $expected"; failures=$((failures + 1))
  fi
  echo "$certified certificates checked by coqc in $coq_seconds s, $failures failures"
  [ $failures = 0 ] && [ $certified -gt 0 ]
  exit
fi
echo "$proved proved, $controls negative controls failed as they must, $failures failures"
[ $failures = 0 ] && [ $proved -gt 0 ]
