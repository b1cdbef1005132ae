#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then as a user of the installed tree would: the
# installed solution runner (python3 -m rope2d.runner) finds the modules it hands its host, the
# installed rope2d run from / (not the repository) finds its own golden set and passes, in
# `verify` and in `nightly` (its --golden default), its schemas are the ones it reads with,
# its --version is the build's, and a
# downstream project built with find_package(rope2d) runs: the example of docs/cpp.md, whose
# code blocks must be the consumer's own lines. A CUDA build installs sincosf_ulp where the
# installed nightly finds it (libexec/rope2d), and that nightly measures with it on a GPU.
# Usage: install_test.sh CMAKE BUILD_DIR CONSUMER_SOURCE_DIR
set -uo pipefail
cmake=$1 build=$2 consumer=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; exit 1; }
for f in bin/rope2d bin/rope2d-kernel-host lib/librope2d_py.so lib/librope2d_verify.a lib/librope2d_reference.a \
         include/rope2d/rope2d_backward.h include/rope2d/verify/products/capi.h include/rope2d/ref/backward.hpp \
         include/rope2d/verify/model/report.hpp include/rope2d/verify/products/report_files.hpp \
         include/rope2d/verify/judge/judge.hpp include/rope2d/verify/codec/golden.hpp \
         share/rope2d/data/golden-smoke/manifest.json share/rope2d/reference/worst/known.txt \
         share/rope2d/python/rope2d/runner/__main__.py share/rope2d/python/rope2d/runner/host_serve.py \
         share/rope2d/python/rope2d/runner/neutral_main.py share/rope2d/python/rope2d/_call_checks.py \
         share/rope2d/python/rope2d/bench_torch.py \
         lib/cmake/rope2d/rope2dConfig.cmake lib/cmake/rope2d/rope2dConfigVersion.cmake share/doc/rope2d/LICENSE; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
# Only the public headers: those of a floor's own folder under include/rope2d/verify/<floor>/,
# never a private one of verify/src (the nightly's, the testbed's, the box's).
for f in spawn.hpp nightly.hpp harness/spawn.hpp harness/sandbox.hpp harness/testbed/device.hpp testbed/device.hpp products/nightly/nightly.hpp codec/plain_text.hpp \
         codec/input.hpp input.hpp; do
  [ ! -e "$prefix/include/rope2d/verify/$f" ] || fail "a private header installed: include/rope2d/verify/$f"
