#!/usr/bin/env bash
# One source for each formula: an edit of reference/proofs/formulas.def (in a scratch copy)
# reaches both the generated C++ and the Gappa scripts, and a wrong edit fails the proofs.
# For each edit: the generated header differs from the unedited one, and run_proofs.sh on the
# templates generated from the edited file fails for an instance that reads that formula, which
# the unedited file proves (the positive control).
# Usage: formula_edit_test.sh REPO_ROOT CONSTANTS GAPPA   (77 where gappa is absent, 1 in CI)
set -uo pipefail
root=$1 constants=$2 gappa=${3:-}
if [ -z "$gappa" ] || [ ! -x "$gappa" ]; then
  [ "${CI:-}" = true ] && { echo "FAIL: gappa not found and CI=true"; exit 1; }
  echo "SKIPPED: gappa not found"; exit 77
fi
proofs=$root/reference/proofs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
generate() {  # generate FORMULAS OUT
  python3 "$proofs/gen_formulas.py" "$1" --cpp "$2/bound_formulas.hpp" --gappa "$proofs" "$2/g"
}
generate "$proofs/formulas.def" "$work/base" || { echo "FAIL: the generator fails on formulas.def"; exit 1; }
# edit NAME SED-EXPRESSION INSTANCE: the edit changes the C++ and fails INSTANCE's proof.
edit() {
  local name=$1 expr=$2 instance=$3 start=$SECONDS
  sed "$expr" "$proofs/formulas.def" >"$work/$name.def"
  if cmp -s "$proofs/formulas.def" "$work/$name.def"; then echo "FAIL: $name: the edit changed nothing"; failures=$((failures + 1)); return; fi
  generate "$work/$name.def" "$work/$name" || { echo "FAIL: $name: the generator refused the edit"; failures=$((failures + 1)); return; }
  if cmp -s "$work/base/bound_formulas.hpp" "$work/$name/bound_formulas.hpp"; then
    echo "FAIL: $name: the generated C++ did not change"; failures=$((failures + 1))
  fi
  if bash "$proofs/run_proofs.sh" "$constants" "$gappa" "$work/$name/g" "$instance" >"$work/$name.log" 2>&1; then
    echo "FAIL: $name: $instance still proved with the edited formula"; sed 's/^/    /' "$work/$name.log" | tail -5
    failures=$((failures + 1))
  else
    echo "ok: $name: C++ changed, $instance not proved ($((SECONDS - start)) s): $(grep -m1 FAIL "$work/$name.log")"
  fi
}
# The positive control: the unedited formulas prove each instance used below.
for instance in eta_bound.sx1.sy1.se1 eta_result_window.sx1.sy1 result_window.sx-1.sy1 normal_bound.order0.sx1.sy1.se1; do
  start=$SECONDS
  if bash "$proofs/run_proofs.sh" "$constants" "$gappa" "$work/base/g" "$instance" >"$work/base.log" 2>&1; then
    echo "ok: unedited: $instance proved ($((SECONDS - start)) s)"
  else
    echo "FAIL: unedited: $instance not proved"; sed 's/^/    /' "$work/base.log" | tail -5; failures=$((failures + 1))
  fi
done
edit eta_without_abs 's/^eta(G) = ETA_GRAD \* G + ETA_ABS$/eta(G) = ETA_GRAD * G/' eta_bound.sx1.sy1.se1
edit eta_grad_halved 's/^eta(G) = ETA_GRAD \* G/eta(G) = 0.5 * ETA_GRAD * G/' eta_result_window.sx1.sy1
edit bound_without_eta 's/^bound(S, E, G) = bound_normal(S, E) + eta(G)$/bound(S, E, G) = bound_normal(S, E)/' eta_bound.sx1.sy1.se1
edit bound_normal_without_d 's/^bound_normal(S, E) = CU \* S + D \* E$/bound_normal(S, E) = CU * S/' normal_bound.order0.sx1.sy1.se1
edit window_plus_u 's/^result_window_margin(R, S, H) = (1 - U) \* R/result_window_margin(R, S, H) = (1 + U) * R/' result_window.sx-1.sy1
echo "$failures failures"
[ $failures = 0 ]
