#!/usr/bin/env bash
# Outputs are written only as regular files: --trace, --out, a file inside --out, bench --json,
# layout --svg and report --site's index.html, given a
# symbolic link (to a file that must stay untouched), a FIFO (nothing may hang) or /dev/null,
# are refused with exit 2, the message naming the option, the path and what is there, and the
# target unchanged. An existing regular file is still replaced (the control).
#   untrusted_outputs_test.sh ROPE2D SOURCE_DIR
rope2d=$(realpath "$1") src=$(realpath "$2")
source "$(dirname "$0")/testlib.sh"
cd "$tmp" || exit 1
golden=$src/data/golden-smoke
run() {  # run EXPECTED_RC NAME COMMAND...: 60 s at most (a hang fails); output in $out, exit in $rc
  local want=$1 name=$2; shift 2
  out=$(timeout -k 5 60 "$@" 2>&1); rc=$?
  if [ "$rc" = "$want" ]; then ok "$name: exit $rc"; else bad "$name: exit $rc, expected $want"; echo "$out" | tail -4; fi
}
says() {  # says NAME TEXT: the last run's output holds TEXT (fixed string)
  if grep -qF -- "$2" <<<"$out"; then ok "$1 says '$2'"; else bad "$1: output lacks '$2'"; echo "$out" | tail -4; fi
}
echo "keep me" >victim
victim_sum=$(sha256sum <victim)
untouched() {  # untouched NAME: the link's target, the FIFO and /dev/null as they were
  [ "$(sha256sum <victim)" = "$victim_sum" ] && [ -c /dev/null ] && ok "$1: targets untouched" ||
    bad "$1: a target changed ($(ls -la victim /dev/null | tr '\n' ' '))"
}
# place KIND PATH: a symbolic link to victim, a FIFO, or the device itself at PATH. Inside a
# folder the device is a fresh /dev/null node (mknod, as root) or else a link to /dev/null.
place() {
  rm -rf "$2"
  case $1 in
    link) ln -s "$tmp/victim" "$2" ;;
    fifo) mkfifo "$2" ;;
    devnull) mknod "$2" c 1 3 2>/dev/null || ln -s /dev/null "$2" ;;
  esac
}
found() {  # found KIND PATH: what the message must say is at PATH
  case $1 in
    link) echo "a symbolic link" ;;
    fifo) echo "a FIFO" ;;
    devnull) [ -L "$2" ] && echo "a symbolic link" || echo "a character device" ;;
  esac
}

# A case of /dev/null itself is tried only after the link and the FIFO were refused, with the
# message, by the same command: a writer that replaced /dev/null (as root) would break the machine.
declare -A not_refused=()
try() {  # try KIND NAME WHAT TARGET EXPECTED COMMAND...: exit 2, the message, nothing changed
  local kind=$1 name=$2 what=$3 target=$4 expected=$5 message; shift 5
  if [ "$target" = /dev/null ] && [ -n "${not_refused[$name]:-}" ]; then
    bad "$name $kind: not tried (the link or FIFO case was not refused)"
    return
  fi
  message="$what: expected $expected or nothing, found $(found "$kind" "$target")"
  run 2 "$name $kind" "$@"
  says "$name $kind" "$message"
  { [ "$rc" = 2 ] && grep -qF -- "$message" <<<"$out"; } || not_refused[$name]=1
  untouched "$name $kind"
  case $kind in  # the thing at the target itself, not replaced
    link) [ -L "$target" ] ;;
    fifo) [ -p "$target" ] ;;
    devnull) [ -c "$target" ] || [ -L "$target" ] ;;
  esac && ok "$name $kind: $target still $(found "$kind" "$target")" || bad "$name $kind: $target replaced ($(ls -la "$target"))"
}
# A report to draw again (rope2d report) and the report folder whose files are replaced below.
"$rope2d" check --golden "$golden" --out good >/dev/null 2>&1 && [ -s good/report.json ] || bad "the report to draw again: none"

