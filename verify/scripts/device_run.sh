#!/usr/bin/env bash
# One call on a GPU machine: GPU properties, the verifier and the benchmark, logs under $OUT.
# Binaries come prebuilt in .device/bin (the GPU image lacks MPFR, Boost, Eigen, RapidCheck):
#   mkdir -p .device/bin && cp build/verify/rope2d build/properties/kernel_prop build/cuda/librope2d_kernel.so .device/bin/
#   cp build/verify/counter_gpu_test .device/bin/     # for the counter step
#   cp build/python/lib/* .device/bin/     # librope2d_py.so with its MPFR and GMP, for the python step
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
    paired) # The torch comparison once more, in a fresh process, on the workloads the bench step timed.
            list=$(python3 - "$out/bench.json" <<'PY'
import json, sys
print(",".join("%dx%d" % (w["batch"], w["seq_len"]) for w in json.load(open(sys.argv[1]))["workloads"]))
PY
)
            python3 verify/python/bench_torch.py --library $bin/librope2d_kernel.so --workloads "$list" --runs ${PAIRED_RUNS:-100} \
              >"$out/paired.json" 2>"$out/paired.log"; tail -n 16 "$out/paired.log" ;;
    verify) /usr/bin/time -f "verify wall %e s" $bin/rope2d verify --quiet ${VERIFY_FLAGS:-} --out "$out/verify" 2>&1 | tail -n 60 | tee "$out/verify.log" ;;
    verifycpu) # The full run again with every set judged on the CPU; samejudge compares the two reports.
             /usr/bin/time -f "verify --cpu-judge wall %e s" $bin/rope2d verify --quiet --cpu-judge ${VERIFY_FLAGS:-} --out "$out/verifycpu" 2>&1 | tail -n 60 | tee "$out/verifycpu.log" ;;
    samejudge) python3 verify/scripts/same_judgement.py "$out/verify/report.json" "$out/verifycpu/report.json" 2>&1 | tail -n 40 | tee "$out/samejudge.log" ;;
    verify3) /usr/bin/time -f "verify wall %e s" $bin/rope2d verify --quiet --grad-dtypes bf16,fp16,fp32 --out "$out/tolerance" 2>&1 | tail -n 20 | tee "$out/tolerance.log" ;;
    defective) PATH=/usr/local/cuda/bin:$PATH verify/tests/defective_test.sh $bin/rope2d verify/tests/kernels /tmp/defective 2>&1 | tee "$out/defective${DEFECTIVE_PART:-}.log" ;;
    interop) python3 verify/python/golden_interop.py data/golden-smoke /tmp/torch_outputs.safetensors 2>&1 | tee "$out/interop.log"
             for t in float32-bound solexecbench; do $bin/rope2d check --golden data/golden-smoke --outputs /tmp/torch_outputs.safetensors --tier $t 2>&1 | tail -n 1 | sed "s/^/torch eager float32, $t: /"; done | tee -a "$out/interop.log" ;;
    nightly) echo '{"sweep": {"from": 0, "to": 16384, "budget_s": '"${SWEEP_BUDGET:-600}"'}}' >/tmp/nightly.json
             # The root is the repository's reports/nightly, so the run compares with the last committed one.
             PATH=/usr/local/cuda/bin:$PATH $bin/rope2d nightly --quiet --config /tmp/nightly.json --out reports/nightly \
               ${NIGHTLY_DATE:+--date $NIGHTLY_DATE} 2>&1 | tail -n 40 | tee "$out/nightly.log"
             mkdir -p "$out/nightly" && cp -r "reports/nightly/$(ls -t reports/nightly | head -1)" "$out/nightly/" ;;
    solution) for sol in torch_eager torch_fp16_sincos cuda_sincosf cuda_default_flags triton_sincos; do
                PATH=/usr/local/cuda/bin:$PATH $bin/rope2d verify verify/tests/solutions/$sol.json --quick --quiet --out /tmp/sol-$sol 2>&1 | tail -n 8
                echo "exit ${PIPESTATUS[0]} for $sol"; done | tee "$out/solution.log" ;;
    python) # The Python package's tests with CUDA tensors (librope2d_py.so and its libraries in $bin).
            ROPE2D_LIBRARY=$bin PYTHONPATH=python python3 -m pytest -v -p no:cacheprovider python/tests 2>&1 | tail -n 80 | tee "$out/python.log" ;;
    counter) # Counter-based inputs made on the GPU against the CPU's, bit for bit; the testbed's GPU-made inputs.
             $bin/counter_gpu_test 2>&1 | tail -n 40 | tee "$out/counter_gpu_test.log" ;;
    sincosf) timeout 300 $bin/sincosf_ulp 2>&1 | tee "$out/sincosf_ulp.log" ;;
    verifyq) /usr/bin/time -f "verify --quick wall %e s" $bin/rope2d verify --quick --quiet ${VERIFY_FLAGS:-} --out "$out/verifyq" 2>&1 | tail -n 30 | tee "$out/verifyq.log" ;;
    *) echo "unknown step $step" ;;
  esac
done
# The device call returns at most 8 files: pack the report folders.
(cd "$out" && dirs=$(ls -d verify verifycpu verifyq tolerance nightly 2>/dev/null); [ -n "$dirs" ] && tar czf reports.tgz $dirs && rm -rf $dirs)
exit 0
