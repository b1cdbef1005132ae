#!/usr/bin/env bash
# The attack corpus (verify/tests/attacks/): each submission attacks the verifier from inside
# its box; each must get its expected exit and reason, leave nothing outside --out (no mark in
# /var/tmp/rope2d-attack, no secret read, no network reached), leave no process running, and
# never crash the verifier. Without a GPU the load-time attacks run (built and loaded in the
# box); with one, the call-time attacks too. Needs nvcc (exit 77, SKIPPED, without it).
#   attack_test.sh ROPE2D ATTACKS_DIR [WORK_DIR]
set -u
rope2d=$(realpath "$1") attacks=$(realpath "$2") work=${3:-$(mktemp -d)}  # absolute: an attack may run from another folder
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "SKIPPED: no nvcc"; exit 77; }
command -v bwrap >/dev/null || { echo "SKIPPED: no bubblewrap (bwrap)"; exit 77; }
mkdir -p "$work" && work=$(cd "$work" && pwd -P)  # as /proc/PID/cwd names it (left_from)
marks=/var/tmp/rope2d-attack secret=/var/tmp/rope2d-attack-secret.txt
rm -rf "$marks" && mkdir -p "$marks" && chmod 1777 "$marks"
echo "the secret" >"$secret" && chmod 600 "$secret"
# A listener on the machine's loopback that the network attack tries to reach.
python3 -c 'import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 47811)); s.listen(8); time.sleep(600)' &
listener=$!
# A daemon's socket file where the system's are (/run, hidden from the box), world-writable as
# the journal's and D-Bus's are: every connection it accepts leaves a mark.
# A stream socket and a datagram one (the journal's kind), in a folder of /run that two runs side
# by side each mount a memory folder over (device_run.sh's attackhalves), so each has its own.
unix_sock=/run/rope2d-attack/stream.sock dgram_sock=/run/rope2d-attack/dgram.sock
mkdir -p /run/rope2d-attack && chmod 755 /run/rope2d-attack && rm -f "$unix_sock" "$dgram_sock"
python3 -c 'import os, socket, sys, threading
def mark(words):
    with open(os.path.join(sys.argv[3], "unix_socket.txt"), "ab") as f: f.write(words)
d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); d.bind(sys.argv[2]); os.chmod(sys.argv[2], 0o666)
threading.Thread(target=lambda: [mark(d.recv(256)) for _ in iter(int, 1)], daemon=True).start()
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666); s.listen(8)
while True:
    c, _ = s.accept()
    mark(c.recv(256) or b"connected\n")
    c.close()' "$unix_sock" "$dgram_sock" "$marks" &
