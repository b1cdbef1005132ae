#!/usr/bin/env bash
# Untrusted input beyond the golden files (one case per reproducer): shard results and the
# previous summary read as every other input (typed, regular files, capped), dates that stay
# under --out, reports written whole or not at all; sweep options parsed as nightly's; golden
# sets that a signal, a killed run or a symlink cannot damage (a symlink --out is refused);
# check --golden comparing what a file says with what it holds. Bad input exits 2 naming the
# file and field; nothing hangs.
#   untrusted_test.sh ROPE2D SOURCE_DIR
rope2d=$(realpath "$1") src=$(realpath "$2")
source "$(dirname "$0")/testlib.sh"
cd "$tmp" || exit 1
run() {  # run EXPECTED_RC NAME COMMAND...: 60 s at most (a hang fails); output in $out
  local want=$1 name=$2; shift 2
  out=$(timeout -k 5 60 "$@" 2>&1); rc=$?
  if [ "$rc" = "$want" ]; then ok "$name: exit $rc"; else bad "$name: exit $rc, expected $want"; echo "$out" | tail -4; fi
}
says() {  # says NAME PATTERN: the last run's output holds PATTERN
  if grep -q -- "$2" <<<"$out"; then ok "$1 says '$2'"; else bad "$1: output lacks '$2'"; echo "$out" | tail -4; fi
}
none() {  # none NAME FILE...: none of them exists
  local f; for f in "${@:2}"; do [ -e "$f" ] && { bad "$1: $f exists"; return; }; done; ok "$1: nothing written"
}

# --- a night in one shard, the material of the merge cases -----------------------------------
d=2026-12-04
echo '{"grad_dtypes": ["bf16"], "sweep": {"to": 1}}' >cfg.json
"$rope2d" nightly --config cfg.json --golden "$src/data/golden-smoke" --quick --quiet --out base --date $d --shard 0/1 \
  >base.log 2>&1 || { bad "the shard of the night: exit $?"; tail -5 base.log; }
shard=base/$d/shard-0-of-1.json
edit() {  # edit NAME PYTHON: a copy of the shard under NAME/$d/, changed by PYTHON (s is the shard)
  mkdir -p "$1/$d" && python3 - "$shard" "$1/$d/shard-0-of-1.json" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(s, open(sys.argv[2], "w"))
PY
}
merge() {  # merge EXPECTED_RC NAME [LABEL]: nightly merge of NAME/$d/shard-0-of-1.json into NAME
  run "$1" "merge ${3:-$2}" "$rope2d" nightly merge --out "$2" --quiet "$2/$d/shard-0-of-1.json"
}

edit whole 'pass'
merge 0 whole
[ -s whole/$d/summary.json ] && [ -s whole/$d/summary.md ] && [ -s whole/$d/junit.xml ] && ok "a whole shard: the report" ||
  bad "a whole shard: $(ls whole/$d)"

# A missing key: SIGSEGV before (operator[] on const JSON); now exit 2 naming file and field.
for key in 'config"]["sweep"]["from' 'config"]["golden"]["dir' 'golden"]["results"][0]["problem' 'verify"][0]["verdict' 'sweep"][0]["complete'; do
  name=missing-$(tr -dc 'a-z' <<<"$key" | tail -c 20)
  edit "$name" "del s[\"$key\"]"
  merge 2 "$name"
  says "$name" "$name/$d/shard-0-of-1.json: .*expected .*found nothing"
done
# A wrong type: a bare [json.exception.type_error.302] before.
edit wrongtype 's["verify"][0]["seconds"] = "fast"'
merge 2 wrongtype
says wrongtype 'wrongtype/2026-12-04/shard-0-of-1.json: verify\[0\].seconds: expected a number in \[0, 10000000\], found the string "fast"'
# Times that no run takes, and a commit string too long for one: refused, named.
edit slow 's["verify"][0]["seconds"] = 1e308'
merge 2 slow
says slow 'slow/2026-12-04/shard-0-of-1.json: verify\[0\].seconds: expected a number in \[0, 10000000\], found the number 1e+308'
edit longcommit 's["commit"] = "c" * 50000000'
merge 2 longcommit
says longcommit 'longcommit/2026-12-04/shard-0-of-1.json: commit: expected a string of at most 200 characters'
edit golden-type 's["golden"]["results"][0]["disposition"] = 5'
merge 2 golden-type
says golden-type 'golden.results\[0\].disposition: expected a string, found the number 5'

