#!/usr/bin/env bash
# GPU test: the verifier judges deliberately defective kernels incorrect or failed, for the
# right reason (named in the report), and accurate kernels passed. Exits 77 (SKIPPED) with no GPU.
#   defective_test.sh ROPE2D KERNELS_DIR WORK_DIR
# DEFECTIVE_LIST=1 prints each case's name (what DEFECTIVE_ONLY and DEFECTIVE_SKIP match) and runs none.
set -u
rope2d=$1 kernels=$2 work=${3:-$(mktemp -d)}
listing=${DEFECTIVE_LIST:-}
mkdir -p "$work" && work=$(cd "$work" && pwd)
# Every run writes a report; one without a GPU says it skipped the kernel runs.
if [ -n "$listing" ]; then
  :
elif "$rope2d" verify --only 'odd/bf16/n=1' --rounds 1 --quiet --out "$work/probe" 2>&1 | grep -q "SKIPPED the kernel runs"; then
  echo "SKIPPED: no GPU (rope2d verify skipped its kernel runs)"; exit 77
fi
passes=0 fails=0
expect() {  # expect FILE RC PATTERN [extra verify args...]; FILE in KERNELS_DIR, or a path
  local file=$1 want=$2 pattern=$3; shift 3
  local name; name=$(basename "${file%.*}")$(printf '%s' "$*" | tr -c 'a-z' '_')
  if [ -n "$listing" ]; then echo "$name"; return; fi
  # DEFECTIVE_ONLY=REGEX runs only the matching cases (to split a long run into parts).
  if [ -n "${DEFECTIVE_ONLY:-}" ] && ! [[ $name =~ $DEFECTIVE_ONLY ]]; then return; fi
  # DEFECTIVE_SKIP=REGEX leaves the matching cases out (e.g. huge: the two --huge runs, 2 minutes).
  if [ -n "${DEFECTIVE_SKIP:-}" ] && [[ $name =~ $DEFECTIVE_SKIP ]]; then echo "SKIPPED $name (DEFECTIVE_SKIP)"; return; fi
  case $file in /*) ;; *) file=$kernels/$file ;; esac
  # A kernel's own nvcc flags, from a "// nvcc-flags: ..." line in its source.
  local flag
  for flag in $(sed -n 's|^// nvcc-flags: *||p' "$file" 2>/dev/null | head -1); do set -- "$@" "--nvcc-flag=$flag"; done
  local t0=$SECONDS
  local timeout="--call-timeout 5"
  case " $* " in *" --call-timeout "*) timeout="" ;; esac
  # DEFECTIVE_DTYPES narrows the grad dtypes of the cases that name none (a shorter GPU run);
  # the cases about one dtype name theirs.
  case " $* " in *" --grad-dtypes "*) ;; *) [ -n "${DEFECTIVE_DTYPES:-}" ] && set -- "$@" --grad-dtypes "$DEFECTIVE_DTYPES" ;; esac
  "$rope2d" verify "$file" --quick --rounds 2 --quiet $timeout --out "$work/$name" "$@" >"$work/$name.log" 2>&1
  local rc=$?
  if ! [[ $rc =~ ^($want)$ ]]; then  # want: an exit code, or alternatives such as 1|3
    echo "FAIL $name: exit $rc, expected $want"; tail -5 "$work/$name.log"; fails=$((fails+1)); return
  fi
  if ! grep -q -- "$pattern" "$work/$name/report.md"; then
    echo "FAIL $name: report lacks '$pattern'"; grep -m3 -i "verdict\|integrity\|could not" "$work/$name/report.md"; fails=$((fails+1)); return
  fi
  echo "ok   $name (exit $rc, '$pattern', $((SECONDS - t0)) s)"; passes=$((passes+1))
}
expect accurate_simple.cu 0 "Verdict: passed" --grad-dtypes bf16,fp16,fp32
expect accurate_double.cu 0 "Verdict: passed"
expect accurate_simple.cu 1 "Warning" --nvcc-flag=--use_fast_math
expect fast_math.cu 1 "Verdict: incorrect"
expect half_sincos.cu 1 "Verdict: incorrect"
expect bf16_sincos.cu 1 "Verdict: incorrect"
expect sign_error.cu 1 "Verdict: incorrect"
expect swapped.cu 1 "Verdict: incorrect"
expect skipped_tail.cu 1 "never written"
# The suite sees the changed guard band; the contract checks' exact-size buffers (a 4 MiB output
# ends at its mapping's last page) then fault the kernel host: failed, for the host's reason.
expect oob_write.cu 3 "guard band changed"
expect ignores_stream.cu 1 "did not run on the given stream"
# Its replay is caught by the suite (incorrect sets); its unguarded static state races when the
# contract checks call it from two threads, which may fault (failed) or not.
expect cached.cu "1|3" "| incorrect |"
expect sniffs_poison.cu 1 "Verdict: incorrect"  # accurate only when its output looks pre-filled
expect sniffs_nan.cu 1 "gave different bits"  # accurate only when its output holds NaNs
expect skips_finite.cu 1 "left unwritten by a call whose output held finite values"
expect fast_when_warm.cu 1 "other bits than the first call" --bench  # fast once warm: the timed calls are judged too
expect skips_when_warm.cu 1 "other bits than the first call" --bench  # writes nothing once warm: each call's output pre-filled
expect nondeterministic.cu 1 "gave different bits"
expect writes_inputs.cu 1 "inputs modified"
expect faults.cu 3 "cudaErrorIllegalAddress"
expect hangs.cu 3 "did not return within"
expect compile_error.cu 3 "compilation failed"
expect missing_symbol.cu 3 "missing symbol rope2d_backward"
# One per generated dimension and contract check (sizes, placement, values, dtypes, contract).
expect tail_mod4.cu 1 "never written"
expect misaligned_grad_sin.cu 1 "Verdict: incorrect"
expect zero_blocks.cu 3 "cudaErrorInvalid"  # an empty grid: InvalidValue on CUDA 13, InvalidConfiguration before
expect zero_grad_skips_nan.cu 1 "Verdict: incorrect"
expect static_scratch.cu 1 "not reentrant"
expect oob_read.cu 3 "cudaErrorIllegalAddress"
expect device_sync.cu 1 "not graph-capturable"
expect fp16_half_math.cu 1 "| fp16 | incorrect |" --grad-dtypes bf16,fp16,fp32
expect fp32_rounds_grads.cu 1 "| fp32 | incorrect |" --grad-dtypes bf16,fp16,fp32
# Past 2^31 elements (--huge, about 26 GB of device memory): int32 index arithmetic breaks.
expect int32_index.cu 3 "cudaErrorIllegalAddress" --huge --grad-dtypes bf16
expect accurate_simple.cu 0 "huge/bf16" --huge --grad-dtypes bf16
# Accurate ones that must pass: flush-to-zero, a declined dtype, the contract-keeping vector kernel.
expect accurate_ftz.cu 0 "Verdict: passed"
expect accurate_ftz.cu 1 "Verdict: incorrect" --ieee-subnormals  # the same kernel when IEEE subnormals are demanded
expect declines_fp16.cu 0 "| fp16 | not supported |" --grad-dtypes bf16,fp16,fp32
expect accurate_vector.cu 0 "Verdict: passed"
# A Triton solution (tl.sin, tl.cos), where Triton is installed.
if [ -n "$listing" ] || python3 -c "import torch, triton" 2>/dev/null; then
  expect "$(cd "$kernels/../solutions" && pwd)/triton_sincos.json" 0 "Verdict: passed" --call-timeout 60
else
  echo "SKIPPED triton_sincos.json: no torch or triton for python3"
fi
# Memory checking under compute-sanitizer: memcheck finds the out-of-bounds read itself, in the
# kernel host it follows (its own finding, not the run's failure); the accurate kernel is clean
# under memcheck and racecheck, and initcheck, which cannot follow the memory the judge shares
# with the kernel host, says so. Each case: name;exit;phrases the log must hold (regexes).
if [ -n "$listing" ]; then
  echo sanitize
elif [ -n "${DEFECTIVE_ONLY:-}" ] && ! [[ sanitize =~ $DEFECTIVE_ONLY ]]; then
  :
elif command -v compute-sanitizer >/dev/null; then
  for case in "accurate_simple;0;memcheck +passed;racecheck +passed;initcheck +SKIPPED: initcheck cannot follow" \
              "oob_read;1;memcheck +FAILED: Invalid __global__ read"; do
    IFS=';' read -r -a fields <<<"$case"
    name=${fields[0]} want=${fields[1]}
    "$rope2d" verify "$kernels/$name.cu" --sanitize --no-sandbox --grad-dtypes bf16 --out "$work/sanitize_$name" >"$work/sanitize_$name.log" 2>&1
    rc=$?
    missing=""
    for phrase in "${fields[@]:2}"; do grep -qE "$phrase" "$work/sanitize_$name.log" || missing+=" '$phrase'"; done
    if [ "$rc" = "$want" ] && [ -z "$missing" ]; then
      echo "ok   sanitize $name (exit $rc)"; passes=$((passes+1))
    else
      echo "FAIL sanitize $name: exit $rc, expected $want;${missing:- every phrase found}"; tail -4 "$work/sanitize_$name.log"; fails=$((fails+1))
    fi
  done
else
  echo "SKIPPED sanitize: no compute-sanitizer on PATH"
fi
# Prebuilt shared objects, as an author would hand them in.
include=$(cd "$(dirname "$0")/../../cuda/include" && pwd)
mkdir -p "$work/so"
for k in accurate_simple sign_error; do
  if [ -n "$listing" ] || { [ -n "${DEFECTIVE_ONLY:-}" ] && ! [[ lib$k =~ $DEFECTIVE_ONLY ]]; }; then continue; fi
  nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -I"$include" -o "$work/so/lib$k.so" "$kernels/$k.cu" ||
    { echo "FAIL lib$k.so: nvcc failed"; fails=$((fails+1)); }
done
expect "$work/so/libaccurate_simple.so" 0 "Verdict: passed"
expect "$work/so/libsign_error.so" 1 "Verdict: incorrect"
[ -z "$listing" ] || exit 0
echo "defective kernels: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
