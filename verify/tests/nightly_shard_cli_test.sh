#!/usr/bin/env bash
# rope2d nightly in shards on the CPU: --shard i/N for every i and `nightly merge`, and --gpus
# (child processes; here without a GPU), each give the same report as one process (sets,
# verdicts, worst elements, regressions against the night before); the shards' worst-case lists
# join into the list of one process; merge refuses shards that do not belong together, and a
# missing or malformed list, naming the file and field (or line), exit 2.
#   nightly_shard_cli_test.sh ROPE2D SOURCE_DIR
rope2d=$1
src=$2
source "$(dirname "$0")/testlib.sh"
cd "$tmp" || exit 1
python3 "$src/verify/tests/nudge_golden.py" "$src/data/golden-smoke" golden >/dev/null  # failing problems with worst elements
echo "not CUDA" >broken.cu
echo '{"submissions": ["broken.cu"], "grad_dtypes": ["bf16", "fp32"], "sweep": {"to": 1}}' >cfg.json
args=(--config cfg.json --golden golden --quick --quiet)
d=2026-03-02
for root in single sharded gpus; do
  "$rope2d" nightly --config cfg.json --golden "$src/data/golden-smoke" --quick --quiet --out $root --date 2026-03-01 >/dev/null 2>&1
  # The rule "verify took X s, was Y s" compares wall times, which differ with the load (three
  # children at once under --gpus): the night before is given times no run reaches, so the
  # regressions compared below are those of the results alone.
  python3 - $root/2026-03-01/summary.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for v in s["verify"]:
    v["seconds"] = 1e6
json.dump(s, open(sys.argv[1], "w"), indent=2)
PY
done
"$rope2d" nightly "${args[@]}" --out single --date $d >single.log 2>&1; rc=$?
[ $rc = 1 ] && ok "one process: exit 1" || { bad "one process: exit $rc"; tail -5 single.log; }
for i in 0 1 2 3; do
  "$rope2d" nightly "${args[@]}" --out sharded --date $d --shard $i/4 >shard$i.log 2>&1 || bad "shard $i/4: exit $?"
done
[ -s sharded/$d/shard-3-of-4.json ] && [ ! -e sharded/$d/summary.json ] && ok "each shard writes its result, no report" ||
  bad "shard files: $(ls sharded/$d)"
"$rope2d" nightly merge --out sharded --date $d >merge.log 2>&1; rc=$?
[ $rc = 1 ] && ok "merge: exit 1 like the one process" || { bad "merge: exit $rc"; cat merge.log; }
python3 "$src/verify/tests/same_night.py" single/$d/summary.json sharded/$d/summary.json 4 --nudged &&
  ok "4 shards merged == one process" || bad "4 shards merged differ"
grep -q "golden .*: newly incorrect" sharded/$d/summary.md && ok "the merge compares with the night before" || bad "no regressions in the merge"
"$rope2d" nightly "${args[@]}" --out gpus --date $d --gpus 0,1,2 >gpus.log 2>&1; rc=$?
[ $rc = 1 ] && grep -q "3 shards on GPUs \[0,1,2\]" gpus.log && ok "--gpus 0,1,2: three children and the merge" ||
  { bad "--gpus: exit $rc"; tail -5 gpus.log; }
grep -q "no GPU found; running the shards anyway" gpus.log && ok "--gpus says no GPU was found" || bad "gpus.log: $(head -3 gpus.log)"
grep -q '"cuda_visible_devices": "1"' gpus/$d/shard-1-of-3.json && ok "the child of shard 1 saw CUDA_VISIBLE_DEVICES=1" ||
  bad "shard 1's CUDA_VISIBLE_DEVICES: $(grep cuda_visible gpus/$d/shard-1-of-3.json)"
python3 "$src/verify/tests/same_night.py" single/$d/summary.json gpus/$d/summary.json 3 --nudged && ok "--gpus merged == one process" ||
  bad "--gpus merged differs"
"$rope2d" nightly "${args[@]}" --out all --date $d --gpus all >all.log 2>&1; rc=$?
[ $rc = 1 ] && grep -q "no GPU found; running in one process" all.log && ok "--gpus all without a GPU: one process, as before" ||
  { bad "--gpus all: exit $rc"; head -3 all.log; }
