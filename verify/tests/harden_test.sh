#!/usr/bin/env bash
# Regression tests of hardening against bad input (one per reproducer of the hardening issue):
# no crash, no hang, no silent success, no injection, nothing lost; exit 2 for bad input and
# the environment, 3 only for a submission that fails to build, load or run.
#   harden_test.sh ROPE2D GOLDEN_DIR [NVCC]
set -u
rope2d=$1 golden=$2 nvcc=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0 passes=0
check() {  # check NAME EXPECTED_RC COMMAND... ; stdout+stderr in $out; 60 s limit (a hang fails)
  local name=$1 want=$2; shift 2
  out=$(timeout -k 5 60 "$@" 2>&1); local rc=$?
  if [ "$rc" != "$want" ]; then echo "FAIL $name: exit $rc, expected $want"; echo "$out" | tail -4; fails=$((fails+1)); return 1; fi
  echo "ok   $name"; passes=$((passes+1))
}
expect() {  # expect NAME PATTERN: $out must contain PATTERN
  if grep -q -- "$2" <<<"$out"; then passes=$((passes+1)); else echo "FAIL $1: output lacks '$2'"; echo "$out" | tail -4; fails=$((fails+1)); fi
}
ok() { if "$@"; then passes=$((passes+1)); else echo "FAIL $*"; fails=$((fails+1)); fi; }

# --- damaged golden sets: every one is bad input (exit 2) naming file and field ----------------
bad() {  # bad KIND PATTERN
  python3 "$here/bad_inputs.py" "$golden" "$tmp/$1" "$1" || { echo "FAIL $1: could not make it"; fails=$((fails+1)); return; }
  check "golden-$1" 2 "$rope2d" check --golden "$tmp/$1" && expect "golden-$1-says" "$2"
  rm -rf "$tmp/$1"
}
bad positions_i64 'tensor positions.dtype: expected I32, found I64'
bad positions_f64 'tensor positions.dtype: expected I32, found F64'
bad grad_sin_empty 'tensor grad_sin.shape: expected \[1, 128, 128\], found \[0\]'
bad grad_sin_short 'tensor grad_sin.shape'
bad duplicate 'key "grad_cos": expected each key once'
bad trailing '8 trailing bytes'
bad gap 'a gap of 8 unused data bytes'
bad meta_batch 'tensor grad_cos.shape: expected \[2, 128, 128\]'
bad meta_seq_len 'tensor grad_cos.shape: expected \[1, 64, 128\]'
bad shape_overflow 'fits in int64'
bad files_empty 'files: expected a non-empty array'
bad all_empty '__metadata__.elements: expected at least one element'
bad devzero 'expected a regular file, found a device'
bad fifo 'expected a regular file, found a FIFO'
bad wrong_type 'files\[0\]\.elements: expected an integer in \[1, 1099511627776\], found the string "7"'

# --- outputs files --------------------------------------------------------------------------
python3 - "$tmp/empty.safetensors" <<'PY'
import struct, sys
h = b'{"__metadata__":{"a":"b"}}'; h += b' ' * ((8 - len(h) % 8) % 8)
open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h)
PY
check outputs-empty 2 "$rope2d" check --golden "$golden" --outputs "$tmp/empty.safetensors"
expect outputs-empty-says 'outputs: tensors: expected one F32 tensor per golden problem, found none'
ln -s /dev/zero "$tmp/zero.safetensors"
check outputs-devzero 2 "$rope2d" check --golden "$golden" --outputs "$tmp/zero.safetensors"

# --- layouts --------------------------------------------------------------------------------
python3 -c 'print("{\"schema\":\"rope2d.layout/1\",\"batch\":" + "[" * 200000 + "]" * 200000 + "}")' >deep.json
check layout-deep 2 "$rope2d" layout deep.json
expect layout-deep-says 'expected at most 6 levels of nesting'
for base in 1e-300 1e39; do
  echo "{\"schema\":\"rope2d.layout/1\",\"rope\":{\"base\":$base},\"batch\":[[{\"text\":4}]]}" >"base$base.json"
  check "layout-base-$base" 2 "$rope2d" layout "base$base.json" && expect "layout-base-$base-says" 'rope.base: expected a base whose float32 theta table'
  check "golden-layout-base-$base" 2 "$rope2d" golden --layout "base$base.json" --out "g$base" --quiet
  ok test ! -e "g$base"
done
echo '{"schema":"rope2d.layout/1","batch":[[{"text":"4"}]]}' >typed.json
check layout-wrong-type 2 "$rope2d" layout typed.json && expect layout-wrong-type-says 'text: expected an integer, found the string "4"'

