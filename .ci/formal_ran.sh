#!/usr/bin/env bash
# Fails unless the formal proofs really ran: CTest returns 0 when a test is SKIPPED (no gappa)
# or when a label holds no test at all, so a green run alone says nothing about the proofs.
# LOG is the output of the ctest run; NAME... are the tests labelled formal
# (`ctest -N -L formal`); each must appear in LOG as Passed, and there must be at least one.
# Usage: formal_ran.sh LOG [NAME...]    (exit 0: every named test passed; 1 otherwise)
set -uo pipefail
log=$1; shift
if [ ! -r "$log" ]; then echo "formal_ran: no ctest log $log"; exit 1; fi
if [ $# -eq 0 ]; then echo "FAIL: the formal label holds no test: no proof ran"; exit 1; fi
failures=0
for name in "$@"; do
  line=$(grep -E "Test +#[0-9]+: ${name} " "$log" | tail -1)
  if [ -z "$line" ]; then
    echo "FAIL: formal test $name did not run"; failures=$((failures + 1))
  elif ! grep -qE "Test +#[0-9]+: ${name} \.* +Passed " <<<"$line"; then
    echo "FAIL: formal test $name did not pass: ${line#*: }"; failures=$((failures + 1))
  else
    echo "formal: $name passed"
  fi
done
[ $failures = 0 ]