lists=$(ls single/$d/sweep-*/sweep_worst.txt sharded/$d/sweep-*/sweep_worst.txt gpus/$d/sweep-*/sweep_worst.txt 2>/dev/null)
[ -z "$lists" ] && ok "no GPU, no sweep: no worst-case list from one process or from a merge" || bad "lists without a sweep: $lists"

# The worst-case lists: a night of 16 angles in 4 shards. The sweep splits at whole chunks of
# 2^26 patterns (so that shards' lists join into the whole range's: nightly_shard_test checks
# the join of several on the host), so all 16 are the last shard's and the others sweep nothing.
# Shard 3's sweep runs on the host (rope2d sweep without a GPU: the float32 evaluation with
# glibc standing in for the kernel, the list written by the same code into the shard's folder,
# here every angle of its range) and its result says what that sweep checked. That list, of
# the whole range, is the night's: the merge checks it and leaves it, and it is the list of a
# host sweep of all 16 angles but for "made by" and the device line (times).
echo '{"grad_dtypes": ["fp32"], "sweep": {"from": 1, "to": 1.0000019073486328}}' >cfg3.json
for i in 0 1 2 3; do
  "$rope2d" nightly --config cfg3.json --golden none --quick --quiet --out worst --date $d --shard $i/4 >worst$i.log 2>&1 ||
    bad "worst shard $i/4: exit $?"
  range=$(python3 -c 'import json,sys; r=[r for r in json.load(open(sys.argv[1]))["items"] if r["kind"] == "sweep"]; print("%#x:%#x" % (r[0]["lo"], r[0]["hi"]) if r else "")' \
    worst/$d/shard-$i-of-4.json)
  if [ $i != 3 ]; then
    [ -z "$range" ] && ok "shard $i/4 of one chunk sweeps nothing" || bad "shard $i/4 sweeps $range"
    continue
  fi
  [ "$range" = 0x3f800000:0x3f800010 ] && ok "shard 3/4 sweeps the whole chunk" || bad "shard 3/4 sweeps '$range'"
  "$rope2d" sweep --range "$range" --out "worst/$d/sweep-${range/:/-}" --quiet >sweep$i.log 2>&1
  python3 - worst/$d/shard-$i-of-4.json "worst/$d/sweep-${range/:/-}/sweep.json" <<'PY'
import json, sys
s, sw = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
s["sweep"][0].update({k: sw[k] for k in ("ran", "angles", "complete", "over_float32_bound", "max_scaled_error", "seconds")})
json.dump(s, open(sys.argv[1], "w"))
PY
done
"$rope2d" sweep --range 0x3f800000:0x3f800010 --out whole --quiet >whole.log 2>&1
"$rope2d" nightly merge --out worst --date $d >worst-merge.log 2>&1; rc=$?
merged=worst/$d/sweep-0x3f800000-0x3f800010/sweep_worst.txt
[ $rc = 0 ] && [ -s $merged ] && ok "merge writes the night's worst-case list where one process writes it" ||
  { bad "worst merge: exit $rc, $(ls worst/$d)"; cat worst-merge.log; }
if diff <(sed '1d;5d' whole/sweep_worst.txt) <(sed '1d;5d' $merged) >worst.diff && grep -q '^0x' $merged; then
  ok "the merged list == the list of one sweep of the range"
else
  bad "joined list differs: $(head -20 worst.diff)"
fi
# The one shard's range is the whole range: its own list is the night's, left as it wrote it.
grep -q "^# made by: rope2d sweep --range 0x3f800000:0x3f800010" $merged &&
  ok "a shard's list of the whole range stays the night's list" || bad "merged header: $(head -1 $merged)"

# Refusals: exit 2, the file and the field named.
refused() {  # refused NAME PATTERN ARGS...
  local name=$1 pattern=$2; shift 2
  out=$("$rope2d" nightly merge --out refused "$@" 2>&1); rc=$?
  [ $rc = 2 ] && grep -qE -- "$pattern" <<<"$out" && [ ! -e refused/$d/summary.json ] && ok "merge refuses $name" ||
    bad "merge $name: exit $rc: $out"
}
s=sharded/$d
refused "a missing shard" "shard-0-of-4.json and the other shard results: shard.index: .*shard 2/4 missing" \
  $s/shard-0-of-4.json $s/shard-1-of-4.json $s/shard-3-of-4.json