# A date that leaves --out: written to ../escaped before.
for date in ../escaped /tmp/rope2d-escaped-$$ 2026-12-04/../../x; do
  edit escape "s[\"date\"] = \"$date\""
  merge 2 escape "escape ($date)"
  says "escape ($date)" "escape/$d/shard-0-of-1.json: date: expected YYYY-MM-DD"
  none "escape ($date)" escaped /tmp/rope2d-escaped-$$ x escape/$d/summary.json
  rm -rf escape
done
run 2 "merge --date ../x" "$rope2d" nightly merge --out whole --date ../x --quiet
says "merge --date ../x" "--date: expected YYYY-MM-DD"
# shard.count as --shard caps it: it hung and took gigabytes before.
edit count 's["shard"]["count"] = 300000000'
merge 2 count
says count 'shard.count: expected an integer in \[1, 4096\], found the number 300000000'

# The previous night's summary: a FIFO hung every later night; a wrong type named no file.
edit fifo 'pass'
mkdir -p fifo/2026-12-03 && mkfifo fifo/2026-12-03/summary.json
# An earlier summary that does not read is set aside with a warning naming it: this night, and
# every later one, still runs and writes its report (it failed all of them before).
merge 0 fifo
grep -q 'fifo/2026-12-03/summary.json: expected a regular file, found a FIFO' fifo/$d/summary.md &&
  ok "fifo: set aside, named in the night's warnings" || bad "fifo: summary.md lacks the warning"
edit prevtype 'pass'
mkdir -p prevtype/2026-12-03 && echo '{"verify": [{"kernel": 5}]}' >prevtype/2026-12-03/summary.json
merge 0 prevtype
grep -q 'prevtype/2026-12-03/summary.json: verify.*0.*kernel: expected a string.*, found the number 5' prevtype/$d/summary.md &&
  ok "prevtype: set aside, named in the night's warnings" || bad "prevtype: summary.md lacks the warning"
edit prevgood 'pass'
mkdir -p prevgood/2026-12-03 && cp whole/$d/summary.json prevgood/2026-12-03/summary.json
merge 0 prevgood
grep -q '"previous": "2026-12-03"' prevgood/$d/summary.json && ok "a good previous summary is compared with" ||
  bad "prevgood: no previous in the summary"

# No half reports: summary.json (written first before) only when all three can be written.
edit half 'pass'
mkdir -p half/$d/junit.xml/blocked
merge 2 half
says half 'junit.xml: expected a regular file or nothing, found a directory'
none half half/$d/summary.json half/$d/summary.md
[ -z "$(ls -A half/$d | grep -v -e '^shard-0-of-1.json$' -e '^junit.xml$')" ] && ok "half: no staged file left behind" ||
  bad "half: left $(ls -A half/$d)"

# --- sweep options, parsed as nightly's ---------------------------------------------------------
run 2 "sweep --shard 4294967296/4294967297" "$rope2d" sweep --shard 4294967296/4294967297 --quick --quiet --out sw1
says "sweep --shard 2^32" "--shard: expected i/N with 0 <= i < N <= 4096"
none "sweep --shard 2^32" sw1
run 2 "sweep --shard 1/2x" "$rope2d" sweep --shard 1/2x --quick --quiet --out sw1
run 0 "sweep --range 010:020" "$rope2d" sweep --range 010:020 --quick --quiet --out sw2
python3 -c 'import json,sys; s=json.load(open("sw2/sweep.json")); sys.exit(0 if (s["lo"], s["hi"]) == ("0xa", "0x14") else 1)' &&
  ok "--range 010:020 is [10, 20), decimal" || bad "--range 010:020: $(head -c 300 sw2/sweep.json)"
for r in -1:5 " 1:5" +1:5 0x:5 1:0x100000001 0x10:010x; do
  run 2 "sweep --range '$r'" "$rope2d" sweep --range "$r" --quick --quiet --out sw3
done

