#!/usr/bin/env bash
# On a GPU: measures CUDA's sinf / cosf / sincosf over every float32 input (sincosf_ulp --json)
# and compares the measurement with the header's premise (premise_check): fails if this
# hardware and CUDA version err by more than the float32 bound assumes. SKIPPED (77) without a
# GPU. The measurement stays at MEASUREMENT.json; copy it to reports/premise/sincosf_ulp.json
# to record it. Usage: sincosf_premise_gpu_test.sh SINCOSF_ULP PREMISE_CHECK MEASUREMENT.json
set -u
measure=$1 check=$2 file=$3
rm -f "$file"
"$measure" --json "$file"; rc=$?
[ $rc -eq 77 ] && exit 77
[ -s "$file" ] || { echo "FAIL sincosf_ulp (exit $rc) wrote no measurement"; exit 1; }
"$check" "$file"; crc=$?
[ $rc -eq 0 ] && [ $crc -eq 0 ] && { echo "PASS: measured within the premise"; exit 0; }
echo "FAIL: sincosf_ulp exit $rc, premise_check exit $crc"
exit 1
