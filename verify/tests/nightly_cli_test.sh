#!/usr/bin/env bash
# rope2d nightly's inputs: --date must be a date (the run's folder stays inside --root), and a
# config's submission paths reach the verifier as they are, never through a shell.
# Its junit.xml is valid JUnit XML, and a failed submission is a testcase with a <failure> or <error>.
#   nightly_cli_test.sh ROPE2D JUNIT_LINT
rope2d=$1
lint=$2
source "$(dirname "$0")/testlib.sh"
mkdir -p "$tmp/work/root"
cd "$tmp/work" || exit 1
out=$("$rope2d" nightly --root root --date ../../escaped --quick --quiet 2>&1); rc=$?
[ $rc = 2 ] && ok "--date ../../escaped exits 2" || bad "--date ../../escaped: exit $rc"
grep -q -- "--date: expected YYYY-MM-DD, found '../../escaped'" <<<"$out" && ok "message names the option" || bad "message: $out"
[ ! -e "$tmp/escaped" ] && [ -z "$(ls root)" ] && ok "nothing written outside --root" || bad "a folder was created"
# A --golden that names no golden set is bad input, not a skipped check (a typo would pass a night).
for g in "$tmp/work/no-such-set" ""; do
  out=$("$rope2d" nightly --golden "$g" --root root --date 2026-01-01 --quick --quiet 2>&1); rc=$?
  [ $rc = 2 ] && grep -q -- "--golden: expected a golden set" <<<"$out" && [ -z "$(ls root)" ] &&
    ok "--golden '$g' exits 2 naming the option, before anything runs" || bad "--golden '$g': exit $rc: $(head -c 300 <<<"$out")"
done
# A config naming a file that does not exist is bad input, before anything runs.
echo '{"submissions": ["missing.cu"]}' >missing.json
out=$("$rope2d" nightly --config missing.json --root root --date 2026-01-01 --quick --quiet 2>&1); rc=$?
[ $rc = 2 ] && grep -q "submissions\[0\]" <<<"$out" && ok "a missing submission exits 2 naming the field" || bad "missing submission: exit $rc: $out"
# Paths with shell syntax in them are files like any other: they reach verify verbatim.
for f in "x'; touch PWNED; echo '.cu" '$(touch PWNED2).cu'; do echo "not CUDA" >"$f"; done
cat >cfg.json <<'JSON'
{"submissions": ["x'; touch PWNED; echo '.cu", "$(touch PWNED2).cu"], "grad_dtypes": ["bf16"], "sweep": {"to": 1}}
JSON
"$rope2d" nightly --config cfg.json --root root --date 2026-01-02 --quick --quiet >nightly.log 2>&1; rc=$?
[ $rc = 1 ] && ok "nightly with broken submissions exits 1" || { bad "nightly exit $rc"; tail -5 nightly.log; }
[ ! -e PWNED ] && [ ! -e PWNED2 ] && [ ! -e root/2026-01-02/PWNED ] && ok "no shell ran the config's paths" || bad "an injected command ran"
log="root/2026-01-02/verify-x'; touch PWNED; echo '-bf16.log"
grep -qF "x'; touch PWNED; echo '.cu" "$log" 2>/dev/null && ok "the path reached verify verbatim" ||
  { bad "verify log lacks the verbatim path"; ls root/2026-01-02; }
grep -q "verify exited [23]" root/2026-01-02/summary.md && ok "summary names the failed verify" || bad "summary: $(head -12 root/2026-01-02/summary.md)"
# The summary links only files that exist (a verify that wrote no report links its log).
links=$(grep -o '](<[^>]*>)' root/2026-01-02/summary.md | sed 's/^](<//; s/>)$//')
missing=0
while IFS= read -r l; do [ -z "$l" ] || [ -e "root/2026-01-02/$l" ] || { missing=1; echo "  missing: $l"; }; done <<<"$links"
[ -n "$links" ] && [ $missing = 0 ] && ok "every link of summary.md names a file that exists" ||
  bad "summary.md links: '$links'; $(grep report root/2026-01-02/summary.md | head -3)"
grep -q 'verify-.*/report.md' root/2026-01-02/summary.md && [ ! -e "$(ls -d root/2026-01-02/verify-*/ 2>/dev/null | head -1)report.md" ] &&
  bad "summary names a report.md that was never written" || ok "no report.md named where none was written"
junit=root/2026-01-02/junit.xml
"$lint" "$junit" && ok "junit.xml parses as JUnit XML" || bad "junit.xml: $(head -c 400 "$junit")"
"$lint" "$junit" "failure|error" && ok "a broken submission is a testcase with <failure> or <error>" ||
  bad "no failure in junit.xml: $(cat "$junit")"
grep -qF "x'; touch PWNED; echo '" "$junit" && ok "the submission's name is in junit.xml" || bad "junit.xml lacks the name"
# No deprecated tier name reaches the verifier children.
ls root/2026-01-02/verify-*.log >/dev/null 2>&1 && ! grep -q "warning: tier" root/2026-01-02/*.log && ok "no child warned about a deprecated tier" ||
  bad "a child warned about a deprecated tier"
# An earlier night's summary.json that is a link looping on itself is set aside with a warning,
# never a failure of this night, of its dashboard or of `report --site`.
mkdir -p loop/2025-12-31 && ln -s summary.json loop/2025-12-31/summary.json
"$rope2d" nightly --out loop --date 2026-01-01 --quick --quiet >loop.log 2>&1; rc=$?
[ $rc = 0 ] && grep -q "an earlier summary set aside.*Too many levels of symbolic links" loop/2026-01-01/summary.md &&
  ok "a looping earlier summary is set aside with a warning" || bad "looping earlier summary: exit $rc: $(tail -n 2 loop.log)"
"$rope2d" report --site loop >site.log 2>&1 && [ -s loop/index.html ] && ok "report --site passes over it" ||
  bad "report --site: $(tail -n 2 site.log)"
# A link where a verify report goes is bad input named before any verify runs (exit 2), not a
# verify child's refusal reported as this project's kernel failing (exit 1); nothing is written
# through it.
mkdir -p inway/2026-01-01/verify-rope2d-bf16 victim && echo keep >victim/keep
ln -s "$PWD/victim/keep" inway/2026-01-01/verify-rope2d-bf16/report.md
out=$("$rope2d" nightly --out inway --date 2026-01-01 --quick --quiet 2>&1); rc=$?
[ $rc = 2 ] && grep -q "verify-rope2d-bf16/report.md: expected a regular file or nothing, found a symbolic link" <<<"$out" &&
  [ "$(cat victim/keep)" = keep ] && [ ! -e inway/2026-01-01/summary.md ] &&
  ok "a link in a verify report folder exits 2 naming it" || bad "link in a verify folder: exit $rc: $(head -c 300 <<<"$out")"
finish "nightly cli"
