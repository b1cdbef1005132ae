#!/usr/bin/env bash
# rope2d nightly and the sincosf premise, on the CPU: without a GPU the night says the
# measurement was SKIPPED (never passed); a measurement given with --sincosf-measurement (the
# committed one) is compared with the premise compiled into float32_bound.hpp and passes that
# check; a copy over the premise fails the night (exit 1, FAILED, a line naming the function,
# the measured figure and the premise for sinf and cosf, a <failure> in junit.xml), also when
# the night runs as child shards (--gpus) or as shards merged; a malformed copy is bad input
# before anything runs (exit 2, naming the file and the field). On a GPU, the first night
# measures with sincosf_ulp instead and keeps its measurement in the night's folder.
#   nightly_premise_cli_test.sh ROPE2D JUNIT_LINT MEASUREMENT.json
rope2d=$1 lint=$2 committed=$3
source "$(dirname "$0")/testlib.sh"
cd "$tmp" || exit 1
echo '{"grad_dtypes": ["fp32"], "sweep": {"to": 1}}' >cfg.json
night() {  # night DATE ARGS...: a small night under out/, its exit code in $rc and output in DATE.log
  local d=$1; shift
  "$rope2d" nightly --config cfg.json --golden none --quick --quiet --out out --date "$d" "$@" >"$d.log" 2>&1; rc=$?
}
section() { sed -n '/^## sincosf premise/,/^## Angle sweep/p' "out/$1/summary.md"; }

# No measurement given: on the CPU the premise is skipped, and says so.
night 2026-04-01
if python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["gpu"] else 1)' out/2026-04-01/summary.json 2>/dev/null; then
  [ -s out/2026-04-01/sincosf_ulp.json ] && section 2026-04-01 | grep -q "Measured tonight by .*sincosf_ulp" &&
    ok "on a GPU the night measures with sincosf_ulp into its folder" || bad "GPU night (exit $rc): $(section 2026-04-01)"
else
  [ $rc = 0 ] && section 2026-04-01 | grep -q "^SKIPPED: .*: sinf / cosf / sincosf not measured\.$" &&
    ! section 2026-04-01 | grep -qi "within the premise\|passed" && ok "no GPU: the premise measurement SKIPPED, never passed" ||
    bad "no GPU (exit $rc): $(section 2026-04-01)"
  grep -q '"premise".*' out/2026-04-01/summary.json && python3 - out/2026-04-01/summary.json <<'PY' && ok "summary.json: premise skipped" || bad "summary.json's premise"
import json, sys
p = json.load(open(sys.argv[1]))["premise"]
sys.exit(0 if p["disposition"] == "skipped" and not p["functions"] else 1)
PY
  "$lint" out/2026-04-01/junit.xml skipped && grep -q 'name="sincosf premise"' out/2026-04-01/junit.xml &&
    ok "junit.xml: the premise a skipped testcase" || bad "junit.xml: $(grep -A2 premise out/2026-04-01/junit.xml)"
fi

# The committed measurement given: within the premise.
night 2026-04-02 --sincosf-measurement "$committed"
[ $rc = 0 ] && [ "$(section 2026-04-02 | grep -c '| within the premise |$')" = 4 ] && ! grep -q "EXCEEDS\|premise exceeded" out/2026-04-02/summary.md &&
  section 2026-04-02 | grep -q "Compared with the measurement given, .*: not measured tonight" &&
  ok "a measurement within the premise passes that check (exit 0)" || bad "within (exit $rc): $(cat 2026-04-02.log)"

# A copy over the premise: cosf 3 floats from the correctly rounded value, sinf 2.75 ulp from the exact value.
python3 - "$committed" over.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["functions"]["cosf"]["max_floats_from_correctly_rounded"] = 3
m["functions"]["sinf"]["max_ulp_from_exact"] = 2.75
json.dump(m, open(sys.argv[2], "w"))
PY
cosf="cosf measured 3 floats from the correctly rounded value, the premise allows k = 2"
sinf="sinf measured 2.75 ulp from the exact value, the premise allows 2.5 (k + 1/2)"
night 2026-04-03 --sincosf-measurement over.json
md=out/2026-04-03/summary.md
[ $rc = 1 ] && grep -q '^\*\*Status: FAILED\*\*' $md && ok "a measurement over the premise fails the night (exit 1)" ||
  bad "over (exit $rc): $(head -12 $md 2>/dev/null)"
