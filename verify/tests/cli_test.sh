#!/usr/bin/env bash
# End-to-end tests of the rope2d program's CPU subcommands: outputs and exit codes.
set -u
rope2d="$1"
fails=0
passes=0
check() {  # check NAME EXPECTED_RC COMMAND... ; stdout+stderr left in $out
  local name=$1 want=$2; shift 2
  out=$("$@" 2>&1); local rc=$?
  if [ "$rc" != "$want" ]; then echo "FAIL $name: exit $rc, expected $want"; echo "$out" | head -5; fails=$((fails+1)); return 1; fi
  echo "ok   $name"; passes=$((passes+1))
}
expect() {  # expect NAME PATTERN: $out must contain PATTERN
  if ! grep -q -- "$2" <<<"$out"; then echo "FAIL $1: output lacks '$2'"; echo "$out" | head -5; fails=$((fails+1)); fi
}

check eval-hex 0 "$rope2d" eval 0x1.8p+0 -0.75 3
expect eval-exact '"exact": "5.308143603605332598025623918362805570249e-01"'
expect eval-fp32 '"fp32": "0x1.0fc6e6p-1"'
expect eval-bf16 '"bf16": "0x1.1p-1"'
# The allowance the verifier applies, per tier, with flush-to-zero alternatives and overflow.
check eval-ftz 0 "$rope2d" eval -- -0x1.f4p-1 -0x1.cp-131 -0x1.99f1b8p-128
expect eval-tier-name '"float32-bound": {'
expect eval-ftz-angle '"flushed": "angle"'
expect eval-ftz-ref '"fp32": "-0x1.cp-131"'
check eval-overflow 0 "$rope2d" eval --grad-dtype fp32 -- -0x1p+127 0x1.fffffep+127 0x1p-24
expect eval-overflow-fp32 '"fp32": "0x1.fffffep+127"'
expect eval-accepts-inf '"accepts_inf": true'
check eval-fp32-grads 0 "$rope2d" eval 0x1.99999ap-4 1 1 --grad-dtype fp32
expect eval-fp32-grads-dtype '"grad_dtype": "fp32"'
check eval-fp32-decimal-inexact 2 "$rope2d" eval 0.1 1 1 --grad-dtype fp32
expect eval-fp32-nearest 'nearest: 0x1.99999ap-4'
check eval-not-representable 2 "$rope2d" eval 0.1 1 1
expect eval-names-field 'GC: 0.1 is not exactly representable in bf16'
check eval-bad-number 2 "$rope2d" eval 1 zz 1
expect eval-names-gs 'GS: not a number'
check eval-bad-dtype 2 "$rope2d" eval 1 1 1 --grad-dtype fp8
check eval-nan 0 "$rope2d" eval nan 1 1
expect eval-nan-out '"fp32": "nan"'

check layout-seed 0 "$rope2d" layout --seed 3 --batch 2 --seq-len 5000
expect layout-seq-len '"seq_len": 5000'
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$rope2d" layout --seed 9 --batch 2 --seq-len 300 --emit >"$tmp/l.json"
check layout-file 0 "$rope2d" layout "$tmp/l.json" --positions
expect layout-positions '"positions"'
echo '{"schema":"rope2d.layout/1","batch":[[{"text":2}],[{"text":3}]]}' >"$tmp/bad.json"
check layout-bad-file 2 "$rope2d" layout "$tmp/bad.json"
expect layout-bad-names-field 'bad.json: layout: batch\[1\]'
check layout-missing-file 2 "$rope2d" layout "$tmp/nope.json"
expect layout-missing-says 'cannot open'

echo "cli: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
