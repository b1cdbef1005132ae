#!/usr/bin/env bash
# The Slurm route of the nightly, for real: munged, slurmctld and slurmd started here on
# localhost (one node, a partition of CPUs, no GPUs), verify/slurm/submit.sh submits the CPU
# nightly as a job array of shards and the dependent merge job, and the merged report must equal
# the single-process run's (same sets, verdicts, worst elements, problems, status). A shard
# array where one task fails must leave the merge job cancelled. Needs root and Debian's
# slurm-wlm and munge; exit 77 (skipped) without them.
#   slurm_test.sh ROPE2D SOURCE_DIR
rope2d=$1
src=$2
for prog in munged slurmctld slurmd sbatch scontrol sinfo squeue scancel runuser; do
  command -v "$prog" >/dev/null || { echo "SKIPPED: no $prog (apt-get install slurm-wlm munge)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: the daemons need root"; exit 77; }
[ -r /etc/munge/munge.key ] || { echo "SKIPPED: no /etc/munge/munge.key"; exit 77; }
source "$(dirname "$0")/testlib.sh"
pids=()
stop() {
  [ -n "${SLURM_CONF:-}" ] && [ -e "$SLURM_CONF" ] && timeout 10 scancel --full -u root >/dev/null 2>&1
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap stop EXIT
chmod 711 "$tmp"
# munged as the munge user, on its own socket (a system munged, if any, is left alone).
mkdir -p "$tmp/munge" && chown munge: "$tmp/munge" && chmod 711 "$tmp/munge"  # munged wants its socket folder searchable by all
cp /etc/munge/munge.key "$tmp/munge/key" && chown munge: "$tmp/munge/key" && chmod 400 "$tmp/munge/key"
runuser -u munge -- munged --foreground --socket="$tmp/munge/socket" --key-file="$tmp/munge/key" --pid-file="$tmp/munge/pid" \
  --log-file="$tmp/munge/log" --seed-file="$tmp/munge/seed" >"$tmp/munged.out" 2>&1 &
pids+=($!)
# One node: this host as slurmd describes it, on its own ports and folders.
host=$(hostname -s)
port=$((20000 + $$ % 20000))
mkdir -p "$tmp/state" "$tmp/spool"
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=rope2dtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
$(slurmd -C | head -1 | sed 's/ UpTime=.*//') NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=cpu Nodes=$host Default=YES MaxTime=30 State=UP
EOF
for _ in $(seq 50); do [ -S "$tmp/munge/socket" ] && break; sleep 0.1; done
[ -S "$tmp/munge/socket" ] && ok "munged is up" || { bad "munged did not start: $(cat "$tmp/munge/log" 2>/dev/null)"; finish slurm; exit 1; }
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 120); do
  state=$(timeout 5 sinfo -h -o %t -p cpu 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] && ok "slurmctld and slurmd are up, the node is idle" ||
  { bad "the node is '$state'"; tail -5 "$tmp/slurmctld.log" "$tmp/slurmd.log" "$tmp/slurmctld.out" "$tmp/slurmd.out"; finish slurm; exit 1; }

# The CPU nightly: three dtypes of the project's kernel and a broken submission, a golden set
# with some results off by a few ulps, the sweep (no GPU: skipped), once in one process and once as three Slurm shards and the merge.
mkdir -p "$tmp/work" && cd "$tmp/work" || exit 1
python3 "$src/verify/tests/nudge_golden.py" "$src/data/golden-smoke" golden >/dev/null  # failing problems with worst elements
echo "not CUDA" >broken.cu
echo '{"submissions": ["broken.cu"], "grad_dtypes": ["bf16", "fp16", "fp32"], "sweep": {"to": 1}}' >cfg.json
args=(--config cfg.json --golden golden --quick)
date=2026-02-03
# The night before, with the golden set as committed: both roots compare with it.
"$rope2d" nightly --config cfg.json --golden "$src/data/golden-smoke" --quick --out single --date 2026-02-02 --quiet >before.log 2>&1
mkdir -p sharded && cp -r single/2026-02-02 sharded/
"$rope2d" nightly "${args[@]}" --out single --date $date --quiet >single.log 2>&1; rc=$?
[ $rc = 1 ] && ok "one process: exit 1 (the broken submission)" || { bad "one process: exit $rc"; tail -5 single.log; }
timeout 300 "$src/verify/slurm/submit.sh" --shards 3 --no-gres --partition cpu --wait --date $date --out sharded --rope2d "$rope2d" -- \
  "${args[@]}" >submit.log 2>&1; rc=$?
cat submit.log
[ $rc = 1 ] && ok "the merge job exits 1 like the one process" || { bad "submit --wait: exit $rc"; cat sharded/$date/slurm-*.log 2>/dev/null | tail -20; }
ls sharded/$date/shard-{0,1,2}-of-3.json >/dev/null && ok "three shard results" || bad "shard results: $(ls sharded/$date)"
grep -q "shard 1/3 on $host" sharded/$date/slurm-shard-1.log && ok "array task 1 ran shard 1/3 on the node" ||
  bad "slurm-shard-1.log: $(cat sharded/$date/slurm-shard-1.log 2>/dev/null)"
python3 "$src/verify/tests/same_night.py" single/$date/summary.json sharded/$date/summary.json 3 --nudged &&
  ok "merged summary equals the single-process one (sets, verdicts, worst elements)" || bad "summaries differ"
grep -q "Status: FAILED" sharded/$date/summary.md && grep -q "broken fp16: .*verify exited" sharded/$date/summary.md &&
  grep -q "golden .*: incorrect (stored results differ" sharded/$date/summary.md &&
  grep -q "## Regressions against 2026-02-02" sharded/$date/summary.md && grep -q "golden .*: newly incorrect" sharded/$date/summary.md &&
  ok "the merged report names the broken submission and the nudged golden problems" || bad "summary.md: $(head -20 sharded/$date/summary.md)"
python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(len(r.findall(".//testcase")) < 40)' \
  sharded/$date/junit.xml && ok "junit.xml parses, a testcase per run and golden problem" || bad "junit.xml: $(head -c 300 sharded/$date/junit.xml)"

# A shard that fails (bad input: exit 2) leaves the merge job cancelled.
timeout 120 "$src/verify/slurm/submit.sh" --shards 2 --no-gres --wait --date 2026-02-04 --out failing --rope2d "$rope2d" -- \
  --config missing.json --quick >fail.log 2>&1; rc=$?
[ $rc != 0 ] && [ ! -e failing/2026-02-04/summary.json ] && ok "a failed shard leaves the merge job cancelled (exit $rc)" ||
  { bad "failed shard: exit $rc"; cat fail.log; }
[ -z "$(timeout 5 squeue -h)" ] && ok "no job left in the queue" || bad "jobs left: $(squeue -h)"
finish "slurm"
