#!/usr/bin/env bash
# Installs what rope2d needs from Debian's packages (only what is missing), then configures
# and builds it in build/. Safe to run again; the README's two commands both start with it.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(cmake g++ make libeigen3-dev libboost-dev libmpfr-dev libgmp-dev librapidcheck-dev libgtest-dev gappa
          nlohmann-json3-dev libvalijson-dev libcli11-dev libfmt-dev libssl-dev libpugixml-dev python3 python3-numpy
          python3-pytest python3-setuptools)
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
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
