#!/usr/bin/env bash
# Names we do not control never reach nvcc's shell: nvcc runs its sub-steps through `sh -c`
# with absolute paths in double quotes, where $(...) and backticks expand. Submissions named
# with $(), backticks, quotes, spaces, newlines and leading dashes, report folders (--out) and
# nightly config entries so named: each is built (its symbol is looked up, so nvcc ran) and
# runs nothing. Needs nvcc (no GPU): SKIPPED (exit 77) without it.
#   untrusted_names_test.sh ROPE2D [NVCC]
rope2d=$(realpath "$1") nvcc=${2:-}
[ -n "$nvcc" ] && [ -x "$nvcc" ] || { echo "SKIPPED: no nvcc (the names are only dangerous through it)"; exit 77; }
source "$(dirname "$0")/testlib.sh"
export PATH="$(dirname "$nvcc"):$PATH"  # the nightly's verifier children find it as "nvcc"
cd "$tmp" || exit 1
mkdir canary && cd canary || exit 1  # every command runs here: a $(touch X) would land here
pwned() { [ -z "$(find "$tmp" -name 'PWNED*' -print -quit)" ]; }
# A source that compiles and exports no rope2d_backward: exit 3 "missing symbol" proves nvcc ran.
src='int rope2d_not_the_entry_point;'
i=0
names=('k$(touch PWNED_a).cu' 'k`touch PWNED_b`.cu' "k'\$(touch PWNED_c)'.cu" 'k"$(touch PWNED_d)".cu' 'k with spaces.cu'
       $'k\n$(touch PWNED_e).cu' '-k$(touch PWNED_f).cu' '--out=$(touch PWNED_g).cu')
for name in "${names[@]}"; do
  i=$((i+1))
  printf '%s\n' "$src" >"./$name"
  out=$(timeout -k 5 300 "$rope2d" verify --nvcc "$nvcc" --quick --quiet -- "$name" 2>&1); rc=$?
  shown=$(printf '%q' "$name")
  [ $rc = 3 ] && grep -q "missing symbol rope2d_backward" <<<"$out" && ok "verify $shown: built, exit 3" ||
    { bad "verify $shown: exit $rc"; tail -3 <<<"$out"; }
  pwned && ok "verify $shown: nothing ran" || bad "verify $shown: a command ran ($(find "$tmp" -name 'PWNED*'))"
done
# The report folder's name: the default (reports/verify/<the source's stem>) and --out.
printf '%s\n' "$src" >plain.cu
private_tmp=$tmp/private-tmp  # the runs' own temporary folder: whatever they leave there is seen
mkdir -p "$private_tmp" && chmod 755 "$tmp" "$private_tmp"
for o in 'o$(touch PWNED_h)' 'o`touch PWNED_i`' $'o\n"$(touch PWNED_j)"' '-o$(touch PWNED_k)'; do
  out=$(TMPDIR=$private_tmp timeout -k 5 300 "$rope2d" verify --nvcc "$nvcc" --quick --quiet --out "./$o" plain.cu 2>&1); rc=$?
  shown=$(printf '%q' "$o")
  [ $rc = 3 ] && grep -q "missing symbol rope2d_backward" <<<"$out" && ok "--out $shown: built, exit 3" ||
    { bad "--out $shown: exit $rc"; tail -3 <<<"$out"; }
  pwned && ok "--out $shown: nothing ran" || bad "--out $shown: a command ran ($(find "$tmp" -name 'PWNED*'))"
  [ -s "./$o/build/submission.so" ] && ok "--out $shown: the build moved into the report folder" || bad "--out $shown: no build/submission.so"
done
# No build or scratch folder is left behind.
[ -z "$(ls -A "$private_tmp")" ] && ok "nothing left in the temporary folder" || bad "left in the temporary folder: $(ls -A "$private_tmp")"
# A nightly config entry: its stem names the verifier child's report folder; a leading dash
# must stay a path, not become an option of the child.
printf '%s\n' "$src" >'n$(touch PWNED_l).cu'
printf '%s\n' "$src" >'-n`touch PWNED_m`.cu'
python3 -c 'import json; print(json.dumps({"submissions": ["n$(touch PWNED_l).cu", "-n`touch PWNED_m`.cu"], "grad_dtypes": ["bf16"], "sweep": {"to": 1}}))' >cfg.json
timeout -k 5 600 "$rope2d" nightly --config cfg.json --golden none --quick --quiet --out night --date 2026-12-04 >night.log 2>&1
rc=$?
[ $rc = 1 ] && ok "nightly: exit 1 (the entries fail to load)" || { bad "nightly: exit $rc"; tail -5 night.log; }
pwned && ok "nightly: nothing ran" || bad "nightly: a command ran ($(find "$tmp" -name 'PWNED*'))"
python3 - night/2026-12-04/summary.json <<'PY' && ok "nightly: each entry built as a path, exit 3" || bad "nightly: $(grep -o '"exit": [0-9]*' night/2026-12-04/summary.json | tr '\n' ' ')"
import json, sys
v = {e["kernel"]: e["exit"] for e in json.load(open(sys.argv[1]))["verify"]}
sys.exit(0 if v.get("n$(touch PWNED_l)") == 3 and v.get("-n`touch PWNED_m`") == 3 else 1)
PY
finish untrusted_names