# --- --trace FILE ------------------------------------------------------------------------------
for cmd in check verify; do
  for kind in link fifo devnull; do
    t=trace-$kind
    [ $kind = devnull ] && t=/dev/null || place $kind $t
    case $cmd in
      check) try $kind "check --trace" "--trace $t" $t "a regular file" "$rope2d" check --golden "$golden" --trace $t ;;
      verify) try $kind "verify --trace" "--trace $t" $t "a regular file" "$rope2d" verify --quick --quiet --out v --trace $t ;;
    esac
  done
done
[ ! -e v ] && ok "verify --trace refused before anything ran: no report folder" || bad "verify --trace: v/ was made"

# --- the other files named by an option: bench --json, layout --svg, report --site's index.html --
# (bench, in a build with CUDA, refuses its --json before it looks for a GPU; the site is written
# into a nightly root.)
mkdir -p site
have_bench=1
"$rope2d" bench --help >/dev/null 2>&1 || { have_bench=0; echo "SKIPPED bench --json: this build has no bench (no CUDA)"; }
for kind in link fifo devnull; do
  t=json-$kind; [ $kind = devnull ] && t=/dev/null || place $kind $t
  [ $have_bench = 1 ] && try $kind "bench --json" "--json $t" $t "a regular file" "$rope2d" bench --json $t
  t=layout-$kind.svg; [ $kind = devnull ] && t=/dev/null || place $kind $t
  try $kind "layout --svg" "--svg $t" $t "a regular file" "$rope2d" layout --svg $t
  place $kind site/index.html
  try $kind "report --site" "site/index.html" site/index.html "a regular file" "$rope2d" report --site site
  if grep -q "^wrote" <<<"$out"; then bad "report --site $kind: says it wrote"; else ok "report --site $kind: says nothing was written"; fi
done

