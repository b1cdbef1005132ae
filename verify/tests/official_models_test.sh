#!/usr/bin/env bash
# rope2d's solution reader against SOL-ExecBench's own models: runs official_models_test.py under
# the offline harness (stand-ins for pydantic & co., SOLX_STANDINS=all). SKIPPED (77) where the
# official sources ($SOLX_SRC or REPO/.solexecbench/src, never committed) or the harness
# ($SOLX_HARNESS or REPO/../shared/sol-execbench/harness) are absent.
# Usage: official_models_test.sh REPO LIBDIR
set -euo pipefail
repo=$1 lib=$2
src=${SOLX_SRC:-$repo/.solexecbench/src}
harness=${SOLX_HARNESS:-$repo/../shared/sol-execbench/harness}
if [ ! -d "$src/sol_execbench" ] || [ ! -f "$harness/device_setup.sh" ]; then
  echo "SKIPPED: no SOL-ExecBench sources at $src or no harness at $harness"
  exit 77
fi
eval "$(SOLX_STANDINS=all SOLX_SRC=$src bash "$harness/device_setup.sh" 2>/dev/null)"
ROPE2D_LIBRARY=$lib PYTHONPATH="$repo/python:$PYTHONPATH" exec python3 "$repo/verify/tests/official_models_test.py" "$repo"
