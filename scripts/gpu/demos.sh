#!/usr/bin/env bash
#===- scripts/gpu/demos.sh - Build and run the mesh demos on a GPU -------===#
#
# Builds demos/parameterization, demos/smoothing, demos/spherical-map and
# demos/splat-fit (the Adam fit of 2D Gaussians to a photo, issue 15) with
# clang and the meshad plugin for a real GPU (no GPU needed here), with
# cuSPARSE SpMV (MESHAD_SOLVE_CUSPARSE), into the git-ignored .gpu/demos/
# (each binary and its .build log). With --run (on the GPU machine, from the
# repository root, data/meshes/ present: scripts/fetch-meshes.sh, or
# MESHAD_MESH_DIR set): each demo on its full mesh, its output in
# .gpu/demos/<demo>.txt and its picture in .gpu/demos/<demo>.png (splat-fit:
# 4096 Gaussians on the 256 x 256 photo, 1000 steps, its PNGs and loss curve
# in .gpu/demos/splat-fit-out/).
# Environment: MESHAD_BUILD_DIR, MESHAD_CLANG, CUDA_PATH, MESHAD_GPU_ARCH,
# MESHAD_GPU_OUT as for scripts/gpu/build.sh.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Cuda=${CUDA_PATH:-/usr/local/cuda}
Arch=${MESHAD_GPU_ARCH:-sm_90}
Out=${MESHAD_GPU_OUT:-$Root/.gpu}/demos
Meshes=${MESHAD_MESH_DIR:-data/meshes}
Demos=(parameterization smoothing spherical-map splat-fit)
mkdir -p "$Out"
if [[ ${1:-} == --run ]]; then
  nvidia-smi --query-gpu=name --format=csv,noheader || true
  Rc=0
  "$Out/parameterization" "$Meshes/lion-head.off" 0 "$Out/parameterization.png" \
    >"$Out/parameterization.txt" 2>&1 || Rc=1
  "$Out/smoothing" "$Meshes/bunny00.off" 0 "$Out/smoothing.png" \
    >"$Out/smoothing.txt" 2>&1 || Rc=1
  "$Out/spherical-map" "$Meshes/cow.off" "$Out/spherical-map.png" 300 \
    >"$Out/spherical-map.txt" 2>&1 || Rc=1
  grep -v '^PASS' "$Out/spherical-map.txt" | grep -v '^newton ' | tail -6
  # The earlier Newton (each triangle's y-Hessian projected, docs/demos.md).
  "$Out/spherical-map" "$Meshes/cow.off" "$Out/spherical-map-ambient.png" 300 \
    1e-3 ambient >"$Out/spherical-map-ambient.txt" 2>&1 || Rc=1
  grep -v '^PASS' "$Out/spherical-map-ambient.txt" | grep -v '^newton ' | tail -6
  mkdir -p "$Out/splat-fit-out"
  "$Out/splat-fit" --target demos/splat-fit/astronaut-256.ppm \
    --gaussians 4096 --steps 1000 --out "$Out/splat-fit-out" --check \
    >"$Out/splat-fit.txt" 2>&1 || Rc=1
  for D in "${Demos[@]}"; do
    grep -v '^PASS' "$Out/$D.txt" | tail -4
  done
  exit $Rc
fi
for D in "${Demos[@]}"; do
  "$Clang" -x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version \
    --cuda-gpu-arch="$Arch" -fplugin="$BuildDir/lib/libmeshad.so" \
    -fplugin-arg-meshad-dump -DMESHAD_SOLVE_CUSPARSE -I"$Cuda/include/cccl" \
    -I"$Root/include" -I"$Root/test/Inputs" -O2 "$Root/demos/$D/$D.cu" \
    -L"$Cuda/lib64" -lcusparse -lcudart_static -ldl -lrt -pthread \
    -Wl,-rpath,"$Cuda/lib64" -o "$Out/$D" >"$Out/$D.build" 2>&1 ||
    { grep -m 10 error "$Out/$D.build"; exit 1; }
  echo "built $Out/$D"
done
echo "on the GPU machine: bash scripts/gpu/demos.sh --run"
