#!/usr/bin/env bash
# The Python solutions of tests/python_solutions under `rope2d verify solution.json --quick
# --grad-dtypes bf16`:
# each must get its expected verdict (expected.txt) with its named reason (a regex) in the report, and the
# wall time of each run is printed (the constexpr-size Triton one must stay under QUICK_LIMIT_S).
# The verifier runs with ROPE2D_REQUIRE_GPU=1, a variable of its own that the solutions that
# sniff for one (sniffs_environ, ...) would see if it reached them. VERIFY_ARGS: more arguments
# for `rope2d verify` (--no-sandbox where bubblewrap is missing).
# usage: python_solutions_test.sh ROPE2D SOLUTIONS_DIR WORK_DIR [NAME...]; exit 77 without a GPU or torch.
set -u
rope2d=$1 dir=$2 work=$3
shift 3
python3 -c "import torch, triton, safetensors; assert torch.cuda.is_available()" 2>/dev/null \
  || { echo "SKIPPED: no CUDA device, or no torch, triton and safetensors"; exit 77; }
source "$(dirname "$0")/testlib.sh"
limit=${QUICK_LIMIT_S:-30}
mkdir -p "$work"
while read -r name verdict reason; do
  case $name in ''|'#'*) continue ;; esac
  [ $# -gt 0 ] && [[ " $* " != *" $name "* ]] && continue
  rm -rf "$work/$name"
  t0=$(date +%s.%N)
  # bf16: the definition's grad dtype (each further dtype compiles a constexpr-size kernel again);
  # 60 s a call: a first call may compile (torch.compile, Triton).
  # shellcheck disable=SC2086  # VERIFY_ARGS: words
  PATH=/usr/local/cuda/bin:$PATH ROPE2D_REQUIRE_GPU=1 "$rope2d" verify "$dir/$name/solution.json" --quick --grad-dtypes bf16 \
    --call-timeout 60 --quiet --out "$work/$name" ${VERIFY_ARGS:-} >"$work/$name.log" 2>&1
  rc=$?
  wall=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $t0}")
  want=$(case $verdict in passed) echo 0 ;; incorrect) echo 1 ;; *) echo 3 ;; esac)
  echo "$name: exit $rc in $wall s (expected $verdict)"
  grep -m1 "time per set" "$work/$name/report.md" 2>/dev/null | cut -c1-400
  if [ "$rc" != "$want" ]; then bad "$name: exit $rc, expected $want ($verdict)"; tail -n 15 "$work/$name.log"; continue; fi
  if [ "$reason" != "-" ] && ! grep -qE -- "$reason" "$work/$name/report.md"; then
    bad "$name: the report does not name \"$reason\""; grep -m3 -i "integrity\|error\|FAIL" "$work/$name/report.md"; continue
  fi
  if [ "$name" = triton_constexpr ] && awk "BEGIN {exit !($wall > $limit)}"; then bad "$name: --quick took $wall s, over $limit s"; continue; fi
  ok "$name: $verdict${reason:+ ($reason)}"
done <"$dir/expected.txt"
finish python_solutions_test
