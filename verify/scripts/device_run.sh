#!/usr/bin/env bash
# One call on a GPU machine: GPU properties, the verifier and the benchmark, logs under $OUT.
# Binaries come prebuilt (the GPU image lacks MPFR, Boost, Eigen, RapidCheck and libelf), as an
# install prefix: its programs find their own files (share/rope2d: the golden set, the worst-case
# lists, the Python package, the ABI headers) beside them, wherever the prefix lies. A bare copy of
# build/verify/rope2d would look for them in the source tree it was built from, on this machine.
# verify/scripts/device_pack.sh packs the prefix (.device/p, with the GPU test programs in its bin/;
# BIN=.device/p/bin), a second build's for the quickab and pairs steps (.device/p2, BIN2), libelf
# (.device/lib, on LD_LIBRARY_PATH below) and bubblewrap's .deb (.device/debs): the box for
# submissions. Run this script there with .device carried, from a copy of the checkout that the
# box's user can search (cp -a . /opt/r2 && chmod -R a+rX /opt/r2: the Python package is shown in
# the box from its place in the prefix), or through device_call.sh, which makes that copy and runs
# steps side by side. Each step's log is kept even if one fails.
set -uo pipefail
# The project's files (.device/p, .device/debs, verify/tests) are the checkout's this
# script is in, whatever the working directory; $OUT and $SOLX_HARNESS as given.
root=$(cd "$(dirname "$0")/../.." && pwd)
# The prefix (its tar unpacked once) and the carried libraries the image lacks.
for p in p p2; do [ -f "$root/.device/$p.tar.xz" ] && [ ! -d "$root/.device/$p" ] && tar xJf "$root/.device/$p.tar.xz" -C "$root/.device"; done
[ -d "$root/.device/lib" ] && export LD_LIBRARY_PATH=$root/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
out=$(realpath -m "${OUT:-$root/reports/device}")
# Submissions run in a bubblewrap box: the .deb carried in .device/debs is unpacked into a folder
# of its own (never over /: its libraries would replace the machine's) and put on the PATH.
for deb in "$root"/.device/debs/bubblewrap*.deb; do
  [ -e "$deb" ] && dpkg -x "$deb" /opt/bubblewrap && export PATH=/opt/bubblewrap/usr/bin:$PATH