# --- golden: signals, killed runs, symlinks ------------------------------------------------------
"$rope2d" layout --seed 1 --batch 1 --seq-len 40 --emit >l.json
"$rope2d" layout --seed 1 --batch 4 --seq-len 30000 --emit >big.json
run 0 "golden first" "$rope2d" golden --layout l.json --out set --quiet
before=$(sha256sum set/manifest.json)
# SIGINT in the middle of one big problem's reference: acted on between two slices, not at its
# end (the problem takes about 8 s alone, more on a loaded machine; 3 s leaves room for load).
"$rope2d" golden --layout big.json --grad-dtypes fp32 --out set --seed 5 --force >/dev/null 2>golden.log & pid=$!
for _ in $(seq 300); do grep -q "reference, " golden.log && break; sleep 0.1; done  # between two slices
start=$(date +%s%N)
if kill -INT $pid; then
  wait $pid; rc=$?; ms=$((($(date +%s%N) - start) / 1000000))
  [ "$rc" != 0 ] && [ "$ms" -lt 3000 ] && ok "SIGINT acted on in $ms ms" || bad "SIGINT: exit $rc after $ms ms"
else
  bad "SIGINT: golden had ended before it (the test needs a longer problem)"
fi
[ -s set/manifest.json ] && [ "$(sha256sum set/manifest.json)" = "$before" ] && ok "SIGINT: the previous set intact" ||
  bad "SIGINT: the set changed"
# A killed run's staging folder is removed by the next run.
mkdir -p .set.staging-AbC123/x .set.old-XyZ789 .other.staging-KeEp12
run 0 "golden after a killed run" "$rope2d" golden --layout l.json --out set --seed 7 --force --quiet
[ ! -e .set.staging-AbC123 ] && [ ! -e .set.old-XyZ789 ] && ok "stale staging and old folders removed" ||
  bad "stale folders left: $(ls -A | grep -e staging -e old)"
[ -d .other.staging-KeEp12 ] && ok "another set's staging folder left alone" || bad "another set's staging folder removed"
# --out a symlink: refused (an output folder is a directory or nothing), neither followed nor
# replaced; the folder it names gets nothing.
mkdir -p real && ln -s real link
run 2 "golden --out symlink" "$rope2d" golden --layout l.json --out link --quiet
says "golden --out symlink" '--out link: expected a directory or nothing, found a symbolic link'
[ -L link ] && [ -z "$(ls -A real)" ] && ok "the symlink neither followed nor replaced" || bad "symlink: $(ls -la link real)"
ln -s nowhere dangling
run 2 "golden --out dangling symlink" "$rope2d" golden --layout l.json --out dangling --quiet
[ -L dangling ] && ok "a dangling symlink is not replaced" || bad "dangling: $(ls -la dangling)"
# The lock beside the set: a link planted there is refused, not followed (nothing made where it points).
ln -s planted .other.lock
run 2 "golden with a linked lock" "$rope2d" golden --layout l.json --out other --quiet
says "golden with a linked lock" '.other.lock: expected a regular file or nothing, found a symbolic link'
[ ! -e planted ] && [ ! -e other ] && ok "the linked lock: nothing made" || bad "the linked lock: $(ls -la planted other 2>&1)"
# One writer per folder: a lock held refuses a second writer.
flock .set.lock sleep 5 & sleep 0.5
run 2 "golden locked" "$rope2d" golden --layout l.json --out set --seed 9 --force --quiet
says "golden locked" 'another rope2d golden is writing this set'
wait

# --- check --golden: what a file says against what it holds -------------------------------------
for kind in layout_angle layout_table problem_swap; do
  python3 "$src/verify/tests/bad_inputs.py" "$src/data/golden-smoke" "$kind" "$kind" || bad "could not make $kind"
  run 2 "check --golden $kind" "$rope2d" check --golden "$kind"
  case $kind in
    layout_angle) says $kind 'layout_bf16_1x128.safetensors: tensor idx_theta\[5\]: expected .* (from tensors positions and theta), found' ;;
    layout_table) says $kind 'tensor idx_theta\[[0-9]*\]: expected .* (from tensors positions and theta)' ;;
    problem_swap) says $kind 'layout_bf16_1x128.safetensors: __metadata__.problem: expected the string "[^"]*" (the manifest.s), found the string "layout/bf16/1x128"' ;;
  esac
done
run 0 "check --golden (the committed set)" "$rope2d" check --golden "$src/data/golden-smoke"

finish untrusted
