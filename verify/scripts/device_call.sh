#!/usr/bin/env bash
# One whole GPU call (docs/development.md): device_run.sh's SERIAL steps one after the other on a
# quiet machine, then its LANES side by side, each lane a device_run.sh of its own with its logs
# in $OUT/o/LANE/, everything ended at LIMIT seconds (default 540) from the start. Run from the
# checkout's root with .device carried (verify/scripts/device_pack.sh made it). $OUT gets one
# file, x.tgz (the folder o/), refreshed every 20 s, so a call cut short still brings back what ran.
#   SERIAL="quickab" LANES="defective attackhalves pysolutions solution" bash verify/scripts/device_call.sh
# Each lane's settings are device_run.sh's (DEFECTIVE_ONLY, ATTACK_PARTS, PYSOL, ...), given to all.
set -u
t0=$SECONDS
limit=${LIMIT:-540}
out=${OUT:?"device_call.sh: OUT names the folder that comes back"}
o=$(mktemp -d)/o
mkdir -p "$o"
# Seconds to the deadline, at least 1 (timeout 0 would mean none).
left() { local l=$((limit - (SECONDS - t0))); echo $((l > 1 ? l : 1)); }
snapshot() { tar czf "$out/x.part.tgz" -C "$(dirname "$o")" o 2>/dev/null && mv "$out/x.part.tgz" "$out/x.tgz"; }
( while sleep 20; do snapshot; done ) &
snapper=$!
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,persistence_mode --format=csv; date -u
  echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo)"
  command -v compute-sanitizer prlimit bwrap
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } >"$o/machine.txt" 2>&1
# A copy the box's user can search (the Python package is shown in the box from its place in the prefix).
rm -rf /opt/r2 && cp -a . /opt/r2 && chmod -R a+rX /opt/r2 && cd /opt/r2 || exit 1
for p in p p2; do [ -f ".device/$p.tar.xz" ] && tar xJf ".device/$p.tar.xz" -C .device; done
chmod -R a+rX .device
echo "unpacked at $((SECONDS - t0)) s" >>"$o/machine.txt"
for step in ${SERIAL:-}; do
  STEPS=$step OUT=$o/serial timeout "$(left)" bash verify/scripts/device_run.sh >>"$o/serial.txt" 2>&1
  echo "$step done at $((SECONDS - t0)) s" >>"$o/machine.txt"
done
lanes=()
for lane in ${LANES:-}; do
  STEPS=$lane OUT=$o/$lane timeout "$(left)" bash verify/scripts/device_run.sh >"$o/$lane.txt" 2>&1 &
  lanes+=($!)
  sleep 2  # lanes started apart: each unpacks bubblewrap's .deb into the same folder
done
[ ${#lanes[@]} -eq 0 ] || wait "${lanes[@]}"
echo "lanes done at $((SECONDS - t0)) s" >>"$o/machine.txt"
ps -eo pid,ppid,stat,args | grep -E 'bwrap|kernel-host|rope2d' | grep -v grep >"$o/left.txt"
kill "$snapper"; wait "$snapper" 2>/dev/null
snapshot
rm -rf "$(dirname "$o")"
