#!/usr/bin/env bash
# A set's reproduce line replays exactly that set: run with --list, each line selects one
# problem, of the same name and seed, and prints the same reproduce line again. Options with
# spaces and quotes (the submission path, nvcc flags) survive the shell.
#   reproduce_test.sh ROPE2D
rope2d=$1
source "$(dirname "$0")/testlib.sh"
sub="$tmp/my k'ernel.cu"
echo "// not compiled: --list stops before the build" >"$sub"
"$rope2d" verify "$sub" --grad-dtypes fp16,bf16 --seed 7 --rounds 3 --tier fp16-noise --quick \
  --nvcc-flag="-DNAME='a b'" --nvcc-flag=-lineinfo --list >"$tmp/all.txt" 2>&1 || { bad "full --list exits 0"; cat "$tmp/all.txt"; }
[ "$(wc -l <"$tmp/all.txt")" -gt 100 ] && ok "full list has every problem" || bad "full list: $(wc -l <"$tmp/all.txt") lines"
for name in randn/fp16/1x773 layout/fp16/1x1801 odd/fp16/n=1030 randn/bf16/1x256 long/fp16/1x16384; do
  want=$(grep "^$name seed=" "$tmp/all.txt")
  [ -n "$want" ] || { bad "$name not in the list"; continue; }
  line=${want#* reproduce: }
  case $line in "rope2d verify "*) ;; *) bad "$name: line does not start with rope2d verify: $line"; continue;; esac
  got=$(eval "\"\$rope2d\" verify ${line#rope2d verify } --list" 2>&1); rc=$?
  if [ $rc = 0 ] && [ "$got" = "$want" ]; then ok "$name: reproduce line selects exactly it (same seed, same line)"
  else bad "$name: exit $rc, got '$got', expected '$want'"; fi