done
[ -n "${SOLX_HARNESS:-}" ] && SOLX_HARNESS=$(realpath -m "$SOLX_HARNESS")
cd "$root" || exit 1
mkdir -p "$out"
bin=${BIN:-.device/p/bin}  # BIN=.device/other: another build's binaries (two builds compared in one call)
bin2=${BIN2:-.device/p2/bin}  # the baseline of the quickab and pairs steps
# A build's name in logs and folders: its prefix's (p, p2) for a prefix's bin/, else the folder's.
label() { local b=${1%/}; [ "$(basename "$b")" = bin ] && b=$(dirname "$b"); basename "$b"; }
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
            PYTHONPATH=python python3 -m rope2d.bench_torch --library $bin/librope2d_kernel.so --workloads "$list" --runs ${PAIRED_RUNS:-100} \
              >"$out/paired.json" 2>"$out/paired.log"; tail -n 16 "$out/paired.log" ;;
    verify) /usr/bin/time -f "verify wall %e s" $bin/rope2d verify --quiet ${VERIFY_FLAGS:-} --out "$out/verify" 2>&1 | tail -n 60 | tee "$out/verify.log" ;;
    verifycpu) # The full run again with every set judged on the CPU; samejudge compares the two reports.
             /usr/bin/time -f "verify --cpu-judge wall %e s" $bin/rope2d verify --quiet --cpu-judge ${VERIFY_FLAGS:-} --out "$out/verifycpu" 2>&1 | tail -n 60 | tee "$out/verifycpu.log" ;;
    samejudge) python3 verify/scripts/same_judgement.py "$out/verify/report.json" "$out/verifycpu/report.json" 2>&1 | tail -n 40 | tee "$out/samejudge.log" ;;
    verify3) /usr/bin/time -f "verify wall %e s" $bin/rope2d verify --quiet --grad-dtypes bf16,fp16,fp32 --out "$out/tolerance" 2>&1 | tail -n 20 | tee "$out/tolerance.log" ;;
    defective) PATH=/usr/local/cuda/bin:$PATH verify/tests/defective_test.sh $bin/rope2d verify/tests/kernels /tmp/defective 2>&1 | tee "$out/defective${DEFECTIVE_PART:-}.log"
               cp -r /tmp/defective/sanitize_* "$out/" 2>/dev/null ;;  # the compute-sanitizer cases: each tool's log
    defectiveparts) # The defect corpus in parts side by side, each with a work folder of its own:
             # DEFECTIVE_PARTS="name:REGEX ..." (each part's DEFECTIVE_ONLY; the other settings as given).
             # Every case of the corpus must fall in one part: one in none or in two is named first.
             : "${DEFECTIVE_PARTS:?defectiveparts: DEFECTIVE_PARTS names the parts}"
             for c in $(DEFECTIVE_LIST=1 verify/tests/defective_test.sh $bin/rope2d verify/tests/kernels /tmp/defective-list); do
               n=0; for part in $DEFECTIVE_PARTS; do [[ $c =~ ${part#*:} ]] && n=$((n+1)); done
               [ "$n" = 1 ] || echo "defectiveparts: case $c is in $n parts"
             done | tee "$out/defective-cover.log"
             for part in $DEFECTIVE_PARTS; do
               d=${part%%:*}; rm -rf "/tmp/defective-$d"
               DEFECTIVE_ONLY=${part#*:} PATH=/usr/local/cuda/bin:$PATH \
                 verify/tests/defective_test.sh $bin/rope2d verify/tests/kernels "/tmp/defective-$d" >"$out/defective-$d.log" 2>&1 &
             done
             wait
             for part in $DEFECTIVE_PARTS; do d=${part%%:*}; tail -n 1 "$out/defective-$d.log"; grep "^FAIL" -A5 "$out/defective-$d.log"
               mkdir -p "$out/defective-$d" && for f in /tmp/defective-$d/*/report.md; do
                 [ -e "$f" ] && cp "$f" "$out/defective-$d/$(basename "$(dirname "$f")").md"; done
             done ;;
    interop) PYTHONPATH=python python3 -m rope2d.golden_interop data/golden-smoke /tmp/torch_outputs.safetensors 2>&1 | tee "$out/interop.log"
             for t in float32-bound solexecbench; do $bin/rope2d check --golden data/golden-smoke --outputs /tmp/torch_outputs.safetensors --tier $t 2>&1 | tail -n 1 | sed "s/^/torch eager float32, $t: /"; done | tee -a "$out/interop.log" ;;
    nightly) echo '{"sweep": {"from": 0, "to": 16384, "budget_s": '"${SWEEP_BUDGET:-600}"'}}' >/tmp/nightly.json
             # The root is the repository's reports/nightly, so the run compares with the last committed one.
             PATH=/usr/local/cuda/bin:$PATH $bin/rope2d nightly --quiet --config /tmp/nightly.json --out reports/nightly \
               ${NIGHTLY_DATE:+--date $NIGHTLY_DATE} 2>&1 | tail -n 40 | tee "$out/nightly.log"
             mkdir -p "$out/nightly" && cp -r "$(ls -td reports/nightly/*/ | head -1)" "$out/nightly/" ;;
    shards) # The nightly on every GPU of the machine, one shard each, against the same nightly on
            # one GPU: wall times in shards.txt, both reports in shards/, their equality checked.
            echo '{"sweep": {"from": 0, "to": '"${SHARDS_SWEEP_TO:-16384}"', "budget_s": 600}}' >/tmp/shards.json
            d=$(date -u +%F); rm -rf /tmp/shards-one /tmp/shards-all
            t0=$(date +%s.%N)
            CUDA_VISIBLE_DEVICES=0 $bin/rope2d nightly --quiet --config /tmp/shards.json --out /tmp/shards-one --date "$d" >"$out/shards-one.log" 2>&1
            t1=$(date +%s.%N)
            $bin/rope2d nightly --quiet --gpus all --config /tmp/shards.json --out /tmp/shards-all --date "$d" >"$out/shards-all.log" 2>&1
            t2=$(date +%s.%N)
            { echo "GPUs: $(nvidia-smi -L | wc -l); sweep [0, ${SHARDS_SWEEP_TO:-16384}), all grad dtypes"
              echo "one GPU: $(awk "BEGIN {print $t1 - $t0}") s; --gpus all: $(awk "BEGIN {print $t2 - $t1}") s"
              grep "shards on GPUs" "$out/shards-all.log"
              python3 verify/tests/same_night.py /tmp/shards-one/$d/summary.json /tmp/shards-all/$d/summary.json \
                "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shards"])' /tmp/shards-all/$d/summary.json)" \
                && echo "the merged report equals the one-GPU report" || echo "the reports DIFFER"; } 2>&1 | tee "$out/shards.txt"
            mkdir -p "$out/shards" && cp -r /tmp/shards-one/$d "$out/shards/one-gpu" && cp -r /tmp/shards-all/$d "$out/shards/all-gpus" ;;
    shards1) # The sharded nightly on one GPU: two shards one after the other, merged, against one
             # process: the merged report and the joined sweep worst-case list equal the one
             # process's (the list's "made by" and time lines aside).
             echo '{"sweep": {"from": 0, "to": '"${SHARDS_SWEEP_TO:-16384}"', "budget_s": 600}}' >/tmp/shards.json
             d=$(date -u +%F); rm -rf /tmp/s1-one /tmp/s1-two
             export PATH=/usr/local/cuda/bin:$PATH
             { $bin/rope2d nightly --quiet --config /tmp/shards.json --out /tmp/s1-one --date "$d"; echo "one process: exit $?"
               for i in 0 1; do $bin/rope2d nightly --quiet --config /tmp/shards.json --out /tmp/s1-two --date "$d" --shard $i/2
                 echo "shard $i/2: exit $?"; done
               $bin/rope2d nightly merge --out /tmp/s1-two --date "$d"; echo "merge: exit $?"; } >"$out/shards1-runs.log" 2>&1
             { tail -n 4 "$out/shards1-runs.log"
               python3 verify/tests/same_night.py /tmp/s1-one/$d/summary.json /tmp/s1-two/$d/summary.json 2 \
                 && echo "the merged report equals the one-process report" || echo "the reports DIFFER"
               for l in /tmp/s1-one/$d/sweep-*/sweep_worst.txt; do
                 m=/tmp/s1-two/$d/$(basename $(dirname $l))/sweep_worst.txt
                 diff <(sed '1d;5d' $l) <(sed '1d;5d' $m) >/tmp/s1-worst.diff && grep -q '^0x' $m \
                   && echo "the joined worst-case list equals the one-process list ($(grep -c '^0x' $m) cases)" \
                   || { echo "the worst-case lists DIFFER"; head -n 20 /tmp/s1-worst.diff; }
               done; } 2>&1 | tee "$out/shards1.txt"
             mkdir -p "$out/shards1" && cp -r /tmp/s1-one/$d "$out/shards1/one-process" && cp -r /tmp/s1-two/$d "$out/shards1/two-shards" ;;
    solution) for sol in torch_eager torch_fp16_sincos cuda_sincosf cuda_default_flags triton_sincos; do
                PATH=/usr/local/cuda/bin:$PATH $bin/rope2d verify verify/tests/solutions/$sol.json --quick --quiet --out /tmp/sol-$sol 2>&1 | tail -n 8
                echo "exit ${PIPESTATUS[0]} for $sol"; done | tee "$out/solution.log" ;;
    pysolutions) # The accurate and defective Python solutions of verify/tests/python_solutions, each with its
                 # expected verdict and named reason, and the wall time of each --quick run (PYSOL="names" for some).
                 rm -rf /tmp/pysol
                 verify/tests/python_solutions_test.sh $bin/rope2d verify/tests/python_solutions /tmp/pysol ${PYSOL:-} 2>&1 \
                   | tee "$out/pysolutions.log"
                 mkdir -p "$out/pysolutions" && for d in /tmp/pysol/*/; do n=$(basename "$d")
                   cp "$d/report.md" "$out/pysolutions/$n.md" 2>/dev/null; cp "/tmp/pysol/$n.log" "$out/pysolutions/$n.log"; done ;;
    official) # Solutions shaped like SOL-ExecBench's own (binding null or absent, LOCAL, dps false for the
              # corpus's Triton one), judged over their definition (090: bf16), then with fp16 and fp32 asked
              # for, which are reported beyond the definition and never change the verdict.
              mkdir -p /tmp/official && python3 - verify/tests/solutions /tmp/official <<'PY'
import json, sys
src, dst = sys.argv[1], sys.argv[2]
def put(name, doc): json.dump(doc, open(f"{dst}/{name}.json", "w"))
for s, edit in [("triton_sincos", "absent"), ("torch_eager", "null"), ("torch_fp16_sincos", "null"),
                ("cuda_sincosf", "null"), ("cuda_default_flags", "absent")]:
    d = json.load(open(f"{src}/{s}.json"))
    if edit == "absent": d["spec"].pop("binding", None)
    else: d["spec"]["binding"] = None
    put(f"{s}_binding_{edit}", d)
put("triton_dps_false", json.load(open(f"{src}/../solution_cases/cases.json"))["bases"]["triton"])
PY
              for f in /tmp/official/*.json; do n=$(basename "$f" .json)
                PATH=/usr/local/cuda/bin:$PATH $bin/rope2d verify "$f" --quick --quiet --out "/tmp/off-$n" 2>&1 | tail -n 4
                echo "exit ${PIPESTATUS[0]} for $n (definition)"
                PATH=/usr/local/cuda/bin:$PATH $bin/rope2d verify "$f" --quick --quiet --grad-dtypes bf16,fp16,fp32 --out "/tmp/off3-$n" 2>&1 | tail -n 3
                echo "exit ${PIPESTATUS[0]} for $n (bf16,fp16,fp32)"; done | tee "$out/official.log" ;;
    python) # The Python package's tests with CUDA tensors (librope2d_py.so and its libraries in $bin).
            ROPE2D_LIBRARY=$bin PYTHONPATH=python python3 -m pytest -v -p no:cacheprovider python/tests 2>&1 | tail -n 80 | tee "$out/python.log" ;;
    gpucheck) # The GPU comparison against the CPU judge on fresh inputs (copy build/verify/gpu_check_gpu_test to $bin).
              $bin/gpu_check_gpu_test 2>&1 | tail -n 80 | tee "$out/gpu_check.log" ;;
    exhaustive) # Every one of the 2^32 float32 angle bit patterns with six grad pairs through the project's kernel,
                # judged on the GPU; time-boxed (EXHAUSTIVE_BUDGET s, default 540), resumable: the log says at which
                # pattern to go on, and EXHAUSTIVE_RANGE=LO:HI (or EXHAUSTIVE_SHARD=I/N) runs that part only.
                /usr/bin/time -f "exhaustive wall %e s" $bin/rope2d sweep --quiet --budget-s ${EXHAUSTIVE_BUDGET:-540} \
                  ${EXHAUSTIVE_RANGE:+--range $EXHAUSTIVE_RANGE} ${EXHAUSTIVE_SHARD:+--shard $EXHAUSTIVE_SHARD} --out "$out/exhaustive" \
                  2>&1 | tail -n 60 | tee "$out/exhaustive.log"
                cp "$out/exhaustive/sweep_worst.txt" "$out/sweep_worst.txt" 2>/dev/null ;;
    ftzedge) # The -ftz=true accurate kernel at flush-to-zero's edge (results and products within a few
             # ulps of 2^-126), judged on the CPU and the GPU: 0 false rejections expected.
             ROPE2D_FTZ_KERNEL=$bin/librope2d_accurate_ftz.so $bin/flush_edge_gpu_test 2>&1 | tail -n 40 | tee "$out/flush_edge.log" ;;
    counter) # Counter-based inputs made on the GPU against the CPU's, bit for bit; the testbed's GPU-made inputs.
             $bin/counter_gpu_test 2>&1 | tail -n 40 | tee "$out/counter_gpu_test.log" ;;
    trace) # verify --trace/--json on the GPU, the traces through SOL-ExecBench's Trace model, and the
           # golden export through SOL-ExecBench's own CLI with the official reference solution
           # (its sources carried in .solexecbench/src; the harness from shared/ or ../shared/).
           h=${SOLX_HARNESS:-shared/sol-execbench/harness}; [ -d "$h" ] || h=../shared/sol-execbench/harness
           mkdir -p "$out/trace"
           $bin/rope2d verify --quick --quiet --grad-dtypes bf16 --out "$out/trace/verify" --trace "$out/trace/verify.jsonl" --json \
             >"$out/trace/verify.json" 2>"$out/trace/verify.err"; echo "verify --trace --json: exit $?" | tee "$out/trace/trace.log"
           python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("--json stdout:", len(r["results"]), "results, verdict", r["verdict"])' \
             "$out/trace/verify.json" 2>&1 | tee -a "$out/trace/trace.log"
           ( eval "$(SOLX_SRC=.solexecbench/src bash "$h/device_setup.sh" 2>/dev/null)"
             python3 verify/scripts/official_trace_check.py "$out/trace/verify.jsonl" 2>&1
             export FLASHINFER_TRACE_DIR=$(pwd)/data/golden-smoke
             echo "command: FLASHINFER_TRACE_DIR=\$PWD/data/golden-smoke python3 -m sol_execbench.cli.main data/golden-smoke/solexecbench --solution $h/selftest/torch_eager/solution.json -o $out/trace/golden_official.jsonl"
             timeout 500 python3 -m sol_execbench.cli.main data/golden-smoke/solexecbench --solution "$h/selftest/torch_eager/solution.json" \
               -o "$out/trace/golden_official.jsonl" >"$out/trace/golden_official.out" 2>&1; echo "official CLI on the golden export: exit $?"
             tail -n 30 "$out/trace/golden_official.out"
             python3 verify/scripts/official_trace_check.py "$out/trace/golden_official.jsonl" 2>&1 ) | tee -a "$out/trace/trace.log" ;;
    sincosf) # The premise measured and compared (copy build/verify/sincosf_ulp and premise_check to $bin):
             # sincosf_ulp.json is the measurement; copy it to reports/premise/sincosf_ulp.json to record it.
             { timeout 300 $bin/sincosf_ulp --json "$out/sincosf_ulp.json"; echo "sincosf_ulp: exit $?"
               $bin/premise_check "$out/sincosf_ulp.json"; echo "premise_check: exit $?"; } 2>&1 | tee "$out/sincosf_ulp.log" ;;
    ftzjudge) # A judge built with -ftz=true on purpose: its canary must refuse every pass (copy
              # build/verify/flushing_judge_gpu_test to $bin).
              $bin/flushing_judge_gpu_test 2>&1 | tee "$out/flushing_judge.log"; echo "flushing_judge_gpu_test: exit ${PIPESTATUS[0]}" ;;
    verifyq) /usr/bin/time -f "verify --quick wall %e s" $bin/rope2d verify --quick --quiet ${VERIFY_FLAGS:-} --out "$out/verifyq" 2>&1 | tail -n 30 | tee "$out/verifyq.log" ;;
    solx) # SOL-ExecBench's own CLI, offline (docs/golden.md): .solexecbench (a copy of its sources)
          # and .solx (a copy of shared/sol-execbench: the harness's stand-ins and problem 090) carried.
          # The committed golden export and a fresh benchmark-suite export, each with an accurate
          # eager solution; then the official problem 090 with the sample solutions (SOLX_SOLUTIONS).
          export SOLX_SRC=$PWD/.solexecbench/src; eval "$(bash .solx/harness/device_setup.sh 2>/dev/null)"
          { rm -rf /tmp/golden-bench
            $bin/rope2d golden --suite benchmark --quiet --out /tmp/golden-bench; echo "golden --suite benchmark: exit $?"
            for g in data/golden-smoke /tmp/golden-bench; do
              echo "== $g/solexecbench, solution selftest/torch_eager:"
              echo "   FLASHINFER_TRACE_DIR=$g python3 -m sol_execbench.cli.main $g/solexecbench --solution torch_eager/solution.json"
              FLASHINFER_TRACE_DIR=$(cd $g && pwd) python3 -m sol_execbench.cli.main $g/solexecbench \
                --solution .solx/harness/selftest/torch_eager/solution.json -o "$out/solx-$(basename $g).jsonl" 2>&1 | tail -n 4
              echo "exit ${PIPESTATUS[0]}"
              python3 -c 'import json,sys,collections; print(dict(collections.Counter(json.loads(l)["evaluation"]["status"] for l in open(sys.argv[1]))))' "$out/solx-$(basename $g).jsonl"
            done
            for s in ${SOLX_SOLUTIONS:-torch_eager triton_sincos cuda_sincosf}; do
              echo "== official problem 090, verify/tests/solutions/$s.json:"
              PATH=/usr/local/cuda/bin:$PATH python3 -m sol_execbench.cli.main "$SOLX_PROBLEM_090" --solution verify/tests/solutions/$s.json \
                -o "/tmp/solx-090-$s.jsonl" 2>&1 | tail -n 3
              echo "exit ${PIPESTATUS[0]}"
            done; } 2>&1 | tee "$out/solx.log" ;;
    attacks) # The attack corpus (verify/tests/attacks): the .cu attacks at call time, then the same attacks
             # as Python and cuda_cpp solutions through the runner (where torch has CUDA); ATTACK_ONLY=REGEX for some.
             rm -rf /tmp/attacks
             PATH=/usr/local/cuda/bin:$PATH verify/tests/attack_test.sh $bin/rope2d verify/tests/attacks /tmp/attacks 2>&1 | tee "$out/attacks.log"
             mkdir -p "$out/attacks" && for d in /tmp/attacks/*/; do n=$(basename "$d")
               cp "$d/report.md" "$out/attacks/$n.md" 2>/dev/null; cp "/tmp/attacks/$n.log" "$out/attacks/$n.log" 2>/dev/null; done ;;
    attackhalves) # The whole attack corpus in parts side by side: the .cu attacks, the Python ones and
             # the cuda_cpp ones in two (each builds a torch extension, about a minute), each part in
             # a mount namespace of its own whose /var/tmp (the marks folder and the secret that
             # attack_test.sh keeps there) is a private folder, and whose /run/rope2d-attack (the
             # daemon sockets it listens on) is memory of its own, so no part sees or clears
             # another's marks (needs root: unshare -m). The parts
             # share the machine's loopback, so one listener on port 47811 binds ("Address already in
             # use" from the others); the network attacks are judged by the box's count of the
             # connection it refused, which needs no listener.
             # ATTACK_PARTS="name:REGEX ..." splits it otherwise (more parts end sooner on a machine of many cores).
             parts=${ATTACK_PARTS:-"cu:^([abd-oq-z]|c[^p]|p[^y]) py:^py_ cppa:^cpp_(forge|hang|crash) cppb:^cpp_(exit|fork|network|loud|build)"}
             for half in $parts; do
               h=${half%%:*}; mkdir -p "/var/tmp-$h" "$out/attacks-$h" /run/rope2d-attack; rm -rf "/tmp/attacks-$h"
               ATTACK_ONLY=${half#*:} PATH=/usr/local/cuda/bin:$PATH unshare -m --propagation private bash -c \
                 'mount --bind "$1" /var/tmp && mount -t tmpfs tmpfs /run/rope2d-attack && exec verify/tests/attack_test.sh "$2" verify/tests/attacks "$3"' _ \
                 "/var/tmp-$h" "$bin/rope2d" "/tmp/attacks-$h" >"$out/attacks-$h.log" 2>&1 &
             done
             wait
             for h in $(for half in $parts; do echo "${half%%:*}"; done); do tail -n 1 "$out/attacks-$h.log"; grep "^FAIL" "$out/attacks-$h.log"
               for d in /tmp/attacks-$h/*/; do n=$(basename "$d")
                 cp "$d/report.md" "$out/attacks-$h/$n.md" 2>/dev/null; cp "/tmp/attacks-$h/$n.log" "$out/attacks-$h/$n.log" 2>/dev/null; done
             done ;;
    boxed) # A boxed .cu submission (the accurate sample kernel) through the whole default run, then --bench:
           # the time against the project's in-process kernel (the verify step).
           k=${BOXED_KERNEL:-verify/tests/kernels/accurate_vector.cu}
           PATH=/usr/local/cuda/bin:$PATH /usr/bin/time -f "boxed verify wall %e s" $bin/rope2d verify "$k" --quiet --out "$out/boxed" 2>&1 | tail -n 20 | tee "$out/boxed.log"
           PATH=/usr/local/cuda/bin:$PATH /usr/bin/time -f "boxed verify --bench wall %e s" $bin/rope2d verify "$k" --quick --bench --quiet --out "$out/boxedbench" 2>&1 | tail -n 30 | tee -a "$out/boxed.log"
           grep -h -A3 "refused by the box\|confinement\|bench clock" "$out/boxed/report.md" "$out/boxedbench/report.md" 2>/dev/null | head -n 30 | tee -a "$out/boxed.log" ;;
    forgesweep|forgesweepblock)
                # rope2d sweep of forge_finished.cu (a kernel that never ends, its "finished" forged),
                # killed at 90 s if still running. At 12, 20 and 45 s: the sweep's threads (state,
                # wait channel, system call, kernel stack), every process and the GPU's processes,
                # in $step-threads.txt. forgesweepblock: the same with the judge's CUDA context set
                # to block rather than spin in its synchronisations (.device/bin/blocksync.so).
                preload=; [ $step = forgesweepblock ] && preload=$root/$bin/blocksync.so
                PATH=/usr/local/cuda/bin:$PATH LD_PRELOAD=$preload $bin/rope2d sweep verify/tests/attacks/forge_finished.cu \
                  --range 0:65536 --call-timeout 10 --quiet --out /tmp/$step >"$out/$step.log" 2>&1 &
                p=$!; t0=$SECONDS
                for at in 12 20 45; do sleep $((at - (SECONDS - t0))); kill -0 $p 2>/dev/null || break
                  { echo "== at $at s"
                    for t in /proc/$p/task/*; do
                      echo "-- $(cat $t/comm) $(cut -d' ' -f3 $t/stat) wchan=$(cat $t/wchan) syscall=$(cut -d' ' -f1 $t/syscall 2>&1)"
                      head -n 12 $t/stack 2>&1; done
                    ps -eo pid,ppid,pgid,stat,wchan:32,args | grep -E 'PID|rope2d|bwrap|kernel-host|python' | grep -v grep
                    for q in $(ps -eo pid=,stat= | awk '$2 ~ /D/ {print $1}'); do echo "-- D: $q"; head -n 16 /proc/$q/stack 2>&1; done
                    nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv 2>&1; } >>"$out/$step-threads.txt"; done
                while kill -0 $p 2>/dev/null && [ $((SECONDS - t0)) -lt 90 ]; do sleep 1; done
                kill -0 $p 2>/dev/null && { kill -9 $p; echo "still running at 90 s: killed"; }
                wait $p; echo "exit $? after $((SECONDS - t0)) s"; tail -n 3 "$out/$step.log"
                sleep 2; ps -eo pid,ppid,stat,args | grep -E 'bwrap|kernel-host' | grep -v grep
                dmesg 2>&1 | tail -n 30 >"$out/$step-dmesg.txt" ;;
    pairs) # Two builds judge alike: each case run by $bin and by $bin2 with the same seed, the two
           # report.json compared by same_judgement.py (pairs.log; the reports under pairs/).
           mkdir -p "$out/pairs"
           for c in "project:" "vector:verify/tests/kernels/accurate_vector.cu --quick" "sign:verify/tests/kernels/sign_error.cu --quick" \
                    "skipped:verify/tests/kernels/skipped_tail.cu --quick" "eager:verify/tests/solutions/torch_eager.json --quick" \
                    "triton:verify/tests/solutions/triton_sincos.json --quick" "cudacpp:verify/tests/solutions/cuda_sincosf.json --quick"; do
             n=${c%%:*}; a=${c#*:}
             for b in "$bin" "$bin2"; do d=$out/pairs/$n-$(label "$b")
               PATH=/usr/local/cuda/bin:$PATH /usr/bin/time -f "$n $(label "$b") wall %e s" $b/rope2d verify $a --quiet --out "$d" >"$d.log" 2>&1
               rc=$?  # before the line's command substitutions, which set $? of their own
               echo "$n $(label "$b"): exit $rc $(grep -m1 -oE 'Verdict: [a-z]+' "$d/report.md") $(tail -n 1 "$d.log")"; done
             python3 verify/scripts/same_judgement.py "$out/pairs/$n-$(label "$bin")/report.json" "$out/pairs/$n-$(label "$bin2")/report.json" \
               >"$out/pairs/$n-same.txt" 2>&1 && echo "$n: same judgement" || { echo "$n: DIFFERENT"; head -n 8 "$out/pairs/$n-same.txt"; }
           done 2>&1 | tee "$out/pairs.log" ;;
    quicktime|quickab)
             # The project's kernel, QUICKAB_ROUNDS (3) rounds of --quick and one default run, wall,
             # user and system seconds, on a quiet machine (before any attack). quickab: two builds
             # alternating, $bin against $bin2 (by default .device/p2/bin, device_pack.sh --second):
             # a slower machine or a slower build, only a baseline on the same machine tells them apart.
             builds=$bin; [ $step = quickab ] && builds="$bin $bin2"
             for k in $(seq "${QUICKAB_ROUNDS:-3}") full; do a=--quick; [ "$k" = full ] && a=
               for b in $builds; do n=$(label "$b")-$k
                 /usr/bin/time -f "$n verify ${a:-(default)} wall %e s, user %U s, sys %S s" $b/rope2d verify $a --quiet --out /tmp/$n 2>&1 | tail -n 1
                 echo "  exit ${PIPESTATUS[0]}, $(grep -m1 -E '^(\*\*)?Verdict' /tmp/$n/report.md)"
                 cp /tmp/$n/report.md "$out/$step-$n.md" 2>/dev/null; done; done | tee "$out/$step.log" ;;
    *) echo "unknown step $step" ;;
  esac
done
# The device call returns at most 8 files: pack the report folders.
(cd "$out" && dirs=$(ls -d verify verifycpu verifyq tolerance nightly shards shards1 exhaustive pysolutions trace attacks attacks-cu attacks-py boxed boxedbench pairs 2>/dev/null); [ -n "$dirs" ] && tar czf reports.tgz $dirs && rm -rf $dirs)
exit 0
