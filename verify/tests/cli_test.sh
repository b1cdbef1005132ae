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

# One convention across subcommands.
check version 0 "$rope2d" --version
expect version-says '^rope2d [^ ]'
check unknown-subcommand 2 "$rope2d" bogus
expect unknown-names-it "unknown subcommand 'bogus'"
expect unknown-lists 'eval, layout, verify, nightly, report, golden, check'
check typo-subcommand 2 "$rope2d" verfy
expect typo-subcommand-guess "did you mean 'verify'"
check typo-option 2 "$rope2d" verify --qiuck
expect typo-option-guess "did you mean '--quick' for '--qiuck'"
expect typo-option-prefix "^rope2d: "
check help-example 0 "$rope2d" check --help
expect help-example-line "Example:"
check layout-file-refuses-seed 2 "$rope2d" layout "$tmp/l.json" --seed 3
expect layout-names-seed '--seed: makes a random layout'
check layout-file-refuses-batch 2 "$rope2d" layout "$tmp/l.json" --batch 4
expect layout-names-batch '--batch'
check layout-emit-refuses-positions 2 "$rope2d" layout --emit --positions
expect layout-names-positions '--positions: not with --emit'
check check-help 0 "$rope2d" check --help
expect check-help-tier-rule 'bf16-noise: rounding the grads to bf16'
expect check-help-tier-sol 'solexecbench: SOL-ExecBench'
expect check-help-names '"randn/bf16/2x256"'
expect check-help-stem 'golden file.s stem'
expect check-help-shape '\[batch, seq_len, head_dim\] or \[n\]'
expect check-help-out '--out'
expect check-help-quiet '--quiet'
# golden: progress within a problem (one line per phase when stderr is not a terminal).
"$rope2d" golden --layout "$tmp/l.json" --out "$tmp/g" >"$tmp/golden.out" 2>"$tmp/golden.err"
out=$(cat "$tmp/golden.err")
expect golden-progress-inputs '\[  1/1\] .*layout/bf16/2x300: inputs'
expect golden-progress-reference 'layout/bf16/2x300: reference (76800 elements)'
expect golden-progress-writing 'layout/bf16/2x300: writing'
# A problem larger than one reference slice (2^22 elements): an update within it, and the
# stored results equal the reference computed in one piece, bit for bit (check recomputes them).
"$rope2d" layout --seed 5 --batch 1 --seq-len 34000 --emit >"$tmp/big.json"
out=$("$rope2d" golden --layout "$tmp/big.json" --out "$tmp/gbig" 2>&1)
expect golden-progress-within 'layout/bf16/1x34000: reference, 4194304 of 4352000 elements'
check golden-sliced-equals-reference 0 "$rope2d" check --golden "$tmp/gbig" --quiet
expect golden-sliced-all-ok 'passed: 1 passed, 0 incorrect'
rm -rf "$tmp/gbig"
check golden-suite-and-layout 2 "$rope2d" golden --suite smoke --layout "$tmp/l.json" --out "$tmp/g2"
expect golden-names-suite '--suite: not with --layout'
# check: progress per problem on stderr, --quiet silences it, the report folder is --out.
out=$("$rope2d" check --golden "$tmp/g" 2>&1 >/dev/null)
expect check-progress '\[  1/1\] .*layout/bf16/2x300'
if [ -n "$("$rope2d" check --golden "$tmp/g" --quiet 2>&1 >/dev/null)" ]; then echo "FAIL check-quiet: stderr not empty"; fails=$((fails+1)); else echo "ok   check-quiet"; passes=$((passes+1)); fi
check check-out 0 "$rope2d" check --golden "$tmp/g" --quiet --out "$tmp/ck"
[ -f "$tmp/ck/report.md" ] && passes=$((passes+1)) || { echo "FAIL check --out wrote no report.md"; fails=$((fails+1)); }
check check-report-deprecated 0 "$rope2d" check --golden "$tmp/g" --quiet --report "$tmp/ck2"
expect check-report-warns '--report is deprecated; use --out'
[ -f "$tmp/ck2/report.md" ] && passes=$((passes+1)) || { echo "FAIL check --report wrote no report.md"; fails=$((fails+1)); }
check check-tier-without-outputs 2 "$rope2d" check --golden "$tmp/g" --tier bf16-noise
expect check-tier-names '--tier: only with --outputs'
check nightly-root-deprecated 2 "$rope2d" nightly --root "$tmp/nr" --date ../../escaped --quick --quiet
expect nightly-root-warns '--root is deprecated; use --out'
check nightly-out 2 "$rope2d" nightly --out "$tmp/nr" --date ../../escaped --quick --quiet
expect nightly-out-accepted "--date: expected YYYY-MM-DD, found '../../escaped'"
# The SOL-ExecBench export: relative paths resolve under FLASHINFER_TRACE_DIR=<the set> (after
# the harness's staging folder, here empty); absolute paths when asked. Same rule as the harness.
resolve() {  # resolve SET TRACE_ROOT MODE: every safetensors path of the export is a file
  python3 - "$@" <<'PY'
import json, os, sys, tempfile
s, root, mode = sys.argv[1:]
staging = tempfile.mkdtemp()
lines = [json.loads(l) for l in open(os.path.join(s, "solexecbench", "workload.jsonl")) if l.strip()]
assert lines, "no workloads"
for w in lines:
    for k, v in w["inputs"].items():
        p = v["path"]
        assert os.path.isabs(p) == (mode == "absolute"), f"{w['uuid']} {k}: path {p} (expected {mode})"
        assert ".." not in p.split("/"), f"{w['uuid']} {k}: path {p} leaves the trace root"
        assert any(os.path.isfile(os.path.join(r, p)) for r in (staging, root)), f"{w['uuid']} {k}: {p} does not resolve"
os.rmdir(staging)
d = json.load(open(os.path.join(s, "solexecbench", "definition.json")))
assert list(d) == ["name", "axes", "inputs", "outputs", "reference"], list(d)
assert d["name"] == "090_batched_2d_rope_position_encoding_backward"
print("resolved", len(lines), "workloads")
PY
}
check sol-relative 0 resolve "$tmp/g" "$tmp/g" relative
check golden-absolute 0 "$rope2d" golden --layout "$tmp/l.json" --out "$tmp/ga" --quiet --solexecbench-paths absolute
check sol-absolute 0 resolve "$tmp/ga" /nonexistent absolute
grep -q 'solexecbench-paths absolute' "$tmp/ga/manifest.json" && passes=$((passes+1)) || { echo "FAIL manifest command lacks --solexecbench-paths"; fails=$((fails+1)); }
check golden-paths-bad 2 "$rope2d" golden --layout "$tmp/l.json" --out "$tmp/gb" --solexecbench-paths up