done
# The line carries the whole dtype list: without it the fp16 problem is not in the suite.
"$rope2d" verify --only randn/fp16/1x773 --grad-dtypes bf16 --quick --list >/dev/null 2>&1
[ $? = 2 ] && ok "--only without --grad-dtypes exits 2 (the line must carry them)" || bad "--only without dtypes did not exit 2"
q="'"
pat="--grad-dtypes fp16,bf16 --tier fp16-noise --seed 7 --rounds 3 --quick ${q}--nvcc-flag=-DNAME=${q}\\${q}${q}a b${q}\\${q}${q}${q} --nvcc-flag=-lineinfo --only "
grep -qF -- "$pat" "$tmp/all.txt" && ok "every option in the line, quoted" || { bad "options missing or unquoted: $pat"; head -2 "$tmp/all.txt"; }
# --ieee-subnormals is carried into the line, and the line replays with it.
"$rope2d" verify --ieee-subnormals --quick --grad-dtypes bf16 --list >"$tmp/ieee.txt" 2>&1 || bad "--ieee-subnormals --list exits 0"
want=$(grep "^randn/bf16/1x256 seed=" "$tmp/ieee.txt")
line=${want#* reproduce: }
grep -q -- " --ieee-subnormals " <<<"$line" && ok "the line carries --ieee-subnormals" || bad "no --ieee-subnormals in: $line"
got=$(eval "\"\$rope2d\" verify ${line#rope2d verify } --list" 2>&1)
[ "$got" = "$want" ] && ok "the --ieee-subnormals line replays itself" || bad "got '$got', expected '$want'"
"$rope2d" verify --quick --grad-dtypes bf16 --list 2>&1 | grep -q -- "--ieee-subnormals" &&
  bad "a default run's lines name --ieee-subnormals" || ok "a default run's lines do not name --ieee-subnormals"
# An old tier name warns once, and the lines carry today's name.
"$rope2d" verify --tier strict --quick --grad-dtypes bf16 --list >"$tmp/old.out" 2>"$tmp/old.err" || bad "--tier strict --list exits 0"
[ "$(grep -c "warning: tier 'strict' is deprecated" "$tmp/old.err")" = 1 ] && ok "--tier strict warns once" ||
  bad "warnings: $(cat "$tmp/old.err")"
grep -q -- "--tier float32-bound" "$tmp/old.out" && ! grep -q -- "--tier strict" "$tmp/old.out" &&
  ok "reproduce lines carry float32-bound, not strict" || bad "lines: $(head -1 "$tmp/old.out")"
# --sanitize re-executes verify under each tool: a stand-in tool that runs the command it is
# given shows that the children get today's name (no second warning).
cat >"$tmp/fake-sanitizer" <<'SH'
#!/bin/sh
while [ $# -gt 0 ] && { [ ! -x "$1" ] || [ -d "$1" ]; }; do shift; done
exec "$@"
SH
chmod +x "$tmp/fake-sanitizer"
"$rope2d" verify --sanitize --sanitizer "$tmp/fake-sanitizer" --tier strict --ieee-subnormals --golden "$tmp/none" \
  --out "$tmp/san" >"$tmp/san.out" 2>"$tmp/san.err"
[ "$(grep -c "warning: tier" "$tmp/san.err")" = 1 ] && ok "--sanitize --tier strict warns once in the parent" || bad "parent: $(cat "$tmp/san.err")"
ls "$tmp"/san/sanitize/*.log >/dev/null 2>&1 && ! grep -q "warning: tier" "$tmp"/san/sanitize/*.log &&
  ok "the re-executed children do not warn" || bad "children: $(cat "$tmp"/san/sanitize/*.log 2>&1 | head -5)"
# check: the reproduce line of a failing set is a runnable `rope2d eval` of its failing element,
# whose exact fp32 result is the FAIL line's ref.
golden="$(dirname "$0")/../../data/golden-smoke"
python3 - "$golden" "$tmp/off.safetensors" <<'PY'
import json, os, struct, sys
golden, out = sys.argv[1:]
header_out, blobs, off = {}, [], 0
for k, f in enumerate(json.load(open(os.path.join(golden, "manifest.json")))["files"]):
    raw = open(os.path.join(golden, f["file"]), "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    h = json.loads(raw[8:8 + n])["grad_idx_theta"]
    blob = bytearray(raw[8 + n + h["data_offsets"][0]:8 + n + h["data_offsets"][1]])
    if k == 0:  # element 5 of the first problem made far off
        v = struct.unpack_from("<f", blob, 20)[0]
        struct.pack_into("<f", blob, 20, -v - 1.0)
    header_out[f["problem"]] = {"dtype": "F32", "shape": h["shape"], "data_offsets": [off, off + len(blob)]}
    blobs.append(bytes(blob)); off += len(blob)
hj = json.dumps(header_out).encode(); hj += b" " * (-len(hj) % 8)
open(out, "wb").write(struct.pack("<Q", len(hj)) + hj + b"".join(blobs))
PY
"$rope2d" check --golden "$golden" --outputs "$tmp/off.safetensors" --quiet >"$tmp/check.out" 2>&1
line=$(sed -n 's/^ *reproduce: //p' "$tmp/check.out" | head -1)
fail_ref=$(grep -m1 -o ' ref=[^ ]*' "$tmp/check.out" | cut -d= -f2)
case $line in
  "rope2d eval --grad-dtype "*" -- "*) ok "check's reproduce line is a concrete rope2d eval: $line" ;;
  *) bad "check's reproduce line: '$line'"; cat "$tmp/check.out" | head -20 ;;
esac
got=$(eval "\"\$rope2d\" ${line#rope2d }" 2>&1); rc=$?
fp32=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["fp32"])' "$got" 2>/dev/null)
[ $rc = 0 ] && [ -n "$fail_ref" ] && [ "$fp32" = "$fail_ref" ] && ok "the line runs and gives the FAIL line's ref ($fp32)" ||
  bad "eval of the line: exit $rc, fp32 '$fp32', FAIL ref '$fail_ref': $got"
finish "reproduce"
