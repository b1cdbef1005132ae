#!/usr/bin/env bash
# Installs what rope2d needs from Debian's packages (only what is missing), then configures
# and builds it in build/: the default target, what the main job and `cmake --install` need;
# with --tests, also every test program (the target `tests`). Safe to run again; the README's
# two commands both start with it. ROPE2D_WERROR=ON (CI) makes any C++ warning an error.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
for arg in "$@"; do
  case "$arg" in
    --tests) targets=(--target tests) ;;
    *) echo "usage: bash .ci/setup.sh [--tests]" >&2; exit 2 ;;
  esac
done
packages=(cmake ninja-build g++ make libeigen3-dev libboost-dev libmpfr-dev libgmp-dev librapidcheck-dev libgtest-dev gappa
          nlohmann-json3-dev libvalijson-dev libcli11-dev libfmt-dev libssl-dev libpugixml-dev python3 python3-numpy
          python3-pytest python3-setuptools python3-pip python3-wheel python3-build bubblewrap libseccomp-dev
          libelf-dev pkg-config)
# The tests also load the nightly dashboard in a headless browser (nightly_site_test), measure
# every function with clang-tidy (function_size) and check the schemas of verify/schema/ with a
# second validator (schema_cli_test).
[ ${#targets[@]} -eq 0 ] || packages+=(chromium clang-tidy python3-jsonschema)
# More for a caller that needs them (CI: slurm-wlm and munge, for the Slurm test).
read -r -a extra <<<"${ROPE2D_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "rope2d setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# nvcc is optional: without it the kernels and GPU tests are left out and say so.
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
options=(-DCMAKE_BUILD_TYPE=Release)
# Ninja for a fresh build folder (its .ninja_log times every step); an existing one keeps its generator.
[ -f build/CMakeCache.txt ] || options+=(-G Ninja)
[ -z "${ROPE2D_WERROR:-}" ] || options+=(-DROPE2D_WERROR="$ROPE2D_WERROR")
cmake -S . -B build "${options[@]}" >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