# The angle sweep alone: --quick keeps it short with or without a GPU (without one, the host path).
check sweep-quick 0 "$rope2d" sweep --quick --quiet --out "$tmp/sw"
expect sweep-summary 'over float32-bound'
expect sweep-pairs '| subnormal gc | 0x1p-140 |'
[ -s "$tmp/sw/sweep_worst.txt" ] && [ -s "$tmp/sw/sweep.json" ] && passes=$((passes+1)) || { echo "FAIL sweep files missing"; fails=$((fails+1)); }
grep -q '^# made by: rope2d sweep --range 0x0:0x100000000 --quick' "$tmp/sw/sweep_worst.txt" && passes=$((passes+1)) ||
  { echo "FAIL sweep worst list header"; fails=$((fails+1)); }
check sweep-shard 0 "$rope2d" sweep --quick --quiet --range 0x30000000:0x40000000 --shard 1/4 --out "$tmp/sw2"
expect sweep-shard-range 'bit patterns \[0x34000000, 0x38000000)'
# Shards split at whole chunks of 2^26 patterns: one chunk has no second shard.
check sweep-empty-shard 2 "$rope2d" sweep --quick --quiet --range 0x3f800000:0x40000000 --shard 1/4 --out "$tmp/sw3"
expect sweep-empty-shard-says 'holds 1 chunk'
check sweep-bad-range 2 "$rope2d" sweep --range 5:3 --out "$tmp/sw3"
expect sweep-bad-range-says '--range: expected LO < HI'
check sweep-bad-number 2 "$rope2d" sweep --range 0:zz --out "$tmp/sw3"
expect sweep-bad-number-says '--range HI: expected a bit pattern'
check sweep-too-far 2 "$rope2d" sweep --range 0:0x100000001 --out "$tmp/sw3"
# --json: report.json alone on stdout (the summary on stderr); --trace: one Trace line per set.
smoke="$(dirname "$0")/../../data/golden-smoke"
"$rope2d" check --golden "$smoke" --trace "$tmp/t.jsonl" --json --quiet >"$tmp/check.json" 2>"$tmp/check.err"; rc=$?
if [ $rc = 0 ] && python3 - "$tmp/check.json" "$tmp/t.jsonl" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
assert len(lines) == len(report["results"]) > 0, (len(lines), len(report["results"]))
for l, r in zip(lines, report["results"]):
    assert l["workload"]["uuid"] == r["name"] and l["definition"].startswith("090_"), l["workload"]["uuid"]
    assert l["evaluation"]["status"] == r["status"] == ("PASSED" if r["disposition"] == "passed" else "INCORRECT_NUMERICAL"), r["name"]