refused "a duplicate shard" "shard-1-of-4.json: shard.index: .*already in" $s/shard-{0,1,2,3}-of-4.json $s/shard-1-of-4.json
refused "shards of different counts" "gpus/$d/shard-2-of-3.json: shard.count: expected the number 4 \\(as in $s/shard-0-of-4.json\\), found the number 3" $s/shard-{0,1}-of-4.json gpus/$d/shard-2-of-3.json $s/shard-3-of-4.json
"$rope2d" nightly "${args[@]}" --out other --date 2026-03-03 --shard 2/4 >/dev/null 2>&1
refused "a shard of another date" "other/2026-03-03/shard-2-of-4.json: date: expected the string \"$d\".*found the string \"2026-03-03\"" $s/shard-{0,1}-of-4.json other/2026-03-03/shard-2-of-4.json $s/shard-3-of-4.json
echo '{"submissions": ["broken.cu"], "grad_dtypes": ["bf16", "fp16"], "sweep": {"to": 1}}' >cfg2.json
"$rope2d" nightly --config cfg2.json --golden golden --quick --quiet --out other --date $d --shard 2/4 >/dev/null 2>&1
refused "a shard of another config" "other/$d/shard-2-of-4.json: config_digest: expected" $s/shard-{0,1}-of-4.json other/$d/shard-2-of-4.json $s/shard-3-of-4.json
python3 - $s/shard-2-of-4.json commit.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["commit"] = "another-build"; json.dump(s, open(sys.argv[2], "w"))
PY
refused "a shard of another build" "commit.json: commit: expected .*found the string \"another-build\"" $s/shard-{0,1}-of-4.json commit.json $s/shard-3-of-4.json
python3 - $s/shard-2-of-4.json dropped.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["golden"]["results"] = s["golden"]["results"][1:]; json.dump(s, open(sys.argv[2], "w"))
PY
refused "a shard missing a result" "dropped.json: golden.results: expected one result per golden item" $s/shard-{0,1}-of-4.json dropped.json $s/shard-3-of-4.json
echo '{"verify": [' >truncated.json
refused "a file that is not JSON" "truncated.json" $s/shard-{0,1,3}-of-4.json truncated.json
refused "--date other than the shards'" "date: expected '2026-03-09' \(--date\)" --date 2026-03-09 $s/shard-{0,1,2,3}-of-4.json
refused "a folder without shards" "found none" --date 2026-03-09
for what in nolist badlist; do mkdir -p $what && cp -r worst/$d $what/; done
w=sweep-0x3f800000-0x3f800010/sweep_worst.txt
rm nolist/$d/$w
refused "a shard's missing worst-case list" "nolist/$d/$w: expected the worst-case list of the sweep of bit patterns \[0x3f800000, 0x3f800010\).* that nolist/$d/shard-3-of-4.json ran, found no such file" nolist/$d/shard-{0,1,2,3}-of-4.json
line=$(grep -n -m1 -v '^#' badlist/$d/$w | cut -d: -f1)
sed -i "${line}s/^[^ ]*/1.5/" badlist/$d/$w
refused "a malformed worst-case list" "badlist/$d/$w:$line: expected a C99 hex float, found '1.5'" badlist/$d/shard-{0,1,2,3}-of-4.json
[ ! -e refused/$d/sweep-0x3f800000-0x3f800010 ] && ok "a refused list leaves no joined list" || bad "refused lists: $(ls refused/$d)"
# Names from a shard file are text in summary.md: a kernel made of table cells, a link, a line
# break and a heading, edited into a one-shard night with its digest made anew. A grad dtype is
# read as one (a name whose report path would leave the night's folder is refused, exit 2).
# hostile_night FOLDER KERNEL DTYPE: the night's shard with those names in place of "broken", bf16.
hostile_night() {
"$rope2d" nightly "${args[@]}" --out "$1" --date 2026-03-04 --shard 0/1 >"$1.log" 2>&1 || bad "hostile shard: exit $?"
python3 - "$1/2026-03-04/shard-0-of-1.json" "$2" "$3" <<'PY' || bad "the shard's digest is not FNV-1a of its compact config"
import json, sys
def digest(plan):  # plan_digest: FNV-1a 64 of the config as nlohmann dumps it (keys sorted, compact)
    h = 1469598103934665603
    for b in json.dumps(plan, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode():
        h = ((h ^ b) * 1099511628211) % 2**64
    return "%016x" % h
s = json.load(open(sys.argv[1]))
assert digest(s["config"]) == s["config_digest"], (digest(s["config"]), s["config_digest"])
kernel, dtype = sys.argv[2].replace("\\n", "\n"), sys.argv[3]
s["config"]["submissions"] = [kernel + ".cu"]
s["config"]["grad_dtypes"] = [dtype if d == "bf16" else d for d in s["config"]["grad_dtypes"]]
for x in s["items"] + s["verify"]:
    if "kernel" in x:
        if x["kernel"] == "broken":
            x["kernel"] = kernel
            if "path" in x: x["path"] = kernel + ".cu"
        x["grad_dtype"] = dtype if x["grad_dtype"] == "bf16" else x["grad_dtype"]
s["config_digest"] = digest(s["config"])
json.dump(s, open(sys.argv[1], "w"))
PY
}
hostile_night hostiledt broken "../../../outside"
mkdir -p "hostiledt/2026-03-04/verify-rope2d-.." && echo secret >hostiledt/outside.log
"$rope2d" nightly merge --out hostiledt --date 2026-03-04 >hostiledt-merge.log 2>&1; rc=$?
[ $rc = 2 ] && grep -q "grad_dtypes\[0\]: expected bf16, fp16 or fp32, found the string \"../../../outside\"" hostiledt-merge.log && [ ! -e hostiledt/2026-03-04/summary.md ] \
  && ok "a shard's unknown grad dtype is refused, naming it (exit 2, no summary)" || { bad "hostile dtype merge: exit $rc"; tail -3 hostiledt-merge.log; }
hostile_night hostile 'evil|cell](<outside.log>)\n# injected' bf16
echo secret >hostile/outside.log
"$rope2d" nightly merge --out hostile --date 2026-03-04 >hostile-merge.log 2>&1; rc=$?
md=hostile/2026-03-04/summary.md
[ $rc = 1 ] && [ -s $md ] && ok "a shard with hostile names merges (exit 1: broken)" || { bad "hostile merge: exit $rc"; tail -3 hostile-merge.log; }
python3 - $md <<'PY' && ok "summary.md: hostile names stay text (cells, lines, headings, links)" || bad "summary.md writes a shard's names as markup"
import re, sys
md = open(sys.argv[1]).read().split("\n")
problems = []
headings = [l for l in md if l.startswith("#")]
if any("injected" in h for h in headings): problems.append("a heading from a name: %r" % headings)
rows = [l for l in md if l.startswith("| ") and "---" not in l]
for r in rows:
    if len(re.findall(r"(?<!\\)\|", r)) != 6: problems.append("a table row of other than 5 cells: %r" % r)
if not any("evil" in r for r in rows): problems.append("no row of the hostile kernel")
for l in md:
    for target in re.findall(r"\]\(<([^>]*)>\)", l):
        if ".." in target.split("/") or "outside" in target: problems.append("a link out of the night's folder: %r" % l)
for l in md:
    if re.search(r"(?<!\\)\]\(", l) and "](<verify-" not in l: problems.append("a link made by a name: %r" % l)
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
out=$("$rope2d" nightly --out x --shard 4/4 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "--shard: expected i/N" <<<"$out" && ok "--shard 4/4 exits 2" || bad "--shard 4/4: exit $rc: $out"
for g in "0,0" "x" "0,-1"; do
  out=$("$rope2d" nightly --out x --gpus "$g" 2>&1); rc=$?
  [ $rc = 2 ] && grep -q -- "--gpus: expected" <<<"$out" && ok "--gpus $g exits 2" || bad "--gpus $g: exit $rc: $out"
done
out=$("$rope2d" nightly --out x --gpus all --shard 0/2 2>&1); rc=$?
[ $rc = 2 ] && ok "--gpus with --shard exits 2" || bad "--gpus --shard: exit $rc"
finish "nightly shards"