done
# The reference's headers are math: none reads a file or parses JSON (the verifier's codec does).
io=$(grep -lE 'nlohmann|<fstream>|<cstdio>' "$prefix"/include/rope2d/ref/*.hpp)
[ -z "$io" ] && [ ! -e "$prefix/include/rope2d/ref/input.hpp" ] || fail "reference headers with file or JSON I/O installed: $io"
stray=$(find "$prefix/include/rope2d/verify" -maxdepth 1 -type f)
[ -z "$stray" ] || fail "headers outside a floor's folder installed: $stray"
helper=$(find "$prefix" -path '*/rope2d/sincosf_ulp' -type f)
if [ -e "$build/verify/sincosf_ulp" ]; then
  [ -x "$helper" ] && [ "$(dirname "$(dirname "$(dirname "$helper")")")" = "$prefix" ] ||
    fail "a CUDA build: sincosf_ulp not installed under <prefix>/<libexec>/rope2d ('$helper')"
else
  [ -z "$helper" ] || fail "a build without CUDA installed a sincosf_ulp: $helper"
fi

# The installed solution runner, from /, as the program starts it (the package's folder first on
# sys.path): it finds every module it hands the neutral host, and without the judge's socket
# refuses to start.
(cd / && python3 -c "import sys; sys.path.insert(0, sys.argv[1]); from rope2d.runner import relay
assert relay.host_main() and all(relay.module_source(m) for m in relay.HOST_MODULES)
assert relay.HIDDEN == (__import__('pathlib').Path(sys.argv[1]).resolve(),)" "$prefix/share/rope2d/python") ||
  fail "the installed rope2d.runner does not find its modules"
(cd / && PYTHONPATH="$prefix/share/rope2d/python" python3 -m rope2d.runner "$tmp" f.py::run 1 "$tmp" 3<&-) 2>"$tmp/runner.log"
rc=$?
[ "$rc" -eq 2 ] && grep -q "no socket to the judge on descriptor 3" "$tmp/runner.log" ||
  fail "the installed python3 -m rope2d.runner without a socket: exit $rc, $(cat "$tmp/runner.log")"
[ ! -e "$prefix/share/rope2d/verify/python" ] || fail "a second Python home installed: share/rope2d/verify/python"

# The installed program, from /, with no checkout in sight: its golden set is the installed one.
(cd / && "$prefix/bin/rope2d" verify --out "$tmp/verify") >"$tmp/verify.log" 2>&1
rc=$?
golden="$prefix/share/rope2d/data/golden-smoke"
if grep -q "SKIPPED the kernel runs" "$tmp/verify.log"; then
  [ "$rc" -eq 0 ] || fail "installed rope2d verify exit $rc (expected 0)"
  grep -q "golden set $golden: passed" "$tmp/verify.log" || fail "installed rope2d verify did not check $golden"
else
  [ "$rc" -eq 0 ] || fail "installed rope2d verify exit $rc on the GPU (expected 0)"
fi
[ "$fails" -eq 0 ] || cat "$tmp/verify.log"
# The installed nightly, from /: its default golden set is the installed one (never a path
# relative to the working directory), recomputed by the reference and passed.
(cd / && "$prefix/bin/rope2d" nightly --quick --quiet --out "$tmp/nightly" --date 2026-01-01) >"$tmp/nightly.log" 2>&1
summary_md="$tmp/nightly/2026-01-01/summary.md"
grep -qF "$golden: " "$summary_md" 2>/dev/null && grep -F "$golden: " "$summary_md" | grep -q "passed\.$" ||
  { fail "installed rope2d nightly did not check and pass $golden"; cat "$tmp/nightly.log"; grep -i -A2 golden "$summary_md"; }
# Its sincosf premise: measured by the installed sincosf_ulp on a GPU, SKIPPED without one.
if grep -q '"gpu": true' "$tmp/nightly/2026-01-01/summary.json" 2>/dev/null; then
  grep -qF "Measured tonight by $helper " "$summary_md" || fail "the installed nightly did not measure with $helper"
else
  grep -q "^SKIPPED: .*sinf / cosf / sincosf not measured" "$summary_md" || fail "the installed nightly's premise: $(grep -A4 'sincosf premise' "$summary_md")"
fi
# The schemas users validate with are installed, each the one the program reads with, and the
# installed nightly's summary passes its schema.
"$prefix/bin/rope2d" schema --list >"$tmp/formats" || fail "rope2d schema --list"
while read -r format file; do
  [ -f "$prefix/share/rope2d/schemas/$file" ] || { fail "not installed: share/rope2d/schemas/$file"; continue; }
  "$prefix/bin/rope2d" schema "$format" | cmp -s - "$prefix/share/rope2d/schemas/$file" ||
    fail "share/rope2d/schemas/$file differs from the schema rope2d reads $format with"
done <"$tmp/formats"
[ "$(wc -l <"$tmp/formats")" -ge 8 ] || fail "rope2d schema --list: $(cat "$tmp/formats")"
"$prefix/bin/rope2d" schema nightly-summary "$tmp/nightly/2026-01-01/summary.json" >/dev/null ||
  fail "the installed nightly's summary.json against the installed schema"
version=$("$prefix/bin/rope2d" --version) || fail "rope2d --version"
[ "$version" = "$("$build/verify/rope2d" --version)" ] || fail "installed --version '$version' differs from the build's"

# docs/cpp.md quotes the consumer: each of its C++ blocks is a run of the consumer's lines.
doc=$consumer/../../../docs/cpp.md
python3 - "$doc" "$consumer/consumer.cpp" <<'PY' || fail "docs/cpp.md's C++ blocks are not the consumer's lines"
import re, sys
doc, src = (open(p).read() for p in sys.argv[1:])
lines = [l.strip() for l in src.splitlines()]
blocks = re.findall(r"```cpp\n(.*?)```", doc, re.S)
bad = [b for b in blocks if not any(lines[i:i + len(b.splitlines())] == [l.strip() for l in b.splitlines()]
                                   for i in range(len(lines)))]
print(f"docs/cpp.md: {len(blocks)} C++ blocks, {len(bad)} not in the consumer")
for b in bad: print(b)
sys.exit(1 if bad or len(blocks) < 2 else 0)
PY

# A downstream project: configure, build, run.
if "$cmake" -S "$consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$tmp/consumer.log" 2>&1 &&
   "$cmake" --build "$tmp/consumer" >>"$tmp/consumer.log" 2>&1; then
  (cd / && "$tmp/consumer/consumer") || fail "the consumer program"
else
  cat "$tmp/consumer.log"
  fail "the consumer project did not configure or build against the installed package"
fi
[ "$fails" -eq 0 ] && echo "install_test: PASSED" || echo "install_test: $fails failures"
[ "$fails" -eq 0 ]