# --- golden: atomic, locked, checked, nothing empty -------------------------------------------
check golden-dup-dtypes 2 "$rope2d" golden --suite smoke --out dup --grad-dtypes bf16,bf16 --quiet
expect golden-dup-says "--grad-dtypes: expected each dtype once, found 'bf16' twice"
ok test ! -e dup
"$rope2d" layout --seed 1 --batch 1 --seq-len 40 --emit >l.json
check golden-first 0 "$rope2d" golden --layout l.json --out set --quiet
before=$(sha256sum set/manifest.json)
check golden-nonempty-refused 2 "$rope2d" golden --layout l.json --out set --seed 2 --quiet
expect golden-nonempty-says 'not empty; --force replaces'
check golden-unwritable 2 "$rope2d" golden --layout l.json --out /proc/rope2d-nowhere/set --quiet
# A full disk (file size limit) is an error, and the previous set stays whole.
check golden-disk-full 2 bash -c "ulimit -f 64; trap '' XFSZ; exec \"$rope2d\" golden --layout l.json --out set --seed 3 --force --quiet"
expect golden-disk-full-says 'write failed'
ok test "$(sha256sum set/manifest.json)" = "$before"
check golden-previous-intact 0 "$rope2d" check --golden set
# One writer per target.
flock .new.lock sleep 5 & sleep 0.5
check golden-locked 2 "$rope2d" golden --layout l.json --out new --seed 4 --quiet
expect golden-locked-says 'another rope2d golden is writing this set'
ok test ! -e new
wait
# SIGINT during a regeneration leaves the previous set intact.
"$rope2d" layout --seed 1 --batch 4 --seq-len 30000 --emit >big.json
"$rope2d" golden --layout big.json --grad-dtypes bf16,fp16,fp32 --out set --seed 5 --force --quiet >/dev/null 2>&1 & pid=$!
sleep 1; kill -INT $pid; wait $pid; rc=$?
ok test "$rc" != 0
ok test "$(sha256sum set/manifest.json)" = "$before"
check golden-after-sigint 0 "$rope2d" check --golden set
ok test -z "$(ls -A . | grep staging)"
mkdir -p other && echo keep >other/notes.txt
check golden-force-not-a-set 2 "$rope2d" golden --layout l.json --out other --force --quiet
ok test "$(cat other/notes.txt)" = keep
check golden-force 0 "$rope2d" golden --layout l.json --out set --seed 6 --force --quiet
ok test "$(sha256sum set/manifest.json)" != "$before"
ok test "$(stat -c %a set)" = 755
check golden-shell-quoted 0 "$rope2d" golden --layout l.json --out "it's here" --quiet
expect golden-shell-quoted-says ''
ok grep -q "\"command\": \"rope2d golden --layout l.json --out 'it'\\\\\\\\''s here'" "it's here/manifest.json"

# --- eval exactness on the decimal string -------------------------------------------------------
check eval-underflow 2 "$rope2d" eval 1e-400 1 1
expect eval-underflow-says 'GC: 1e-400 is not exactly representable in bf16 (nearest: 0x0p+0)'
check eval-long-decimal 2 "$rope2d" eval 1.00000000000000000001 1 1 --grad-dtype fp32
expect eval-long-decimal-says 'nearest: 0x1p+0'
check eval-theta-long-decimal 2 "$rope2d" eval 1 1 3.00000000000000000000000001
check eval-exact-long 0 "$rope2d" eval 1.000000000000000000000000000000 1 1

# --- options: out of range is refused, not saturated --------------------------------------------
check seed-too-big 2 "$rope2d" layout --seed 18446744073709551616 --batch 1 --seq-len 4
check seed-negative 2 "$rope2d" layout --seed -1 --batch 1 --seq-len 4
check seed-golden 2 "$rope2d" golden --suite smoke --out s --seed 99999999999999999999 --quiet
check call-timeout-nan 2 "$rope2d" verify --call-timeout nan
check call-timeout-negative 2 "$rope2d" verify --call-timeout -1
check solution-wrong-type 2 "$rope2d" verify "$here/../tests/solutions/torch_eager.json" --golden /nonexistent --out rep
head='"name": "s", "definition": "d", "author": "a", "sources": [{"path": "k.py", "content": "x"}]'
printf '{%s, "spec": {"languages": ["pytorch"], "target_hardware": ["LOCAL"], "entry_point": "k.py::run", "destination_passing_style": "maybe"}}' "$head" >sol.json
check solution-flag-type 2 "$rope2d" verify sol.json --out rep
expect solution-flag-type-says 'sol.json: spec.destination_passing_style: expected true or false'
printf '{"name": 5, "definition": "d", "author": "a", "spec": {"languages": [], "target_hardware": ["LOCAL"], "entry_point": "k.py::run"}, "sources": [{"path": "k.py", "content": "x"}]}' >sol.json
check solution-name-type 2 "$rope2d" verify sol.json --out rep
expect solution-name-type-says 'sol.json: name: expected a non-empty string, found the number 5'
printf '{%s, "spec": {"languages": ["pytorch"], "target_hardware": ["LOCAL"], "entry_point": 5}}' "$head" >sol.json
check solution-entry-type 2 "$rope2d" verify sol.json --out rep
expect solution-entry-type-says 'sol.json: spec.entry_point: expected a non-empty string "<file_path>::<function_name>", found the number 5'

# --- without a GPU, a bad submission is still bad ------------------------------------------------
if "$rope2d" verify --help >/dev/null 2>&1 && ! command -v nvidia-smi >/dev/null; then
  head -c 4096 /dev/urandom >random.so
  check verify-random-so 3 "$rope2d" verify random.so --out rep --quiet
  expect verify-random-so-says 'FAILED to load'
  check verify-missing-golden 2 "$rope2d" verify --golden /nonexistent/set --out rep --quiet
  expect verify-missing-golden-says '--golden: expected a golden set'
  if [ -n "$nvcc" ] && [ -x "$nvcc" ]; then
    : >empty.cu
    check verify-empty-cu 3 "$rope2d" verify empty.cu --nvcc "$nvcc" --out rep --quiet
    echo 'this is not CUDA' >broken.cu
    check verify-broken-cu 3 "$rope2d" verify broken.cu --nvcc "$nvcc" --out rep --quiet
    expect verify-broken-cu-says 'compilation failed'
    # No shell: a flag holding shell syntax is one argument to nvcc, never run.
    check verify-no-injection 3 "$rope2d" verify broken.cu --nvcc "$nvcc" --out rep --quiet "--nvcc-flag=\$(touch PWNED)"
    ok test ! -e PWNED
  else
    echo "skip the nvcc cases (no nvcc given)"
  fi
fi

echo "harden: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
