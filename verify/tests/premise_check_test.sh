#!/usr/bin/env bash
# The measured premise against the header's: premise_check passes the committed measurement
# (reports/premise/sincosf_ulp.json), states the same k the proofs are run with (proof_constants'
# K), and refuses scratch copies whose measured error exceeds the premise (exit 1, naming the
# function) or that are malformed (exit 2).
# Usage: premise_check_test.sh PREMISE_CHECK PROOF_CONSTANTS MEASUREMENT.json
source "$(dirname "$0")/testlib.sh"
check=$1 constants=$2 committed=$3

out=$("$check" "$committed" 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q "within the premise" <<<"$out" && ! grep -q EXCEEDED <<<"$out" \
  && ok "committed measurement within the premise" || bad "committed measurement (rc $rc): $out"

# The k premise_check compares with is the K the Gappa scripts are instantiated with.
k_hex=$("$constants" | awk '$1 == "K" { print $2 }')
k=$(printf '%g' "$k_hex")
[ -n "$k_hex" ] && grep -q "premise (float32_bound.hpp, cuda_sincosf_bound): within $k floats" <<<"$out" \
  && ok "premise k = $k, the proofs' K ($k_hex)" || bad "premise k: proof_constants says '$k_hex', premise_check: $out"

# A scratch copy with one field changed: edit FIELD-PATH VALUE (a JSON literal).
edit() {
  python3 - "$committed" "$tmp/m.json" "$1" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
path, value = sys.argv[3].split("/"), json.loads(sys.argv[4])
node = m
for key in path[:-1]:
    node = node[key]
if value is None:
    del node[path[-1]]
else:
    node[path[-1]] = value
json.dump(m, open(sys.argv[2], "w"))
PY
}
expect() {  # expect RC PATTERN WHAT
  out=$("$check" "$tmp/m.json" 2>&1); rc=$?
  [ $rc -eq "$1" ] && grep -q -- "$2" <<<"$out" && ok "$3" || bad "$3: rc $rc, wanted $1 and '$2': $out"
}

edit functions/cosf/max_floats_from_correctly_rounded 3
expect 1 "PREMISE EXCEEDED: cosf measured 3 floats" "cosf 3 floats from the correctly rounded value refused"
edit functions/sincosf.sin/max_ulp_from_exact 2.6
expect 1 "PREMISE EXCEEDED: sincosf.sin measured 2.6 ulp" "sincosf.sin 2.6 ulp from the exact value refused"
edit functions/sinf/outside_unit_interval 1
expect 1 "PREMISE EXCEEDED: sinf returned 1 values outside" "sinf outside [-1, 1] refused"
edit functions/cosf/mpfr_recheck_ulp 2.75
expect 1 "PREMISE EXCEEDED: cosf measured 2.75 ulp from the exact value (MPFR re-check)" "cosf's MPFR re-check over k + 1/2 refused"
edit functions/sinf/max_ulp_from_exact 2.5
expect 0 "within the premise" "2.5 ulp from the exact value (k + 1/2) accepted"
edit schema '"rope2d.sincosf_ulp/2"'
expect 2 "schema: expected" "another schema refused"
edit functions/cosf null
expect 2 "functions.cosf: expected an object" "a missing function refused"
edit functions/cosf/max_floats_from_correctly_rounded '"2"'
expect 2 "max_floats_from_correctly_rounded" "a figure of the wrong type refused"
edit functions/sinf/at_x '"1.5"'
expect 2 "functions.sinf.at_x: expected a finite float32 as a C99 hex float" "an argument not in hex refused"
edit functions/sinf/max_ulp '1.0'
expect 2 "functions.sinf.max_ulp: expected only" "an unknown field of a function refused"
edit gpu '"H100"'
expect 2 "gpu: expected only" "an unknown field refused"
edit device '"'"$(printf 'x%.0s' {1..300})"'"'
expect 2 "device: expected a string of at most 256 characters" "a device name of 300 bytes refused"
"$check" "$tmp/absent.json" >/dev/null 2>&1; [ $? -eq 2 ] && ok "a missing file refused" || bad "a missing file"

finish premise_check_test