PY
then echo "ok   check --json --trace: report.json on stdout, one trace line per set"; passes=$((passes+1))
else echo "FAIL check --json --trace: exit $rc"; head -c 300 "$tmp/check.json"; fails=$((fails+1)); fi
grep -q "passed" "$tmp/check.err" && ok_summary=1 || ok_summary=0
[ $ok_summary = 1 ] && { echo "ok   check --json: the summary went to stderr"; passes=$((passes+1)); } ||
  { echo "FAIL check --json: no summary on stderr"; fails=$((fails+1)); }
check sweep-bad-shard 2 "$rope2d" sweep --shard 3/2 --out "$tmp/sw3"
check sweep-all-and-range 2 "$rope2d" sweep --all --range 0:5 --out "$tmp/sw3"
# sweep and nightly write into a relative --out (their defaults: reports/...) through no link in
# the current folder, as verify does; an empty --out is bad input before any work.
mkdir -p "$tmp/linkcwd" "$tmp/linkvictim" && ln -sfn "$tmp/linkvictim" "$tmp/linkcwd/reports"
(cd "$tmp/linkcwd" && "$rope2d" sweep --range 0:16 --quick --quiet >"$tmp/linkcwd.out" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "found a symbolic link" "$tmp/linkcwd.out" && { echo "ok   sweep-default-out-link"; passes=$((passes+1)); } ||
  { echo "FAIL sweep-default-out-link: exit $rc"; fails=$((fails+1)); }
(cd "$tmp/linkcwd" && "$rope2d" nightly --quick --quiet --date 2026-01-01 >"$tmp/linkcwd.out" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "found a symbolic link" "$tmp/linkcwd.out" && { echo "ok   nightly-default-out-link"; passes=$((passes+1)); } ||
  { echo "FAIL nightly-default-out-link: exit $rc"; fails=$((fails+1)); }
[ -z "$(ls -A "$tmp/linkvictim")" ] || { echo "FAIL default-out-link: written through the link"; fails=$((fails+1)); }
check sweep-empty-out 2 "$rope2d" sweep --range 0:16 --quick --out ""
check nightly-empty-out 2 "$rope2d" nightly --quick --out "" --date 2026-01-01
# sweep checks its submission as verify does, GPU or not: no file, or no kernel kind, is bad input.
check sweep-missing-submission 2 "$rope2d" sweep "$tmp/nowhere.so" --range 0:16 --out "$tmp/sw4"
expect sweep-missing-submission-says "nowhere.so: no such file"
echo text >"$tmp/notakernel.txt"
check sweep-no-kernel-kind 2 "$rope2d" sweep "$tmp/notakernel.txt" --range 0:16 --out "$tmp/sw4"
if ! nvidia-smi -L >/dev/null 2>&1; then
  check sweep-submission-no-gpu 0 "$rope2d" sweep "$(dirname "$0")/kernels/accurate_simple.cu" --range 0:16 --out "$tmp/sw5"
  expect sweep-submission-no-gpu-says "accurate_simple.cu was neither built nor run"
fi
# Never "passed" on nothing: every selected set beyond the solution's definition (090: bf16).
sol="$(dirname "$0")/solutions/torch_eager.json"
check beyond-only-dtype 2 "$rope2d" verify "$sol" --grad-dtypes fp16 --quick --out "$tmp/beyond"
expect beyond-only-dtype-says "every selected set lies beyond the definition"
check beyond-only-name 2 "$rope2d" verify "$sol" --only odd/fp16/n=7 --grad-dtypes fp16 --quick --out "$tmp/beyond2"
# --list runs and writes nothing: no report folder, no solution sources written out.
mkdir -p "$tmp/listing" && (cd "$tmp/listing" && "$rope2d" verify "$sol" --list >../listing.out 2>&1); rc=$?
if [ $rc = 0 ] && grep -q "reproduce: rope2d verify" "$tmp/listing.out" && [ -z "$(ls -A "$tmp/listing")" ]; then
  echo "ok   list-writes-nothing"; passes=$((passes+1))
else echo "FAIL list-writes-nothing: exit $rc, left: $(cd "$tmp/listing" && find . | head -3)"; fails=$((fails+1)); fi
# Nor on sets of no elements, for a solution or a kernel (control: one element is judged).
check empty-only-solution 2 "$rope2d" verify "$sol" --only odd/bf16/n=0 --quick --out "$tmp/empty1"
check empty-only-kernel 2 "$rope2d" verify --only odd/bf16/n=0 --out "$tmp/empty2"
expect empty-only-kernel-says "every selected set has no elements"
check one-element-kernel 0 "$rope2d" verify --only odd/bf16/n=1 --rounds 1 --out "$tmp/empty3"
# --hide: an existing folder the box can run without, each once; a typo or /usr is bad input,
# and neither --hide nor --nvcc-flag takes the SUBMISSION after it as a second value.
check hide-missing 2 "$rope2d" verify --hide "$tmp/no-such-folder" --only odd/bf16/n=1 --rounds 1 --out "$tmp/hide1"
expect hide-missing-named "--hide: expected an existing folder"
check hide-system 2 "$rope2d" verify --hide /usr --only odd/bf16/n=1 --rounds 1 --out "$tmp/hide2"
expect hide-system-named "--hide: expected a folder the box can run without"
check hide-then-submission 2 "$rope2d" verify --hide "$tmp" "$tmp/no-such.cu" --only odd/bf16/n=1 --rounds 1 --out "$tmp/hide3"
expect hide-then-submission-named "no-such.cu"
check flag-then-submission 2 "$rope2d" verify --nvcc-flag=-O3 "$tmp/no-such.cu" --only odd/bf16/n=1 --rounds 1 --out "$tmp/hide4"
expect flag-then-submission-named "no-such.cu"
# A submission file is read beneath its folder: a link out of it is refused, never followed
# (the verifier may read what the submitter cannot, and would quote it); a link inside is read.
mkdir -p "$tmp/inbox" "$tmp/elsewhere" && echo 'int SECRET_LINE_7f3 = 1;' >"$tmp/elsewhere/secret.cu"
ln -sf "$tmp/elsewhere/secret.cu" "$tmp/inbox/kernel.cu"
check link-out-kernel 3 "$rope2d" verify "$tmp/inbox/kernel.cu" --only odd/bf16/n=1 --rounds 1 --out "$tmp/linkout"
expect link-out-kernel-says "a link out of its folder"
grep -rq SECRET_LINE_7f3 "$tmp/linkout" && { echo "FAIL link-out-kernel: the linked file was quoted"; fails=$((fails+1)); }
cp "$sol" "$tmp/elsewhere/solution.json" && ln -sf "$tmp/elsewhere/solution.json" "$tmp/inbox/solution.json"
check link-out-solution 2 "$rope2d" verify "$tmp/inbox/solution.json" --quick --out "$tmp/linkout2"
expect link-out-solution-says "not a link out of it"
# A header the source includes that is a link is not copied for its build, and the report says
# so (its build's "not found" alone would not tell why).
printf '#pragma once\n' >"$tmp/elsewhere/scale.h" && ln -sf "$tmp/elsewhere/scale.h" "$tmp/inbox/scale.h"
{ echo '#include "scale.h"'; cat "$(dirname "$0")/kernels/accurate_simple.cu"; } >"$tmp/inbox/with_header.cu"
check linked-header 3 "$rope2d" verify "$tmp/inbox/with_header.cu" --only odd/bf16/n=1 --rounds 1 --out "$tmp/linkhdr"
grep -q "the header scale.h was not copied for the build: it is a link" "$tmp/linkhdr/report.md" && { echo "ok   linked-header-said"; passes=$((passes+1)); } ||
  { echo "FAIL linked-header-said: the report does not name the header"; fails=$((fails+1)); }
# Headers named like the verifier's own files in the box's scratch folder (its watcher "host",
# the built submission.so) are copied and built with, never over those files, never dropped.
mkdir -p "$tmp/clash/host" && printf '#pragma once\n#define CLASH_OK 1\n' >"$tmp/clash/host/x.h" && echo 'not a header' >"$tmp/clash/host.txt"
printf '#pragma once\n' >"$tmp/clash/submission.so"
{ echo '#include "host/x.h"'; echo '#if 0'; echo '#include "submission.so"'; echo '#endif'
  echo '#if !CLASH_OK'; echo '#error the header host/x.h was not there'; echo '#endif'
  cat "$(dirname "$0")/kernels/accurate_simple.cu"; } >"$tmp/clash/clash.cu"
check header-names-clash 0 "$rope2d" verify "$tmp/clash/clash.cu" --only odd/bf16/n=1 --rounds 1 --out "$tmp/clashout"
# A report folder's build/ holds this run's built object alone: a .so verified after a .cu into
# the same folder leaves no stale submission.so there; a file of anyone else's is refused.
mkdir -p "$tmp/prebuilt" && cp "$tmp/clashout/build/submission.so" "$tmp/prebuilt/k.so"
"$rope2d" verify "$tmp/prebuilt/k.so" --only odd/bf16/n=1 --rounds 1 --out "$tmp/clashout" >/dev/null 2>&1
if [ ! -s "$tmp/prebuilt/k.so" ]; then echo "FAIL stale-build: the .cu's run left no build/submission.so to test with"; fails=$((fails+1))
elif [ -e "$tmp/clashout/build/submission.so" ]; then echo "FAIL stale-build: the .cu's build stayed beside the .so's report"; fails=$((fails+1))
else echo "ok   stale-build"; passes=$((passes+1)); fi
# An earlier run's build verified again into the same folder is the submission: never removed.
"$rope2d" verify "$(dirname "$0")/kernels/accurate_simple.cu" --only odd/bf16/n=1 --rounds 1 --out "$tmp/again" >/dev/null 2>&1
check build-verified-again 0 "$rope2d" verify "$tmp/again/build/submission.so" --only odd/bf16/n=1 --rounds 1 --out "$tmp/again"
[ -s "$tmp/again/build/submission.so" ] || { echo "FAIL build-verified-again: the submission was removed"; fails=$((fails+1)); }
mkdir -p "$tmp/clashout/build" && echo mine >"$tmp/clashout/build/notes.txt"
check foreign-build-folder 2 "$rope2d" verify "$tmp/prebuilt/k.so" --only odd/bf16/n=1 --rounds 1 --out "$tmp/clashout"
expect foreign-build-folder-says "found a folder of other files (notes.txt)"
# The report's path is shown as text: a name with control characters cannot draw on the terminal.
mkdir -p "$tmp/ctl" && ctl_name=$'\e[2J\e[32mpassed\nx.cu' && cp "$(dirname "$0")/kernels/accurate_simple.cu" "$tmp/ctl/$ctl_name"
(cd "$tmp/ctl" && "$rope2d" verify "$ctl_name" --only odd/bf16/n=1 --rounds 1 >"$tmp/ctl.out" 2>&1)
if grep -q $'\e' "$tmp/ctl.out"; then echo "FAIL control-name: an escape character reached the terminal"; fails=$((fails+1))
else echo "ok   control-name"; passes=$((passes+1)); fi
# Without a GPU the submission is built and loaded in boxes by the checks that need none: a
# SIGTERM (or another signal whose default ends a process, SIGUSR1) meanwhile ends them, their
# boxes with them, and leaves nothing in TMPDIR (one the box's user can search, as a user's is).
mkdir -p "$tmp/term/tmp" && chmod 755 "$tmp" "$tmp/term" "$tmp/term/tmp" && printf '%s\n' '#include <unistd.h>' '#include <cstdint>' '#include <cuda_runtime.h>' \
  '__attribute__((constructor)) static void slow() { sleep(60); }' \
  'extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return 0; }' >"$tmp/term/slow.cu"
if ! nvidia-smi -L >/dev/null 2>&1; then
  for sig in TERM USR1; do
    TMPDIR="$tmp/term/tmp" "$rope2d" verify "$tmp/term/slow.cu" --only odd/bf16/n=1 --rounds 1 --out "$tmp/term/out" >"$tmp/term.log" 2>&1 &
    vpid=$!
    sleep 4 && kill -$sig $vpid; wait $vpid; rc=$?
    n=$(kill -l $sig)
    if [ $rc = $((128 + n)) ] && [ -z "$(ls -A "$tmp/term/tmp")" ] && grep -q "ended by signal $n" "$tmp/term.log"; then
      echo "ok   $sig-cpu-only"; passes=$((passes+1))
    else echo "FAIL $sig-cpu-only: exit $rc, left: $(ls -A "$tmp/term/tmp" | head -3)"; tail -n 3 "$tmp/term.log"; fails=$((fails+1)); fi
  done
fi
# A TMPDIR the box's user cannot search (run as root, the box drops to another user) is the
# environment's fault: exit 2 naming it, not every submission's "compilation failed".
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$tmp/closed/tmp" && chmod 700 "$tmp/closed"
  TMPDIR="$tmp/closed/tmp" check closed-tmpdir 2 "$rope2d" verify "$(dirname "$0")/kernels/accurate_simple.cu" --only odd/bf16/n=1 --rounds 1 --out "$tmp/closedout"
  expect closed-tmpdir-says "cannot search $tmp/closed"
  [ -z "$(ls -A "$tmp/closed/tmp")" ] || { echo "FAIL closed-tmpdir: a folder was left in TMPDIR"; fails=$((fails+1)); }
fi
# A HOME that holds the system (HOME=/usr) would be hidden in the box with everything that runs
# there: the environment's fault, exit 2 naming it, not the submission's failure.
HOME=/usr check home-holds-system 2 "$rope2d" verify "$(dirname "$0")/kernels/accurate_simple.cu" --only odd/bf16/n=1 --rounds 1 --out "$tmp/homeusr"
expect home-holds-system-says "HOME (/usr): the box hides the caller's home folder"
# Where no box can be built (no bubblewrap: the program hidden under /dev/null in a mount
# namespace of this test's, where one can be made) a submission is not run unconfined behind the
# user's back: verify exits 2 naming why and --no-sandbox, before any report folder (a .cu and a
# solution.json); a sweep, where a GPU would run it, exits 2 too, and without one runs nothing of
# it. --no-sandbox runs it, and its report says NOT CONFINED. With the box, the report names it
# and its time limits.
kernel=$(dirname "$0")/kernels/accurate_simple.cu
nvcc_bin=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
bwrap_at=$(command -v bwrap)
box_works() { bwrap --ro-bind / / true 2>/dev/null; }
if [ -n "$bwrap_at" ] && [ -x "$nvcc_bin/nvcc" ] && unshare -m --propagation private true 2>/dev/null; then
  nobox() { PATH=$nvcc_bin:$PATH unshare -m --propagation private sh -c 'mount --bind /dev/null "$0" && exec "$@"' "$bwrap_at" "$@"; }
  check nobox-verify 2 nobox "$rope2d" verify "$kernel" --only odd/bf16/n=1 --rounds 1 --out "$tmp/nobox"
  expect nobox-verify-says "the sandbox cannot be built here: bubblewrap (bwrap) is not installed"
  expect nobox-verify-names "--no-sandbox"
  [ ! -e "$tmp/nobox" ] || { echo "FAIL nobox-verify: a report folder was made"; fails=$((fails+1)); }
  check nobox-solution 2 nobox "$rope2d" verify "$(dirname "$0")/solutions/torch_eager.json" --quick --out "$tmp/noboxsol"
  expect nobox-solution-says "the sandbox cannot be built here"
  [ ! -e "$tmp/noboxsol" ] || { echo "FAIL nobox-solution: a report folder was made"; fails=$((fails+1)); }
  if nvidia-smi -L >/dev/null 2>&1; then
    check nobox-sweep 2 nobox "$rope2d" sweep "$kernel" --quick --out "$tmp/noboxsweep"
    expect nobox-sweep-says "the sandbox cannot be built here"
  else
    check nobox-sweep 0 nobox "$rope2d" sweep "$kernel" --quick --out "$tmp/noboxsweep"
    expect nobox-sweep-says "was neither built nor run"
  fi
  check nobox-unconfined 0 nobox "$rope2d" verify "$kernel" --only odd/bf16/n=1 --rounds 1 --no-sandbox --out "$tmp/unconfined"
  grep -q "^- confinement: \`NOT CONFINED (--no-sandbox)" "$tmp/unconfined/report.md" && { echo "ok   nobox-unconfined-report"; passes=$((passes+1)); } ||
    { echo "FAIL nobox-unconfined: the report does not say NOT CONFINED"; grep -m2 "confinement" "$tmp/unconfined/report.md"; fails=$((fails+1)); }
fi
if box_works && [ -x "$nvcc_bin/nvcc" ]; then
  PATH=$nvcc_bin:$PATH check boxed-lines 0 "$rope2d" verify "$kernel" --only odd/bf16/n=1 --rounds 1 --build-timeout 77 --load-timeout 33 --out "$tmp/boxed"
  for line in "^- confinement: \`bubblewrap: new user, PID, network" "^- time limits: \`77 s for the build (--build-timeout), 33 s for the load check (--load-timeout); killed past its limit"; do
    grep -q "$line" "$tmp/boxed/report.md" && { echo "ok   boxed-lines: $line"; passes=$((passes+1)); } ||
      { echo "FAIL boxed-lines: the report lacks $line"; grep -m3 "confinement\|time limits" "$tmp/boxed/report.md"; fails=$((fails+1)); }
  done
fi
# Without a GPU a cuda_cpp solution's build (torch's, in the Python host) is said SKIPPED, and a
# box that never ran is not said to have refused nothing.
if ! nvidia-smi -L >/dev/null 2>&1; then
  check cudacpp-no-gpu 0 "$rope2d" verify "$(dirname "$0")/solutions/cuda_sincosf.json" --quick --out "$tmp/cudacpp"
  expect cudacpp-no-gpu-says "build SKIPPED: its C++/CUDA sources are built through torch"
  grep -q "not counted" "$tmp/cudacpp/report.md" && { echo "FAIL cudacpp-no-gpu: a refusal line for a box that never ran"; fails=$((fails+1)); }
fi
# A solution's sources folder in the report folder is the run's alone: emptied where the
# verifier made it, refused where it holds anything else.
check sources-fresh-1 0 "$rope2d" verify "$sol" --quick --out "$tmp/fresh"
echo stale >"$tmp/fresh/solution/left_by_another.py"
check sources-fresh-2 0 "$rope2d" verify "$sol" --quick --out "$tmp/fresh"
[ -e "$tmp/fresh/solution/left_by_another.py" ] && { echo "FAIL sources-fresh: a file of an earlier run stayed"; fails=$((fails+1)); }
mkdir -p "$tmp/foreign/solution" && echo mine >"$tmp/foreign/solution/notes.txt"
check sources-foreign 2 "$rope2d" verify "$sol" --quick --out "$tmp/foreign"

# Without a GPU and without --out, the report goes to <name>-no-gpu: a judged run's report in
# A submission larger than its kind's limit is bad input, refused before a byte is hashed or
# copied (sparse files: no disk used).
truncate -s 8G "$tmp/huge.cu" && truncate -s 300M "$tmp/huge.so"
check huge-source 2 timeout 20 "$rope2d" verify "$tmp/huge.cu" --quick --out "$tmp/huge-cu"
expect huge-source-says "huge.cu: expected a .cu submission of at most 32 MiB, found 8589934592 bytes"
check huge-library 2 timeout 20 "$rope2d" verify "$tmp/huge.so" --quick --out "$tmp/huge-so"
expect huge-library-says "huge.so: expected a .so submission of at most 256 MiB, found 314572800 bytes"
# A built object is held to the same limit: a small source whose object is 260 MiB of data is a
# failed build (exit 3), and nothing of it lands in the report folder.
printf '%s\n' '#include <cstdint>' '#include <cuda_runtime.h>' '__attribute__((used)) char blob[260u << 20] = {1};' \
  'extern "C" int rope2d_backward(const void*, const void*, const float*, float*, int64_t, int, cudaStream_t) { return blob[0]; }' >"$tmp/bigobj.cu"
check huge-built-object 3 timeout 300 "$rope2d" verify "$tmp/bigobj.cu" --only odd/bf16/n=1 --rounds 1 --out "$tmp/bigobj"
expect huge-built-object-says "the built submission.so is [0-9]* bytes, over the 256 MiB"
[ -e "$tmp/bigobj/build/submission.so" ] && { echo "FAIL huge-built-object: it was copied into the report folder"; fails=$((fails+1)); }
rm -f "$tmp/huge.cu" "$tmp/huge.so"
# reports/verify/<name> is never replaced by one that judged nothing (run from a scratch folder).
if ! nvidia-smi -L >/dev/null 2>&1; then
  mkdir -p "$tmp/cwd/reports/verify/rope2d" && echo "judged" >"$tmp/cwd/reports/verify/rope2d/report.md"
  (cd "$tmp/cwd" && "$rope2d" verify --only 'odd/bf16/n=1' --rounds 1 >"$tmp/cwd.log" 2>&1)
  if grep -qx judged "$tmp/cwd/reports/verify/rope2d/report.md" && [ -f "$tmp/cwd/reports/verify/rope2d-no-gpu/report.json" ]; then
    echo "ok   no-gpu-report-beside"; passes=$((passes+1))
  else
    echo "FAIL no-gpu-report-beside: the judged report was replaced, or none written beside it"; tail -n 3 "$tmp/cwd.log"; fails=$((fails+1))
  fi
fi
echo "cli: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
