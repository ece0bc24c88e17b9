#!/usr/bin/env bash
#===- scripts/fetch-meshes.sh - Real meshes for the demos and tests -------===#
#
# Extracts CGAL's data meshes that meshad's mesh runtime, tests and benchmarks
# use (closed surfaces: armadillo, bunny, camel, cow; with a boundary:
# lion-head) from Debian's libcgal-demo package, without installing it:
# `apt-get download` and `dpkg-deb -x` into a temporary folder, then only the
# listed .off files are kept, in data/meshes/ (ignored by git). Idempotent: a
# no-op when they are all there. Environment:
#   MESHAD_MESH_DIR  where the meshes go (default: <repo>/data/meshes)
#
#===----------------------------------------------------------------------===#
set -euo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MeshDir=${MESHAD_MESH_DIR:-$Root/data/meshes}
Meshes=(armadillo.off bunny00.off camel.off cow.off lion-head.off)

Missing=0
for M in "${Meshes[@]}"; do
  [[ -s "$MeshDir/$M" ]] || Missing=1
done
if ((Missing == 0)); then
  echo "fetch-meshes: all meshes present in $MeshDir"
  exit 0
fi

Work=$(mktemp -d)
trap 'rm -rf "$Work"' EXIT
cd "$Work"
chmod 0777 "$Work" # apt-get download runs as _apt where it can
if ! apt-get download libcgal-demo >/dev/null 2>&1; then
  Sudo=()
  [[ $(id -u) -ne 0 ]] && Sudo=(sudo)
  "${Sudo[@]}" apt-get update >/dev/null
  apt-get download libcgal-demo >/dev/null
fi
dpkg-deb -x libcgal-demo_*.deb pkg
Members=()
for M in "${Meshes[@]}"; do
  Members+=("data/meshes/$M")
done
tar xzf pkg/usr/share/doc/libcgal-dev/data.tar.gz "${Members[@]}"
mkdir -p "$MeshDir"
for M in "${Meshes[@]}"; do
  cp "data/meshes/$M" "$MeshDir/$M"
done
echo "fetch-meshes: ${Meshes[*]} -> $MeshDir"
