#!/usr/bin/env bash
# same_judgement.py: a report equals itself; a changed over count, a missing set, an RMS or a
# max error past its last bits are each found (exit 1); a file that is not a report exits 2.
#   same_judgement_test.sh SCRIPT REPORT_JSON
set -u
script=$1 report=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
check() {  # expected-exit description command...
  local want=$1 what=$2; shift 2
  "$@" >"$tmp/out" 2>&1; local rc=$?
  if [ "$rc" = "$want" ]; then echo "ok   $what"; else echo "FAIL $what (exit $rc, wanted $want)"; cat "$tmp/out"; fails=$((fails + 1)); fi
}
check 0 "a report equals itself" python3 "$script" "$report" "$report"
python3 - "$report" "$tmp" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def write(name, f):
    s = json.loads(json.dumps(r)); f(s["results"]); json.dump(s, open(f"{sys.argv[2]}/{name}.json", "w"))
write("over", lambda res: res[0]["tiers"]["float32-bound"].__setitem__("over", res[0]["tiers"]["float32-bound"]["over"] + 1))
write("missing", lambda res: res.pop())
write("rms", lambda res: res[1].__setitem__("rms_scaled_error", res[1]["rms_scaled_error"] * (1 + 1e-9)))
write("rms_last_bit", lambda res: res[1].__setitem__("rms_scaled_error", res[1]["rms_scaled_error"] * (1 + 1e-15)))
write("max", lambda res: res[1].__setitem__("max_scaled_error", res[1]["max_scaled_error"] * (1 + 1e-9) + 1e-9))
write("max_last_bit", lambda res: res[1].__setitem__("max_scaled_error", res[1]["max_scaled_error"] * (1 + 1e-15)))
PY
check 1 "a changed over count is found" python3 "$script" "$report" "$tmp/over.json"
check 1 "a missing set is found" python3 "$script" "$report" "$tmp/missing.json"
check 1 "an RMS off by 1e-9 is found" python3 "$script" "$report" "$tmp/rms.json"
check 0 "an RMS off in its last bits is not" python3 "$script" "$report" "$tmp/rms_last_bit.json"
check 1 "a max error off by 1e-9 is found" python3 "$script" "$report" "$tmp/max.json"
check 0 "a max error off in its last bits is not (CUDA's and glibc's double sincos)" python3 "$script" "$report" "$tmp/max_last_bit.json"
echo '{}' >"$tmp/bad.json"
check 2 "not a report" python3 "$script" "$report" "$tmp/bad.json"
exit $((fails > 0))
