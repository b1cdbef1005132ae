#!/usr/bin/env bash
# Packs, in .device/ (ignored), what a GPU call needs beside the tree (docs/development.md):
# the install prefix of build/ with the GPU test programs (p.tar.xz), the libelf the image
# lacks (lib/) and bubblewrap's .deb (debs/). With --second DIR, also DIR's build (another
# checkout, built the same way) as p2.tar.xz: the baseline of device_run.sh's quickab and pairs.
# Run after `cmake --build build -j2 --target all tests`.
set -euo pipefail
cd "$(dirname "$0")/../.."
second=""
case "${1:-}" in
  --second) second=${2:?"usage: device_pack.sh [--second CHECKOUT]"} ;;
  "") ;;
  *) echo "usage: device_pack.sh [--second CHECKOUT]" >&2; exit 2 ;;
esac
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p .device/lib .device/debs
# One build's prefix, packed as NAME.tar.xz holding the folder NAME (unpacked there into .device/NAME).
pack() {
  local build=$1 name=$2
  cmake --install "$build" --prefix "$stage/$name" >/dev/null
  for f in properties/kernel_prop cuda/librope2d_kernel.so verify/counter_gpu_test verify/gpu_check_gpu_test \
           verify/flush_edge_gpu_test verify/librope2d_accurate_ftz.so verify/sincosf_ulp verify/premise_check \
           verify/flushing_judge_gpu_test; do
    if [ -e "$build/$f" ]; then cp "$build/$f" "$stage/$name/bin/"; fi
  done
  if [ -d "$build/python/lib" ]; then cp -r "$build/python/lib/." "$stage/$name/bin/"; fi
  # xz -9: its 64 MiB window finds the programs installed twice (bin/ and lib/), which halves the pack.
  XZ_OPT=-9 tar cJf ".device/$name.tar.xz" -C "$stage" "$name"
}
pack build p
[ -z "$second" ] || pack "$second/build" p2
cp -L "$(ldconfig -p | sed -n 's/.*libelf.so.1 .*=> //p' | head -1)" .device/lib/
(cd .device/debs && rm -f bubblewrap*.deb && apt-get download bubblewrap >/dev/null)
du -sh .device/*.tar.xz .device/lib .device/debs
# The call carries the tracked tree and .device together, at most 64 MiB.
tracked=$(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1)
carried=$(du -sb .device | cut -f1)
echo "tracked $((tracked / 1048576)) MiB + .device $((carried / 1048576)) MiB (the limit is 64 MiB together)"
[ $((tracked + carried)) -lt $((64 * 1048576)) ] || { echo "device_pack.sh: too large to carry" >&2; exit 1; }
