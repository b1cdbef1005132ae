#!/usr/bin/env bash
# rope2d report (drawing a report folder again from its report.json) and layout --svg: exit
# codes, messages naming the field, and well-formed output. Args: the rope2d binary, the
# repository root.
set -uo pipefail
rope2d=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() {  # expect CODE PATTERN CMD...: exit code and a pattern in stdout+stderr
  local code=$1 pattern=$2
  shift 2
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: $* -> exit $rc (want $code, /$pattern/): $out" | head -c 600
    echo
    fails=$((fails + 1))
  fi
}
well_formed() {
  python3 -c 'import sys, xml.etree.ElementTree as E; [E.parse(f) for f in sys.argv[1:]]' "$@" || {
    echo "FAIL: not well-formed XML: $*"
    fails=$((fails + 1))
  }
}

# A fresh report (check of the committed golden set) draws the same files again.
"$rope2d" check --golden "$root/data/golden-smoke" --quiet --out "$tmp/ck" >/dev/null || { echo "FAIL: check"; fails=$((fails + 1)); }
expect 0 "wrote $tmp/again/error_by_angle.svg" "$rope2d" report "$tmp/ck" --out "$tmp/again"
for f in report.md junit.xml error_histogram.svg error_by_angle.svg; do
  cmp -s "$tmp/ck/$f" "$tmp/again/$f" || { echo "FAIL: $f drawn differently from report.json"; fails=$((fails + 1)); }
done
well_formed "$tmp/again/junit.xml" "$tmp/again/error_histogram.svg" "$tmp/again/error_by_angle.svg"

# A committed report from before the histograms were recorded: no plots, said so.
cp -r "$root/reports/verify/rope2d" "$tmp/old"
expect 0 "not drawn: error_histogram.svg .*predates" "$rope2d" report "$tmp/old" --file error_histogram.svg --file junit.xml

# Bad input exits 2 naming the file and the field.
python3 - "$tmp/ck/report.json" "$tmp/bad.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["results"][2]["max_scaled_error"] = [1]
json.dump(j, open(sys.argv[2], "w"))
PY
mkdir -p "$tmp/bad" && mv "$tmp/bad.json" "$tmp/bad/report.json"
expect 2 "bad/report.json: results\[2\]\.max_scaled_error: expected a number >= 0 or \"inf\" \\(an error, a time\\), found an array" "$rope2d" report "$tmp/bad"
expect 2 "nothing/report.json: cannot open" "$rope2d" report "$tmp/nothing"
expect 2 "--file: expected the name" "$rope2d" report "$tmp/ck" --file report.json
printf '{"title": 1' >"$tmp/bad/report.json"
expect 2 "bad/report.json: not valid JSON" "$rope2d" report "$tmp/bad"

# layout --svg draws a layout; an unwritable target exits 2.
expect 0 '"sequences"' "$rope2d" layout --seed 3 --batch 2 --seq-len 3000 --svg "$tmp/layout.svg"
well_formed "$tmp/layout.svg"
grep -q '<title>image [0-9]*x[0-9]*: tokens \[' "$tmp/layout.svg" || { echo "FAIL: no image block in the layout drawing"; fails=$((fails + 1)); }
expect 2 "--svg: .*layout.svg: cannot create a file beside it" "$rope2d" layout --seed 3 --svg "$tmp/no/such/dir/layout.svg"

[ "$fails" -eq 0 ] && echo "report_cli_test: all passed"
exit $((fails > 0))
