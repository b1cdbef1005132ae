#!/usr/bin/env bash
# The schemas of verify/schema/ against the files the project writes: a report.json (rope2d
# check), a golden set's manifest and definition.json (rope2d golden), a nightly config, a
# shard and a summary (rope2d nightly --shard, merge), a layout (rope2d layout --emit), a golden
# problem's safetensors header, the torch peers' rows (rope2d.bench_torch), the committed sincosf
# measurement and a sample solution each pass `rope2d schema`; each mutated (wrong type, missing field, out of
# range) is refused with exit 2 naming file, field, expected and found, by `rope2d schema` and by
# the command that reads it. Where python3's jsonschema is installed, the schemas are valid
# draft-07 and it agrees on every file (so users may validate with either).
#   schema_cli_test.sh ROPE2D SOURCE_DIR
rope2d=$1
src=$2
source "$(dirname "$0")/testlib.sh"
cd "$tmp" || exit 1

# --- the files the project writes ---------------------------------------------------------
"$rope2d" check --golden "$src/data/golden-smoke" --quiet --out ck >ck.log 2>&1 || bad "rope2d check: $(tail -3 ck.log)"
"$rope2d" golden --suite smoke --grad-dtypes bf16 --out golden >golden.log 2>&1 || bad "rope2d golden: $(tail -3 golden.log)"
echo '{"submissions": [], "grad_dtypes": ["bf16"], "sweep": {"from": 0, "to": 1, "budget_s": 60}}' >cfg.json
d=2026-03-01
"$rope2d" nightly --config cfg.json --golden "$src/data/golden-smoke" --quick --quiet --out night --date $d --shard 0/1 \
  >shard.log 2>&1 || bad "nightly --shard 0/1: $(tail -3 shard.log)"
