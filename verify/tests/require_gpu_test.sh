#!/usr/bin/env bash
# `rope2d verify` without a GPU: --require-gpu (or ROPE2D_REQUIRE_GPU=1) makes the skipped kernel
# runs exit 4, and a Python solution is at least byte-compiled (a syntax error is exit 3, before
# the GPU question); a solution.json's sets are its definition's grad dtypes unless --grad-dtypes
# says (--list). SKIPPED (77) on a machine with a GPU, where the kernel runs happen.
# Usage: require_gpu_test.sh ROPE2D REPO
here=$(cd "$(dirname "$0")" && pwd)
source "$here/testlib.sh"
rope2d=$1 repo=$2
if command -v nvidia-smi >/dev/null; then echo "SKIPPED: a GPU is present"; exit 77; fi
cd "$tmp"
golden=$repo/data/golden-smoke
run() {  # run NAME WANT_RC ARGS...: rope2d verify's exit code and output (in NAME.out)
  local name=$1 want=$2; shift 2
  "$@" >"$name.out" 2>&1; local rc=$?
  if [ "$rc" -eq "$want" ]; then ok "$name"; else bad "$name (exit $rc, expected $want)"; cat "$name.out"; fi
}
says() { if grep -qF -- "$2" "$1.out"; then ok "$1 says: $2"; else bad "$1 does not say: $2"; cat "$1.out"; fi; }
v() { "$rope2d" verify --quick --quiet --golden "$golden" "$@"; }

run plain 0 v --out r1
says plain 'kernel runs SKIPPED (no GPU)'
run require 4 v --out r2 --require-gpu
says require '--require-gpu: the kernel runs were SKIPPED'
run env 4 env ROPE2D_REQUIRE_GPU=1 "$rope2d" verify --quick --quiet --golden "$golden" --out r3
run env-zero 0 env ROPE2D_REQUIRE_GPU=0 "$rope2d" verify --quick --quiet --golden "$golden" --out r4
# The nightly runs verify for each kernel: with the variable set, a night without a GPU fails.
run nightly-plain 0 "$rope2d" nightly --quick --quiet --out n1
run nightly-require 1 env ROPE2D_REQUIRE_GPU=1 "$rope2d" nightly --quick --quiet --out n2
says nightly-require 'Status: FAILED'
run env-bad 2 env ROPE2D_REQUIRE_GPU=yes "$rope2d" verify --quick --quiet --golden "$golden" --out r5
says env-bad 'ROPE2D_REQUIRE_GPU: expected 1'

if command -v python3 >/dev/null; then
  # A Triton-shaped solution as the official ones are written: binding null, dps false, LOCAL.
  python3 - "$repo/verify/tests/solution_cases/cases.json" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))["bases"]["triton"]
json.dump(base, open("good.json", "w"))
bad = copy.deepcopy(base)
bad["sources"][0]["content"] += "\ndef broken(:\n"
json.dump(bad, open("syntax.json", "w"))
path_only = copy.deepcopy(base)
open("kernel.py", "w").write(base["sources"][0]["content"])
path_only["sources"] = [{"path": "kernel.py"}]
json.dump(path_only, open("path_only.json", "w"))
PY
  run solution-good 0 v good.json --out r6
  says solution-good '1 Python source(s) byte-compiled'
  run solution-good-require 4 v good.json --out r7 --require-gpu
  run solution-syntax 3 v syntax.json --out r8
  says solution-syntax 'FAILED to byte-compile'
  says solution-syntax 'SyntaxError'
  run solution-syntax-require 3 v syntax.json --out r9 --require-gpu
  run solution-path-only 0 v path_only.json --out r10
  says solution-path-only '1 Python source(s) byte-compiled'
  cmp -s kernel.py r10/solution/kernel.py && ok "path-only source written from the file beside" || bad "path-only source not written"
else
  echo "skip the solution cases (no python3)"
fi
# --- the problem a solution declares: its definition's grad dtypes by default ------------------
count() {  # count NAME DTYPE ARGS...: how many listed sets have that grad dtype
  local name=$1 dt=$2; shift 2
  "$rope2d" verify --list --quick "$@" 2>"$name.err" | grep -c "^[a-z_]*/$dt/"
}
sample=$repo/verify/tests/solutions/triton_sincos.json
[ "$(count def-bf16 bf16 "$sample")" -gt 0 ] && ok "solution: bf16 sets" || bad "solution: no bf16 sets"
[ "$(count def-fp16 fp16 "$sample")" -eq 0 ] && ok "solution: no fp16 set by default (090 fixes bf16)" || bad "solution: fp16 sets by default"
[ "$(count def-fp32 fp32 "$sample")" -eq 0 ] && ok "solution: no fp32 set by default" || bad "solution: fp32 sets by default"
[ "$(count asked-fp16 fp16 "$sample" --grad-dtypes bf16,fp16)" -gt 0 ] && ok "solution: fp16 when asked" || bad "solution: no fp16 when asked"
[ "$(count kernel-fp16 fp16)" -gt 0 ] && [ "$(count kernel-fp32 fp32)" -gt 0 ] && ok "the project's kernel: every dtype" \
  || bad "the project's kernel lost a dtype"
# Sizes the definition's head_dim (128) does not divide: left out unless --beyond-axes.
if "$rope2d" verify --list --quick "$sample" | grep -q '^odd/bf16/n=7 '; then bad "solution: odd/bf16/n=7 by default"; else ok "solution: no size off the axes by default"; fi
if "$rope2d" verify --list --quick --beyond-axes "$sample" | grep -q '^odd/bf16/n=7 '; then ok "solution: --beyond-axes adds them"; else bad "solution: --beyond-axes adds nothing"; fi
if "$rope2d" verify --list --quick | grep -q '^odd/bf16/n=7 '; then ok "the project's kernel: every size"; else bad "the project's kernel lost odd sizes"; fi
# A definition the verifier does not know: the definition.json beside the solution decides.
mkdir -p own && sed 's/"definition": *"[^"]*"/"definition": "091_own_rope_backward"/' "$sample" >own/solution.json
sed 's/"name": *"[^"]*"/"name": "091_own_rope_backward"/; s/"bfloat16"/"float16"/g' \
  "$repo/data/golden-smoke/solexecbench/definition.json" >own/definition.json
[ "$(count own-fp16 fp16 own/solution.json)" -gt 0 ] && [ "$(count own-bf16 bf16 own/solution.json)" -eq 0 ] \
  && ok "a definition.json beside the solution decides" || bad "definition.json beside the solution ignored"
# One the verifier knows (090) may only agree with it: another grad dtype is refused.
mkdir -p known && cp "$sample" known/solution.json
sed 's/"name": *"[^"]*"/"name": "090_batched_2d_rope_position_encoding_backward"/; s/"bfloat16"/"float16"/g' \
  "$repo/data/golden-smoke/solexecbench/definition.json" >known/definition.json
run known-redrawn 2 "$rope2d" verify --list --quick known/solution.json
says known-redrawn "inputs.grad_cos.dtype: expected bf16"
echo '{"name": "091_own_rope_backward", "inputs": {"grad_cos": {"dtype": "int8"}}}' >own/definition.json
run own-bad 2 "$rope2d" verify --list --quick own/solution.json
says own-bad 'definition.json: inputs.grad_cos.dtype: expected "bfloat16", "float16" or "float32", found the string "int8"'
finish require_gpu_test