# --- --out DIR -----------------------------------------------------------------------------------
outs=(
  "check|$rope2d check --golden $golden --out"
  "verify|$rope2d verify --quick --quiet --out"
  "golden|$rope2d golden --suite smoke --quiet --out"
  "sweep|$rope2d sweep --quick --quiet --out"
  "nightly|$rope2d nightly --quick --quiet --date 2026-01-05 --shard 0/1 --out"
)
for entry in "${outs[@]}"; do
  name=${entry%%|*} cmd=${entry#*|}
  for kind in link fifo devnull; do
    t=out-$kind
    [ $kind = devnull ] && t=/dev/null || place $kind $t
    # shellcheck disable=SC2086
    try $kind "$name --out" "--out $t" $t "a directory" $cmd $t
  done
done
# A link to a folder: refused too, and nothing lands in the folder it names.
mkdir -p real && ln -s real dirlink
run 2 "check --out a link to a folder" "$rope2d" check --golden "$golden" --out dirlink
says "check --out a link to a folder" "--out dirlink: expected a directory or nothing, found a symbolic link"
run 2 "report --out a link to a folder" "$rope2d" report good --out dirlink/
says "report --out a link to a folder" "--out dirlink/: expected a directory or nothing, found a symbolic link"
[ -L dirlink ] && [ -z "$(ls -A real)" ] && ok "the folder a link names stays empty" || bad "dirlink: $(ls -la dirlink real)"

# --- a file inside --out -------------------------------------------------------------------------
cp -r good rep
for kind in link fifo devnull; do
  place $kind rep/report.md
  try $kind "check --out, report.md" "--out rep: rep/report.md" rep/report.md "a regular file" \
    "$rope2d" check --golden "$golden" --out rep
  try $kind "verify --out, report.md" "--out rep: rep/report.md" rep/report.md "a regular file" \
    "$rope2d" verify --quick --quiet --out rep
  try $kind "report --out, report.md" "--out rep: rep/report.md" rep/report.md "a regular file" \
    "$rope2d" report good --out rep --file report.md
  [ "$(cat rep/report.json)" = "$(cat good/report.json)" ] && ok "report.md $kind: the other files not rewritten" ||
    bad "report.md $kind: report.json changed"
  place $kind rep/trace.jsonl
  rm -f rep/report.md
  try $kind "check --out, trace.jsonl" "--out rep: rep/trace.jsonl" rep/trace.jsonl "a regular file" \
    "$rope2d" check --golden "$golden" --out rep
  [ ! -e rep/report.md ] && ok "trace.jsonl $kind: no report.md written before the refusal" || bad "trace.jsonl $kind: report.md written"
  rm -f rep/trace.jsonl
  mkdir -p sw && place $kind sw/sweep_worst.txt
  try $kind "sweep --out, sweep_worst.txt" "--out sw: sw/sweep_worst.txt" sw/sweep_worst.txt "a regular file" \
    "$rope2d" sweep --quick --quiet --out sw
  [ ! -e sw/sweep.json ] && ok "sweep_worst.txt $kind: no sweep.json written" || bad "sweep_worst.txt $kind: sweep.json written"
done

# --- the folders verify fills in --out (build/, solution/) ---------------------------------------
# A link inside them would take the built submission.so or a solution's source out of --out:
# anything but regular files and folders there is refused before anything runs.
echo "// a kernel" >k.cu
for kind in link fifo devnull; do
  for inside in build/submission.so solution/kernel.py solution/deep/er/x.py; do
    rm -rf fill && mkdir -p "fill/$(dirname "$inside")" && place $kind "fill/$inside"
    run 2 "verify --out, $inside $kind" "$rope2d" verify k.cu --quick --quiet --out fill
    says "verify --out, $inside $kind" "--out fill/$inside: expected a regular file or a directory, found $(found $kind "fill/$inside")"
    untouched "verify --out, $inside $kind"
  done
done
mkdir -p realdir && rm -rf fill && mkdir fill && ln -s "$tmp/realdir" fill/build
run 2 "verify --out, build a link to a folder" "$rope2d" verify k.cu --quick --quiet --out fill
says "verify --out, build a link to a folder" "--out fill/build: expected a directory or nothing, found a symbolic link"
[ -z "$(ls -A realdir)" ] && ok "the folder fill/build names stays empty" || bad "realdir: $(ls -la realdir)"

# The default report folder (reports/verify/<name>) lies in the current folder, a checkout's,
# say: a link on the way to it (reports, reports/verify) is refused, nothing lands where it points.
mkdir -p checkout elsewhere && ln -s "$tmp/elsewhere" checkout/reports && cp k.cu checkout/
run 2 "verify, the default report folder through a link" bash -c "cd checkout && '$rope2d' verify k.cu --quick --quiet"
says "verify, the default report folder through a link" "the default report folder (--out names another) reports: expected a directory or nothing, found a symbolic link"
[ -z "$(ls -A elsewhere)" ] && ok "nothing written where checkout/reports points" || bad "elsewhere: $(ls -la elsewhere)"

# A submission named "...cu": its stem ".." would make the default folder reports/verify/..,
# that is reports/; the default folder is reports/verify/submission(-no-gpu) instead.
mkdir -p dots && cp k.cu dots/...cu
(cd dots && timeout 300 "$rope2d" verify ...cu --quick --quiet >/dev/null 2>&1)
[ ! -e dots/reports/report.md ] && ls -d dots/reports/verify/submission* >/dev/null 2>&1 &&
  ok "verify ...cu: its report in reports/verify/submission*" || bad "verify ...cu: $(find dots/reports -maxdepth 3 | tr '\n' ' ')"

# --- the control: regular files and nothing are written ---------------------------------------
echo old >trace.jsonl && echo old >rep/report.md
run 0 "check over regular files" "$rope2d" check --golden "$golden" --out rep --trace trace.jsonl
grep -q '^{"definition":' trace.jsonl && grep -q '^# rope2d check' rep/report.md && ok "regular files replaced" ||
  bad "regular files: $(head -c 80 trace.jsonl) / $(head -c 80 rep/report.md)"
untouched "the control"
finish untrusted_outputs
