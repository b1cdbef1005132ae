#!/usr/bin/env bash
# One call on a GPU machine: GPU properties, the verifier and the benchmark, logs under $OUT.
# Binaries come prebuilt in .device/bin (the GPU image lacks MPFR, Boost, Eigen, RapidCheck):
#   mkdir -p .device/bin && cp build/verify/rope2d build/properties/kernel_prop .device/bin/
# then run this script there with .device carried. Each step's log is kept even if one fails.
set -uo pipefail
out=${OUT:-reports/device}
mkdir -p "$out"
bin=.device/bin
export PYTHONUNBUFFERED=1
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } >"$out/device.txt" 2>&1
cat "$out/device.txt"
steps=${STEPS:-props bench}
for step in $steps; do
  echo "=== $step"
  case $step in
    props) RC_PARAMS="max_success=${PROPS_CASES:-60}" $bin/kernel_prop 2>&1 | tail -n 400 >"$out/kernel_prop.log"; tail -n 30 "$out/kernel_prop.log" ;;
    bench) $bin/rope2d bench --torch ${BENCH_FLAGS:-} --json "$out/bench.json" 2>&1 | tee "$out/bench.log" | grep -v "^torch peers" ;;
    verify) $bin/rope2d verify --out "$out/verify" 2>&1 | tail -n 60 | tee "$out/verify.log" ;;
    *) echo "unknown step $step" ;;
  esac
done