grep -qF -- "- sincosf premise exceeded on NVIDIA H100 80GB HBM3: $cosf" $md &&
  grep -qF -- "- sincosf premise exceeded on NVIDIA H100 80GB HBM3: $sinf" $md &&
  ok "the failures name cosf and sinf, measured against the premise" || bad "failures: $(sed -n '/## Failures/,/^Previous/p' $md)"
section 2026-04-03 | grep -q "^| cosf | 3 | .* | EXCEEDS the premise |$" && section 2026-04-03 | grep -q "^| sincosf.cos | 2 | .* | within the premise |$" &&
  ok "the table marks each function" || bad "table: $(section 2026-04-03)"
"$lint" out/2026-04-03/junit.xml failure && grep -qF "<failure message=\"$cosf\"" out/2026-04-03/junit.xml &&
  ok "junit.xml: cosf a <failure> naming the figure and the premise" || bad "junit.xml: $(grep -A2 premise out/2026-04-03/junit.xml)"

# As child shards (--gpus: the option reaches every child; shard 0 compares) and as shards merged.
"$rope2d" nightly --config cfg.json --golden none --quick --quiet --out gpus --date 2026-04-03 --gpus 0,1 \
  --sincosf-measurement over.json >gpus.log 2>&1; rc=$?
[ $rc = 1 ] && grep -qF "sincosf premise exceeded on NVIDIA H100 80GB HBM3: $cosf" gpus/2026-04-03/summary.md &&
  ok "--gpus: the children compare the measurement, the merged night fails" || bad "--gpus (exit $rc): $(tail -5 gpus.log)"
for i in 0 1; do
  "$rope2d" nightly --config cfg.json --golden none --quick --quiet --out shards --date 2026-04-03 --shard $i/2 \
    --sincosf-measurement over.json >shard$i.log 2>&1 || bad "shard $i/2: exit $?"
done
python3 - shards/2026-04-03/shard-0-of-2.json shards/2026-04-03/shard-1-of-2.json <<'PY' && ok "the premise is shard 0's item only" || bad "premise items"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(0 if len(a["premise"]) == 1 and a["premise"][0]["disposition"] == "incorrect" and b["premise"] == [] else 1)
PY
"$rope2d" nightly merge --out shards --date 2026-04-03 >merge.log 2>&1; rc=$?
[ $rc = 1 ] && diff <(grep "sincosf premise" shards/2026-04-03/summary.md) <(grep "sincosf premise" $md) >/dev/null &&
  ok "merged shards: the same premise lines as one process" || bad "merge (exit $rc): $(grep 'sincosf premise' shards/2026-04-03/summary.md)"

# Malformed copies: bad input before anything runs.
refused() {  # refused NAME PATTERN: edit.py's file refused
  local d=2026-04-09
  out=$("$rope2d" nightly --config cfg.json --golden none --quick --quiet --out out --date $d --sincosf-measurement bad.json 2>&1); rc=$?
  [ $rc = 2 ] && grep -qF -- "$2" <<<"$out" && [ ! -e out/$d ] && ok "refused before the night: $1" || bad "$1: exit $rc: $out"
}
edit() {  # edit PYTHON: bad.json from the committed file, m the measurement
  python3 -c "import json, sys; m = json.load(open(sys.argv[1])); $1; json.dump(m, open('bad.json', 'w'))" "$committed"
}
edit 'm["functions"]["cosf"]["max_floats_from_correctly_rounded"] = "2"'
refused "a figure of the wrong type" "bad.json: functions.cosf.max_floats_from_correctly_rounded: expected an integer in [0, 4294967296], found the string \"2\""
edit 'del m["functions"]["sinf"]'
refused "a function missing" "bad.json: functions.sinf: expected an object, found nothing"
edit 'm["schema"] = "rope2d.sincosf_ulp/0"'
refused "another schema" "bad.json: schema: expected \"rope2d.sincosf_ulp/1\", found the string \"rope2d.sincosf_ulp/0\""
edit 'm["functions"]["sinf"]["max_ulp_from_exact"] = -1'
refused "a negative error" "bad.json: functions.sinf.max_ulp_from_exact: expected a number in [0"
edit 'm["functions"]["cosf"]["at_x"] = "nan"'
refused "an argument that is not a float32" "bad.json: functions.cosf.at_x: expected a finite float32 as a C99 hex float"
edit 'm["gpus"] = 8'
refused "an unknown field" "bad.json: gpus: expected only"
echo '{"schema": "rope2d.sincosf_ulp/1",' >bad.json
refused "a file that is not JSON" "bad.json"
rm bad.json
refused "a missing file" "bad.json: cannot open"
finish "nightly premise cli"