"$rope2d" nightly merge --out night --date $d >merge.log 2>&1 || bad "nightly merge: $(tail -3 merge.log)"
"$rope2d" layout --seed 3 --batch 2 --seq-len 300 --emit >layout.json 2>layout.log || bad "rope2d layout --emit: $(tail -3 layout.log)"
problem=$(ls golden/*.safetensors | head -1)
# The torch peers' rows as python/rope2d/bench_torch.py makes them (its timing needs a GPU and
# PyTorch: the times are made up here, the rows are its own).
python3 - "$src/python" >torch.json <<'PY' || bad "bench_torch.workload_row: $(cat torch.json)"
import json, sys, types
sys.modules.setdefault("torch", types.ModuleType("torch"))
sys.path.insert(0, sys.argv[1])
from rope2d import bench_torch
events = {"eager": [0.021, 0.02], "compile": [0.012, 0.013], "rope2d": [0.01, 0.0101]}
rows = [bench_torch.workload_row("2x773", list(events), events, events, "CUPTI through torch.profiler"),
        bench_torch.workload_row("1x1801", list(events), events, None, "unavailable: no trace")]
json.dump({"device": "NVIDIA H100", "torch": "2.5.1", "workloads": rows}, sys.stdout, allow_nan=False)
PY
files=(report:ck/report.json golden-manifest:golden/manifest.json definition:golden/solexecbench/definition.json
       nightly-config:cfg.json nightly-shard:night/$d/shard-0-of-1.json nightly-summary:night/$d/summary.json
       sincosf-ulp:$src/reports/premise/sincosf_ulp.json solution:$src/verify/tests/python_solutions/eager/solution.json
       layout:layout.json safetensors-header:$problem bench-torch:torch.json)
for entry in "${files[@]}"; do
  format=${entry%%:*} file=${entry#*:}
  out=$("$rope2d" schema "$format" "$file" 2>&1) && ok "$format: $file passes" || bad "$format: $file: $out"
done
[ "$("$rope2d" schema --list | wc -l)" -eq "${#files[@]}" ] && ok "every format written here is listed" ||
  bad "rope2d schema --list: $("$rope2d" schema --list)"

# --- mutated: refused, exit 2, naming file, field, expected and found --------------------------
# mutate FILE POINTER VALUE: a copy in m.json with the field at POINTER set to VALUE (JSON), or
# removed for the value "delete".
mutate() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
keys = [int(k) if k.isdigit() else k for k in sys.argv[2].strip("/").split("/")]
node = doc
for k in keys[:-1]:
    node = node[k]
if sys.argv[3] == "delete":
    del node[keys[-1]]
else:
    node[keys[-1]] = json.loads(sys.argv[3])
json.dump(doc, open("m.json", "w"))
PY
}
refused() {  # refused FORMAT FILE POINTER VALUE PATTERN [COMMAND...]: rope2d schema and COMMAND both exit 2 saying PATTERN
  local format=$1 file=$2 ptr=$3 value=$4 pattern=$5
  shift 5
  rm -f m.json
  mutate "$file" "$ptr" "$value" || { bad "$format: cannot set $ptr in $file"; return; }
  out=$("$rope2d" schema "$format" m.json 2>&1); rc=$?
  [ $rc -eq 2 ] && grep -qF -- "m.json: $pattern" <<<"$out" && ok "$format $ptr=$value refused" ||
    bad "$format $ptr=$value: exit $rc, wanted 2 and 'm.json: $pattern': $out"
  [ $# -eq 0 ] && return
  out=$("$@" 2>&1); rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$pattern" <<<"$out" && ok "$1 $2 refuses $format $ptr=$value" ||
    bad "$* on $format $ptr=$value: exit $rc, wanted 2 and '$pattern': $out"
}
report=ck/report.json
refused report $report /results/0/elements '"1000"' 'results[0].elements: expected a count >= 0, found the string "1000"'
refused report $report /title delete 'title: expected a string, found nothing'
refused report $report /results/0/histogram '[1, 2]' 'results[0].histogram: expected an array of 20, found an array of 2'
worst='{"index": 0, "grad_cos": "0x1p+0", "grad_sin": "0x1p+0", "idx_theta": "0x1p+0", "ref": 1.5, "got": "0x1p+0", "scaled_error": 0, "ulps": 0}'
refused report $report /results/0/worst "$worst" 'results[0].worst.ref: expected a hex float (C99 %a, as 0x1.8p-1), found the number 1.5'
mkdir -p bad && mutate $report /verdict '"PASSED"' && cp m.json bad/report.json
out=$("$rope2d" report bad 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF 'bad/report.json: verdict: expected one of passed, incorrect, failed, not supported, skipped, found the string "PASSED"' <<<"$out" &&
  ok "rope2d report refuses a verdict of no name" || bad "rope2d report on a bad verdict: exit $rc: $out"
refused golden-manifest golden/manifest.json /files/0/sha256 '"XYZ"' 'files[0].sha256: expected 64 lowercase hex digits, found the string "XYZ"'
refused golden-manifest golden/manifest.json /files/0/elements 0 'files[0].elements: expected an integer in [1, 1099511627776], found the number 0'
refused golden-manifest golden/manifest.json /schema '"rope2d.golden/2"' 'schema: expected "rope2d.golden/1", found the string "rope2d.golden/2"'
refused definition golden/solexecbench/definition.json /name 5 'name: expected a non-empty string of at most 4096 characters, found the number 5'
refused nightly-config cfg.json /sweep/budget_s -1 'sweep.budget_s: expected a number in [0.001, 86400], found the number -1'
refused nightly-config cfg.json /grad_dtypes '["bf16", "int8"]' 'grad_dtypes[1]: expected "bf16" or "fp16" or "fp32", found the string "int8"'
refused nightly-config cfg.json /seed 1 'seed: expected only submissions, grad_dtypes and sweep, found this field' \
  "$rope2d" nightly --config m.json --quick --quiet --out cfgrun --date $d
shard=night/$d/shard-0-of-1.json
mkdir -p merge1/$d
refused nightly-shard $shard /shard/count 0 'shard.count: expected an integer in [1, 4096], found the number 0'
refused nightly-shard $shard /golden/results/0/max '"big"' 'golden.results[0].max: expected a number or null, found the string "big"'
cp m.json merge1/$d/shard-0-of-1.json
out=$("$rope2d" nightly merge --out merge1 --date $d 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF 'shard-0-of-1.json: golden.results[0].max: expected a number or null' <<<"$out" &&
  ok "nightly merge refuses the mutated shard" || bad "nightly merge on a mutated shard: exit $rc: $out"
refused nightly-summary night/$d/summary.json /shards 5000 'shards: expected an integer in [1, 4096], found the number 5000'
refused nightly-summary night/$d/summary.json /sweep/worst 3 'sweep.worst: expected an object or null, found the number 3'
refused sincosf-ulp "$src/reports/premise/sincosf_ulp.json" /functions/cosf delete 'functions.cosf: expected an object, found nothing'
refused layout layout.json /rope/head_dim 6 'rope.head_dim: expected a positive multiple of 4, at most 65536, found the number 6' \
  "$rope2d" layout m.json
refused bench-torch torch.json /workloads/1/paired_events/wins '"40"' 'workloads[1].paired_events.wins: expected an integer in [0, 1000000000], found the string "40"'
refused bench-torch torch.json /workloads/0/eager delete 'workloads[0].eager: expected an object of event_ms and kernel_ms, found nothing'
# A safetensors header, inside its file: rope2d schema and rope2d check --outputs refuse it alike.
# retitle FILE EDIT: a copy in m.safetensors whose header is EDIT (python, on `h`) of FILE's.
retitle() {
  python3 - "$1" "$2" <<'PY'
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
h = json.loads(raw[8:8 + n])
exec(sys.argv[2])
text = json.dumps(h).encode()
open("m.safetensors", "wb").write(struct.pack("<Q", len(text)) + text + raw[8 + n:])
PY
}
retitle "$problem" 'h[next(k for k in h if k != "__metadata__")]["dtype"] = "Q7"'
out=$("$rope2d" schema safetensors-header m.safetensors 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF 'm.safetensors: header: ' <<<"$out" && grep -qF '.dtype: expected a safetensors dtype (BF16, F16, F32, F64, I32, ...), found the string "Q7"' <<<"$out" &&
  ok "safetensors-header: a dtype of no name refused" || bad "safetensors-header dtype Q7: exit $rc: $out"
retitle "$problem" 'h["__metadata__"]["seed"] = 7'
out=$("$rope2d" check --golden golden --outputs m.safetensors --quiet 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF 'm.safetensors: header: __metadata__.seed: expected a string, found the number 7' <<<"$out" &&
  ok "rope2d check refuses a header of the wrong types" || bad "rope2d check on a mutated header: exit $rc: $out"

out=$("$rope2d" schema nonsense cfg.json 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "expected a format (report, " <<<"$out" && ok "an unknown format refused" || bad "unknown format: exit $rc: $out"

# --- python3's jsonschema, where installed (Debian: python3-jsonschema) -------------------------
if python3 -c "import jsonschema" 2>/dev/null; then
  args=()
  for entry in "${files[@]}"; do args+=("${entry%%:*}" "$(realpath "${entry#*:}")"); done
  python3 - "$src/verify/schema" "${args[@]}" <<'PY' && ok "jsonschema: every schema is draft-07 and passes every file" || bad "jsonschema"
import json, sys, jsonschema
folder, pairs = sys.argv[1], sys.argv[2:]
bad = 0
for fmt, path in zip(pairs[::2], pairs[1::2]):
    schema = json.load(open(f"{folder}/{fmt}.schema.json"))
    jsonschema.Draft7Validator.check_schema(schema)
    if fmt == "safetensors-header":  # the JSON after the file's 8-byte length
        raw = open(path, "rb").read()
        doc = json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])
    else:
        doc = json.load(open(path))
    if fmt == "solution":  # sources filled from beside the file first, as rope2d does
        for s in doc["sources"]:
            if not s.get("content"):
                s["content"] = open(path.rsplit("/", 1)[0] + "/" + s["path"]).read()
    for e in jsonschema.Draft7Validator(schema).iter_errors(doc):
        print(f"{path}: {list(e.absolute_path)}: {e.message}"); bad += 1
sys.exit(1 if bad else 0)
PY
else
  echo "skip jsonschema cross-check (python3 has no jsonschema)"
fi

finish schema_cli_test
