#!/usr/bin/env bash
# Submits the rope2d nightly to Slurm: a job array of N shards (one GPU each), then the merge
# job, which runs when every shard succeeded (--dependency=afterok) and is cancelled otherwise.
#   verify/slurm/submit.sh [--shards N] [--date YYYY-MM-DD] [--out DIR] [--rope2d PATH]
#                          [--partition P] [--no-gres] [--wait] [-- nightly options...]
# Run it on a shared file system (the jobs start in the working directory; relative paths given
# are taken from there). The default --rope2d is the build beside this script's checkout.
# --no-gres drops --gres=gpu:1 (a partition without GPUs: the nightly checks what needs none);
# --wait returns when the merge job ends, with its exit code. Prints the two job ids.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards=4 date=$(date -u +%F) out=reports/nightly rope2d=$here/../../build/verify/rope2d gres=(--gres=gpu:1) partition=() wait=()
while [ $# -gt 0 ]; do
  case $1 in
    --shards) shards=$2; shift 2 ;;
    --date) date=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --rope2d) rope2d=$2; shift 2 ;;
    --partition) partition=(--partition "$2"); shift 2 ;;
    --no-gres) gres=(); shift ;;
    --wait) wait=(--wait); shift ;;
    --) shift; break ;;
    *) echo "submit.sh: unknown option '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: --shards: expected a count of at least 1, found '$shards'" >&2; exit 2; }
[[ $date =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || { echo "submit.sh: --date: expected YYYY-MM-DD, found '$date'" >&2; exit 2; }
[ -x "$rope2d" ] || { echo "submit.sh: --rope2d: expected the rope2d program, found nothing at '$rope2d'" >&2; exit 2; }
rope2d=$(cd "$(dirname "$rope2d")" && pwd)/$(basename "$rope2d")
mkdir -p "$out/$date"   # Slurm writes the job logs there and does not create folders
array=$(sbatch --parsable "${partition[@]}" "${gres[@]}" --array="0-$((shards - 1))" --output="$out/$date/slurm-shard-%a.log" \
  "$here/nightly.sbatch" "$rope2d" "$shards" "$date" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable "${partition[@]}" "${wait[@]}" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$out/$date/slurm-merge.log" "$here/merge.sbatch" "$rope2d" "$shards" "$date" "$out") && rc=0 || rc=$?
merge=${merge%%;*}
echo "shards: job $array (array 0-$((shards - 1))); merge: job $merge; report: $out/$date/summary.md"
if [ ${#wait[@]} -gt 0 ]; then
  # A merge job cancelled because a shard failed ends without an exit code of its own.
  state=$(scontrol -o show job "$merge" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
  if [ "$state" != COMPLETED ] && [ "$state" != FAILED ]; then
    echo "submit.sh: the merge job ended ${state:-unknown}: a shard failed (logs: $out/$date/slurm-shard-*.log)" >&2
    [ $rc -eq 0 ] && rc=1
  fi
fi
exit $rc
