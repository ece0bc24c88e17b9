#!/usr/bin/env bash
#===- scripts/setup.sh - Install meshad's build dependencies -------------===#
#
# Idempotent: installs (through apt) only what is missing of the packages
# meshad needs (tetgen makes the tet meshes of the mesh runtime's tests), and
# skips apt altogether when everything is there; then fetches CGAL's data
# meshes (scripts/fetch-meshes.sh, also a no-op when they are there). Checks for
# the CUDA toolkit too, but only warns when it is absent: the lit tests that
# need it are then reported as unsupported (lit feature `cuda`).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

Packages=(clang-22 clang-tools-22 libclang-22-dev llvm-22-dev llvm-22-tools libgtest-dev
          cmake ninja-build tetgen)
CudaNvcc=${MESHAD_CUDA_PATH:-/usr/local/cuda}/bin/nvcc

Missing=()
for Pkg in "${Packages[@]}"; do
  Status=$(dpkg-query -W -f='${Status}' "$Pkg" 2>/dev/null || true)
  if [[ "$Status" != "install ok installed" ]]; then
    Missing+=("$Pkg")
  fi
done

if ((${#Missing[@]} == 0)); then
  echo "setup: all packages present (${Packages[*]})"
else
  echo "setup: installing ${Missing[*]}"
  Sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    Sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${Sudo[@]}" apt-get update
  "${Sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${Missing[@]}"
fi

if [[ -x "$CudaNvcc" ]]; then
  echo "setup: CUDA found ($CudaNvcc)"
else
  echo "setup: warning: $CudaNvcc not found; CUDA-dependent tests will be" \
       "reported as unsupported" >&2
fi

bash "$(dirname "${BASH_SOURCE[0]}")/fetch-meshes.sh"