unix_listener=$!
trap 'kill $listener $unix_listener 2>/dev/null; rm -f "$secret" "$unix_sock" "$dgram_sock"' EXIT
gpu=0
# Every run writes a report; one without a GPU says it skipped the kernel runs.
"$rope2d" verify --only 'odd/bf16/n=1' --rounds 1 --quiet --out "$work/probe" 2>&1 | grep -q "SKIPPED the kernel runs" || gpu=1
passes=0 fails=0
# The lines of a Markdown file read as markup: those outside fenced code blocks.
markup_lines() {
  awk '{ n = match($0, /^`+/) ? RLENGTH : 0
         if (!fence && n >= 3) { fence = n; next }
         if (fence && n >= fence && n == length($0)) { fence = 0; next }
         if (!fence) print }' "$1" 2>/dev/null
}
# How many processes a run left running, each counted once: the box users' handed to init (pid
# 1: they outlived their box, whichever run's; a zombie, an ended box's first process not yet
# reaped by init, runs nothing; as root a box runs as a uid of its verifier's own, 0x70000000
# and up, below 0x7FFE0000, or as 65534 where none was free), and any whose working folder or
# command line lies in the run's own temporary folder $1 (its box's bwrap names the scratch
# folder made there, and the box's processes work in it). The boxes of other runs going on
# beside it are not counted.
left_from() {
  {
    ps -e -o pid=,ppid=,uid=,stat= 2>/dev/null |
      awk '($3 == 65534 || ($3 >= 1879048192 && $3 < 2147352576)) && $2 == 1 && $4 !~ /^Z/ {print $1}'
    ls -l /proc/[0-9]*/cwd 2>/dev/null | awk -v t="$1/" 'index($NF "/", t) == 1 {split($(NF - 2), p, "/"); print p[3]}'
    # The folder as a pattern file, not an argument: grep reads its own command line too.
    grep -laF -f <(printf '%s/\n' "$1") /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3
  } | sort -u | wc -l
}
check() {  # check NAME FILE RC PATTERN [verify args...]: PATTERN in the output or the report
  local name=$1 file=$2 want=$3 pattern=$4; shift 4
  # ATTACK_ONLY=REGEX runs only the matching attacks.
  checked+=" $name "
  if [ -n "${ATTACK_ONLY:-}" ] && ! [[ $name =~ $ATTACK_ONLY ]]; then return; fi
  local t0=$SECONDS
  case $file in /*) ;; *) file=$attacks/$file ;; esac
  # Its own temporary folder (where its box's scratch folder is made), searchable by the box's
  # user, so that whatever is left there after the run is seen; IN=DIR: run from that folder.
  local tmp=$work/tmp/$name
  rm -rf "$tmp" && mkdir -p "$tmp" && chmod 755 "$work" "$work/tmp" "$tmp"
  (cd "${IN:-.}" && TMPDIR=$tmp timeout 600 "$rope2d" verify "$file" --quick --rounds 1 --quiet --call-timeout "${CALL_TIMEOUT:-10}" \
    --out "$work/$name" "$@") >"$work/$name.log" 2>&1
  local rc=$?
  sleep 6  # a daemon writes 5 s after it started
  local bad=""
  [[ $rc =~ ^($want)$ ]] || bad="exit $rc, expected $want"
  [ -z "$bad" ] && ! grep -qE -- "$pattern" "$work/$name.log" "$work/$name/report.md" 2>/dev/null && bad="neither output nor report says '$pattern'"
  # ALSO=REGEX: a second phrase, such as what the box counted as refused.
  [ -z "$bad" ] && [ -n "${ALSO:-}" ] && ! grep -qE -- "$ALSO" "$work/$name.log" "$work/$name/report.md" 2>/dev/null \
    && bad="neither output nor report says '$ALSO'"
  # NOT=REGEX: what must appear neither in the output nor in report.md's markup (outside code
  # blocks), such as a verdict or a terminal escape the submission printed.
  [ -z "$bad" ] && [ -n "${NOT:-}" ] && { grep -aqE -- "$NOT" "$work/$name.log" || markup_lines "$work/$name/report.md" | grep -aqE -- "$NOT"; } \
    && bad="the output or the report says '$(cat "$work/$name.log" <(markup_lines "$work/$name/report.md") | grep -aE -- "$NOT" | head -1 | cat -v)'"
  [ -z "$bad" ] && [ -n "$(ls -A "$marks")" ] && bad="escaped: $(ls "$marks" | tr '\n' ' ')"
  [ -z "$bad" ] && [ -n "$(ls -A "$tmp")" ] && bad="left in the temporary folder: $(ls -A "$tmp" | tr '\n' ' ')"
  [ -z "$bad" ] && [ "$rc" -ge 128 ] && bad="the verifier died (exit $rc)"
  # Nor its worker: a worker that died is a verifier error (exit 2), named as the failure here.
  grep -q "verifier error: the verifier's worker died" "$work/$name.log" 2>/dev/null && bad="the verifier's worker died: $(grep -m1 -o "worker died with signal [0-9]*" "$work/$name.log")"
  local left; left=$(left_from "$tmp")
  [ -z "$bad" ] && [ "${left:-0}" != 0 ] && bad="$left process(es) of its box left running"
  if [ -n "$bad" ]; then
    echo "FAIL $name: $bad"; tail -n 8 "$work/$name.log"; fails=$((fails + 1))
  else
    echo "ok   $name (exit $rc, '$pattern', $((SECONDS - t0)) s)"; passes=$((passes + 1))
  fi
  rm -rf "${marks:?}"/*
}
# Negative control: unconfined (--no-sandbox), the same attack does leave its marks, so the
# checks above can see an escape. With a GPU, the one that escapes in the call: forge_at_load's
# forged records on the host's socket end the host before its constructor reaches its escape.
control=forge_at_load.cu
checked=""
[ $gpu = 1 ] && control=forge_in_call.cu
timeout 300 "$rope2d" verify "$attacks/$control" --quick --rounds 1 --quiet --no-sandbox --out "$work/control" \
  >"$work/control.log" 2>&1
# The escape's mark is the one the checks above look for; its daemon may be ended with the run
# (a host killed for its forged records ends the run in seconds, before the daemon's 5 s).
for _ in $(seq 40); do [ -f "$marks/daemon.txt" ] && break; sleep 0.5; done
if [ -f "$marks/escaped.txt" ]; then
  echo "ok   control: unconfined, the attack escaped as expected"; passes=$((passes + 1))
else
  echo "FAIL control: unconfined, the attack left no mark: the escape check cannot see one"; fails=$((fails + 1))
fi
rm -rf "${marks:?}"/*
# The same for a daemon's socket files: unconfined, unix_socket.cu reaches them every way (by
# io_uring where the kernel has its socket operations), so the box's refusal of each is seen.
if [ -z "${ATTACK_ONLY:-}" ] || [[ unix_socket =~ $ATTACK_ONLY ]]; then
  timeout 300 "$rope2d" verify "$attacks/unix_socket.cu" --quick --rounds 1 --quiet --no-sandbox --out "$work/control_unix" \
    >"$work/control_unix.log" 2>&1
  # The listener takes the connections one by one: its marks are waited for, so that none lands
  # in the next check's.
  for _ in $(seq 20); do
    ways=$(cat "$marks/unix_socket.txt" 2>/dev/null | tr '\n' ' ')
    [[ $ways == *"by connect()"* && $ways == *"by high bits"* && $ways == *"by socketpair"* ]] && break
    sleep 0.5
  done
  sleep 1
  ways=$(cat "$marks/unix_socket.txt" 2>/dev/null | tr '\n' ' ')
  if [[ $ways == *"by connect()"* && $ways == *"by high bits"* && $ways == *"by socketpair"* ]]; then
    echo "ok   control_unix: unconfined, the attack reached the socket file ($ways)"; passes=$((passes + 1))
  else
    echo "FAIL control_unix: unconfined, the attack did not reach the socket file: the check cannot see it"; fails=$((fails + 1))
  fi
  rm -rf "${marks:?}"/*
fi
# What a submission printed and the paths it named are shown as text: no verdict, heading or
# escape of its own reaches the terminal or the report's markup.
forged=$'\x1b|\r|^\\*\\*Verdict: passed|^# rope2d verify: passed|^rope2d verify: CPU checks passed$'
# The solution attacks (run where torch has CUDA) are written here on every machine: each Python
# payload compiles (solutions.py compiles what it writes), and each C++ one compiles over attack.h
# without torch, so a slip in them shows in CI, not first on a GPU.
if python3 "$attacks/solutions.py" "$work/solutions-check" >/dev/null &&
   ${CXX:-g++} -fsyntax-only -Wall -Werror -I"$attacks" "$work/solutions-check/cpp_payloads.cpp"; then
  echo "ok   the solution attacks: written, their payloads compile"; passes=$((passes + 1))
else
  echo "FAIL the solution attacks: solutions.py or a C++ payload failed (above)"; fails=$((fails + 1))
fi
if [ $gpu = 0 ]; then  # built and loaded in the box; no kernel runs
  # What the box refused is counted from outside (harness/watch.hpp) and named.
  ALSO="refused by the box: [0-9]+ write\(s\) outside .*rope2d-attack/escaped.txt" check forge_at_load forge_at_load.cu 0 "loaded in the box"
  check forge_in_call forge_in_call.cu 0 "loaded in the box"
  check fork_bomb fork_bomb.cu 0 "loaded in the box"
  check loud loud.cu 0 "loaded in the box"
  ALSO="refused by the box: .*network connection\(s\) \(127.0.0.1:47811" check network network.cu 0 "loaded in the box"
  # A daemon's socket file in /run: hidden from the box, reached no way (io_uring refused).
  check unix_socket unix_socket.cu 0 "loaded in the box"
  # A node made, modes, owners, times and attributes changed: each refused call counted.
  ALSO="refused by the box: (1[3-9]|[2-9][0-9]) write\(s\) outside" check file_attributes file_attributes.cu 0 "loaded in the box"
  check build_forever build_forever.cu 3 "did not end within 20 s" --build-timeout 20
  check hang_at_load hang_at_load.cu 3 "loading did not end within 15 s" --load-timeout 15
  check crash_at_load crash_at_load.cu 3 "FAILED to build or load"
  check held_pipe held_pipe.cu 0 "loaded in the box" --load-timeout 15
  # A forged exit 0 at load does not turn --require-gpu's skipped kernel runs into a pass.
  check forge_at_load_require_gpu forge_at_load.cu 4 "--require-gpu: the kernel runs were SKIPPED" --require-gpu
  # Its own output reopened as an include: refused (the pipe is not the box user's), or at worst
  # a build that waits for ever, killed at the limit.
  check include_own_output include_own_output.cu 3 "FAILED to build" --build-timeout 20
  NOT=$forged check forged_text forged_text.cu 3 "could not be loaded: cannot load"
  NOT=$forged ALSO="refused by the box: 3 write\(s\) outside" check forged_paths forged_paths.cu 0 "loaded in the box"
  # The box's "found" is the submission's word: the judge reads the file's symbol table itself.
  # The control, an accurate kernel, is found by both.
  ALSO="the box's claim does not match the file" check forge_found forge_found.cu 3 "missing symbol rope2d_backward"
  check accurate_simple "$(dirname "$attacks")/kernels/accurate_simple.cu" 0 "loaded in the box, rope2d_backward found"
  check escape_pid_namespace escape_pid_namespace.cu 0 "loaded in the box"
  check ptrace_everything ptrace_everything.cu 0 "loaded in the box"
  check proc_writes proc_writes.cu 0 "loaded in the box"
  # /dev and /dev/shm hold no more memory than /tmp; the scratch folder goes whatever the box
  # left in it (checked for every attack), and writes inside it are not counted as refused.
  check dev_memory dev_memory.cu 0 "loaded in the box"
  ALSO="refused by the box: nothing" check scratch_maze scratch_maze.cu 0 "loaded in the box"
  # Only the headers its source names are copied into its box from beside it, never the rest
  # of its folder (another submission's header, a hidden home's files).
  check steal_headers steal_headers/steal_headers.cu 0 "loaded in the box"
  # A solution verified from its own folder (which holds linecache.py and a .python-version
  # that picks Python 3.13 under pyenv): byte-compiled in the box, nothing of the folder imported.
  IN=$attacks/byte_compile ALSO="refused by the box: nothing" check byte_compile byte_compile/solution.json 0 "byte-compiled"
  # Every other attack (those of the call, run on a GPU) at least builds and loads in the box, so
  # that a GPU run never finds one that does not compile.
  for f in "$attacks"/*.cu; do
    n=$(basename "$f" .cu)
    [[ $checked == *" $n "* ]] || check "$n" "$n.cu" 0 "loaded in the box"
  done
else
  # Forged records on its own socket end its host: failed, never passed.
  check forge_at_load forge_at_load.cu "1|3" "Verdict: (incorrect|failed)"
  ALSO="refused by the box.*[0-9]+ write\(s\) outside .*rope2d-attack" check forge_in_call forge_in_call.cu "1|3" "Verdict: (incorrect|failed)"
  check hang_in_call hang_in_call.cu 3 "did not return within"
  # The host's own "finished" record, forged for a call whose kernel never ends: the judge
  # watches its own stream, not the record, and the call is killed at --call-timeout.
  # (verify's parent times the whole call out first; `rope2d sweep`, without a parent, relies
  # on the judge's own watch.)
  check forge_finished forge_finished.cu 3 "did not (return|finish) within"
  if [ -z "${ATTACK_ONLY:-}" ] || [[ forge_finished_sweep =~ $ATTACK_ONLY ]]; then
    tmp=$work/tmp/forge_finished_sweep
    rm -rf "$tmp" && mkdir -p "$tmp" && chmod 755 "$tmp"
    t0=$SECONDS
    TMPDIR=$tmp timeout 300 "$rope2d" sweep "$attacks/forge_finished.cu" --range 0:65536 --call-timeout 10 --quiet \
      --out "$work/forge_finished_sweep" >"$work/forge_finished_sweep.log" 2>&1
    rc=$? took=$((SECONDS - t0))
    sleep 2
    left=$(left_from "$tmp")
    bad=""
    [ "$rc" = 3 ] || bad="exit $rc, expected 3"
    # Its reason: the call's time limit, or (seen on the H100: the judge's stream is not released
    # once the host with its never-ending kernel is killed) the release's own limit, 30 s on.
    [ -z "$bad" ] && ! grep -qE "did not finish within 10 s|did not run this process's release" "$work/forge_finished_sweep.log" \
      && bad="the output names neither the call's time limit nor the release's"
    [ -z "$bad" ] && [ "$took" -gt 120 ] && bad="it took $took s"
    [ -z "$bad" ] && [ -n "$(ls -A "$tmp")" ] && bad="left in the temporary folder: $(ls -A "$tmp" | tr '\n' ' ')"
    [ -z "$bad" ] && [ "${left:-0}" != 0 ] && bad="$left process(es) of its box left running"
    if [ -n "$bad" ]; then echo "FAIL forge_finished_sweep: $bad"; tail -n 5 "$work/forge_finished_sweep.log"; fails=$((fails + 1))
    else echo "ok   forge_finished_sweep (exit $rc, $took s)"; passes=$((passes + 1)); fi
  fi
  # Interrupted while a call hangs (SIGTERM, a closed terminal): the worker and its box end at
  # once, the run's temporary folder goes, and the verifier ends by the signal itself. (SIGINT
  # as a terminal sends it: a script's background job ignores SIGINT, which the verifier keeps.)
  for sig in TERM HUP; do
    name=interrupted_$sig
    if [ -n "${ATTACK_ONLY:-}" ] && ! [[ $name =~ $ATTACK_ONLY ]]; then continue; fi
    tmp=$work/tmp/$name
    rm -rf "$tmp" && mkdir -p "$tmp" && chmod 755 "$tmp"
    TMPDIR=$tmp "$rope2d" verify "$attacks/hang_in_call.cu" --quick --rounds 1 --quiet --call-timeout 300 \
      --out "$work/$name" >"$work/$name.log" 2>&1 &
    vpid=$!
    sleep 25  # built, started, and hanging in its first call
    kill -"$sig" "$vpid"
    t0=$SECONDS
    wait "$vpid"
    rc=$? took=$((SECONDS - t0))
    sleep 2
    left=$(left_from "$tmp")
    want=$((128 + $(kill -l "$sig")))
    bad=""
    [ "$rc" = "$want" ] || bad="exit $rc, expected $want (ended by SIG$sig)"
    [ -z "$bad" ] && ! grep -q "ended by signal" "$work/$name.log" && bad="the output does not say it was ended by the signal"
    [ -z "$bad" ] && [ "$took" -gt 40 ] && bad="it took $took s to end after the signal"
    [ -z "$bad" ] && [ -n "$(ls -A "$tmp")" ] && bad="left in the temporary folder: $(ls -A "$tmp" | tr '\n' ' ')"
    [ -z "$bad" ] && [ "${left:-0}" != 0 ] && bad="$left process(es) of its box left running"
    if [ -n "$bad" ]; then echo "FAIL $name: $bad"; tail -n 5 "$work/$name.log"; fails=$((fails + 1))
    else echo "ok   $name (exit $rc, $took s after the signal)"; passes=$((passes + 1)); fi
  done
  check crash_in_call crash_in_call.cu 3 "kernel host"
  check exit_in_call exit_in_call.cu 3 "kernel host"
  # Its forks take the box's process limit; the host, short of threads, may then fail.
  check fork_bomb fork_bomb.cu "1|3" "Verdict: (incorrect|failed)"
  check loud loud.cu 1 "Verdict: incorrect"
  ALSO="refused by the box.*127.0.0.1:47811" check network network.cu 1 "Verdict: incorrect"
  check build_forever build_forever.cu 3 "did not end within 20 s" --build-timeout 20
  check hang_at_load hang_at_load.cu 3 "kernel host did not start within 15 s" --load-timeout 15
  # Every other attack of the corpus (those the CPU run checks at load) runs here too, in the box
  # a GPU run builds (its device nodes revealed): each computes nothing, so it is incorrect, or
  # failed where it ended its own host or build; never passed, and nothing of it escapes or stays.
  for f in "$attacks"/*.cu "$attacks"/steal_headers/steal_headers.cu; do
    n=$(basename "$f" .cu)
    [[ $checked == *" $n "* ]] || NOT=$forged check "$n" "$f" "1|3" "Verdict: (incorrect|failed)" --build-timeout 60
  done
  # The same attacks as Python and cuda_cpp solutions, through the runner that imports them;
  # one that could not even be loaded (a slip in solutions.py) tried nothing, whatever its verdict.
  if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
    python3 "$attacks/solutions.py" "$work/solutions" >"$work/solutions.txt" || fails=$((fails + 1))
    while IFS=$'\t' read -r name exits phrase refused options; do
      [ "$refused" = - ] && refused=""
      [ "$options" = - ] && options=""
      # One that could not be loaded or built tried nothing (but the build that never ends).
      unloaded="cannot load kernel|SyntaxError"
      [ "$name" = cpp_build_forever ] || unloaded+="|cannot build kernel"
      # shellcheck disable=SC2086
      NOT="$forged|$unloaded" ALSO=$refused CALL_TIMEOUT=30 \
        check "$name" "$work/solutions/$name/solution.json" "$exits" "$phrase" --grad-dtypes bf16 $options
    done <"$work/solutions.txt"
  else
    echo "SKIPPED: the Python and cuda_cpp attacks (no torch with CUDA)"
  fi
fi
echo "attacks: $passes passed, $fails failed"
[ $fails -eq 0 ]
