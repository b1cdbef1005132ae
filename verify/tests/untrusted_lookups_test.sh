#!/usr/bin/env bash
# The project's own files (worst-case lists, golden set) are looked up beside the program,
# never in the working directory: from a folder holding a planted reference/worst/ (tiny lists)
# and data/golden-smoke/ (a manifest of nothing), verify --list gives the worst sets the case
# counts it gives from /, and verify's CPU checks and the nightly check the program's golden set
# (no GPU made visible: the CPU path alone); a .cu is built against the program's ABI header, not
# a planted cuda/include/ (where nvcc and bubblewrap are).
#   untrusted_lookups_test.sh ROPE2D
rope2d=$(realpath "$1") kernels=$(cd "$(dirname "$0")/kernels" && pwd)
source "$(dirname "$0")/testlib.sh"
cd "$tmp" || exit 1
mkdir -p reference/worst data/golden-smoke
printf '# planted\n0x1p+0 0x1p+0 0x1p+0\n' >reference/worst/known.txt
cp reference/worst/known.txt reference/worst/float32_eval.txt
printf '# planted\n0x1p+0\n' >reference/worst/near_axis.txt
echo '{}' >data/golden-smoke/manifest.json

# The worst sets: names carry the case count (worst/bf16/n=280).
from_root=$(cd / && "$rope2d" verify --list 2>&1 | grep '^worst/' | cut -d' ' -f1,3)
here=$("$rope2d" verify --list 2>&1 | grep '^worst/' | cut -d' ' -f1,3)
[ -n "$from_root" ] && ok "verify --list from /: $(tr '\n' ' ' <<<"$from_root")" || bad "verify --list from /: no worst set"
[ "$here" = "$from_root" ] && ok "verify --list beside a planted reference/worst/: the same worst sets" ||
  bad "verify --list beside a planted reference/worst/: $(tr '\n' ' ' <<<"$here") (from /: $(tr '\n' ' ' <<<"$from_root"))"
grep -q 'n=5\b' <<<"$here" && bad "the planted lists (5 cases) were used" || ok "the planted lists were not used"

# The golden set of verify's CPU checks (no GPU made visible: the CPU path alone).
out=$(CUDA_VISIBLE_DEVICES= timeout -k 5 120 "$rope2d" verify --quick --quiet --out v 2>&1); rc=$?
[ "$rc" = 0 ] && ok "verify (CPU checks) beside a planted golden set: exit 0" || { bad "verify: exit $rc"; echo "$out" | tail -4; }
line=$(grep '  golden set ' <<<"$out")
case $line in
  *"golden set /"*": passed"*) [[ $line == *"$tmp"* ]] && bad "verify checked the planted set: $line" ||
                                 ok "verify checked the program's golden set: $line" ;;
  *) bad "verify's golden line: '$line'" ;;
esac

# The nightly's default golden set, as its plan records it.
CUDA_VISIBLE_DEVICES= timeout -k 5 120 "$rope2d" nightly --quick --quiet --out n --date 2026-01-06 --shard 0/1 >nightly.log 2>&1 ||
  { bad "nightly --shard 0/1: exit $?"; tail -4 nightly.log; }
dir=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["config"]["golden"]["dir"])' n/2026-01-06/shard-0-of-1.json 2>&1)
case $dir in
  /*) [[ $dir == "$tmp"* ]] && bad "the nightly's golden set is the planted one: $dir" || ok "the nightly's golden set: $dir" ;;
  *) bad "the nightly's golden set: '$dir' (not beside the program)" ;;
esac
# The ABI header a .cu is built against: a planted cuda/include/rope2d/rope2d_backward.h that
# stops any build that reads it; the program's own header builds the kernel (exit 0, the CPU
# checks alone). The control: the same plant in the kernel's own folder, where the kernel's
# quoted include finds it first (a submitter's own header): read, and the build fails (exit 3).
kernel=$kernels/accurate_simple.cu
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ] && bwrap --ro-bind / / true 2>/dev/null; then
  mkdir -p cuda/include/rope2d && echo '#error planted ABI header' >cuda/include/rope2d/rope2d_backward.h
  out=$(CUDA_VISIBLE_DEVICES= PATH=$(dirname "$nvcc"):$PATH timeout -k 5 300 "$rope2d" verify "$kernel" --quick --quiet --out k 2>&1); rc=$?
  [ "$rc" = 0 ] && [ -f k/report.md ] && ! grep -q "planted" - k/report.md <<<"$out" &&
    ok "a .cu beside a planted cuda/include/: built against the program's header (exit 0)" ||
    { bad "a .cu beside a planted cuda/include/: exit $rc"; echo "$out" | tail -4; }
  mkdir -p own && cp "$kernel" own/ && cp -r cuda/include/rope2d own/
  out=$(CUDA_VISIBLE_DEVICES= PATH=$(dirname "$nvcc"):$PATH timeout -k 5 300 "$rope2d" verify own/accurate_simple.cu --quick --quiet --out kc 2>&1); rc=$?
  [ "$rc" = 3 ] && grep -q "planted ABI header" - kc/report.md <<<"$out" 2>/dev/null &&
    ok "the control: the plant read from the kernel's own folder stops the build (exit 3)" || { bad "the control: exit $rc"; echo "$out" | tail -4; }
else
  echo "SKIPPED the ABI header's lookup: no nvcc or bubblewrap"
fi
finish untrusted_lookups
