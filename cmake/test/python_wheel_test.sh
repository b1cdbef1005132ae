#!/usr/bin/env bash
# The Python package built as a user builds it: `pip wheel --no-build-isolation ./python` (the
# library built by CMake, here the build under test) gives one wheel tagged for this platform
# holding the library; installed into an empty folder it imports from / with no hint where the
# library is, its __version__ is the program's, and the checkout's `git status` is unchanged.
# Usage: python_wheel_test.sh PYTHON SOURCE_DIR BUILD_DIR
set -uo pipefail
py=$1 src=$2 build=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
status() { git -C "$src" status --porcelain --untracked-files=all 2>/dev/null; }

"$py" -c "import setuptools, wheel, pip" 2>/dev/null || { echo "SKIPPED: $py lacks pip, wheel or setuptools"; exit 77; }
before=$(status)
if ! ROPE2D_BUILD_DIR=$build "$py" -m pip wheel --no-build-isolation --no-deps --no-index -w "$tmp/dist" "$src/python" \
     >"$tmp/wheel.log" 2>&1; then
  cat "$tmp/wheel.log"; fail "pip wheel"; exit 1
fi
wheels=("$tmp"/dist/rope2d-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || { fail "expected one wheel, found: ${wheels[*]}"; exit 1; }
whl=${wheels[0]}
case "$(basename "$whl")" in
  *-py3-none-any.whl) fail "wheel tagged pure (py3-none-any) though it holds a .so: $whl" ;;
  *-py3-none-linux_*.whl) ;;
  *) fail "unexpected wheel tag: $whl" ;;
esac
listing=$("$py" -m zipfile -l "$whl")
for f in rope2d/librope2d_py.so rope2d/libmpfr.so.6 rope2d/libgmp.so.10 rope2d/worst/known.txt rope2d/pytest_plugin.py \
         rope2d/runner/__main__.py rope2d/runner/neutral_main.py rope2d/bench_torch.py; do
  grep -q "^$f " <<<"$listing" || fail "not in the wheel: $f"
done

"$py" -m pip install --no-deps --no-index --target "$tmp/site" "$whl" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "pip install --target"; }
got=$(cd / && env -u ROPE2D_LIBRARY PYTHONPATH="$tmp/site" "$py" -c \
  'import rope2d, numpy as np; print(rope2d.__version__); print(rope2d.reference(np.zeros(1, np.float32), np.ones(1, np.float32), np.zeros(1, np.float32))[0])' \
  2>&1) || fail "import rope2d from the installed wheel: $got"
version=$(head -1 <<<"$got")
[ "rope2d $version" = "$("$build/verify/rope2d" --version)" ] || fail "wheel's __version__ '$version' is not the program's"
[ "$(sed -n 2p <<<"$got")" = "1.0" ] || fail "installed reference(0, 1, 0) gave '$(sed -n 2p <<<"$got")', expected 1.0 (cos 0)"
[ "$before" = "$(status)" ] || fail "building the wheel changed git status: $(diff <(echo "$before") <(status))"
[ "$fails" -eq 0 ] && echo "python_wheel_test: PASSED" || echo "python_wheel_test: $fails failures"
[ "$fails" -eq 0 ]
