#!/usr/bin/env bash
# No silent skip of the proofs: .ci/formal_ran.sh accepts a ctest log only where every formal
# test passed, and refuses one where it was skipped, failed, absent, or the label is empty;
# reference/proofs/prover_missing.sh (a formal test without its prover) fails under CI=true and
# skips (77) otherwise. Usage: formal_ran_test.sh REPO_ROOT
set -uo pipefail
root=$1
check=$root/.ci/formal_ran.sh missing=$root/reference/proofs/prover_missing.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
expect() {  # expect RC DESCRIPTION COMMAND...
  local want=$1 what=$2; shift 2
  "$@" >"$work/out" 2>&1; local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: $what: exit $rc, expected $want"; sed 's/^/    /' "$work/out"; failures=$((failures + 1))
  else
    echo "ok: $what (exit $rc)"
  fi
}
line() { printf '%s/%s Test #%s: %s %s %s   0.01 sec\n' 1 2 "$1" "$2" "...................." "$3"; }
{ line 7 unit_a Passed; line 8 formal_proofs Passed; } >"$work/passed.log"
{ line 7 unit_a Passed; printf '1/2 Test #8: formal_proofs ....................***Skipped   0.00 sec\n'; } >"$work/skipped.log"
{ line 7 unit_a Passed; printf '1/2 Test #8: formal_proofs ....................***Failed    0.00 sec\n'; } >"$work/failed.log"
{ line 7 unit_a Passed; printf '1/2 Test #8: formal_proofs ....................***Not Run   0.00 sec\n'; } >"$work/notrun.log"
{ line 7 unit_a Passed; line 9 formal_proofs_extra Passed; } >"$work/absent.log"
expect 0 "formal test passed" "$check" "$work/passed.log" formal_proofs
expect 1 "formal test skipped" "$check" "$work/skipped.log" formal_proofs
expect 1 "formal test failed" "$check" "$work/failed.log" formal_proofs
expect 1 "formal test not run" "$check" "$work/notrun.log" formal_proofs
expect 1 "formal test absent (a longer name passed)" "$check" "$work/absent.log" formal_proofs
expect 1 "one of two formal tests skipped" "$check" "$work/skipped.log" unit_a formal_proofs
expect 1 "formal label empty" "$check" "$work/passed.log"
expect 1 "no log" "$check" "$work/none.log" formal_proofs
expect 1 "gappa missing, CI=true" env CI=true sh "$missing"
expect 77 "gappa missing, no CI" env -u CI sh "$missing"
expect 77 "gappa missing, CI=false" env CI=false sh "$missing"
expect 1 "coqc missing, CI=true" env CI=true sh "$missing" "coqc (apt-get install coq)"
expect 77 "coqc missing, no CI" env -u CI sh "$missing" "coqc (apt-get install coq)"
echo "$failures failures"
[ $failures = 0 ]
