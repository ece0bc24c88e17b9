#!/usr/bin/env bash
#===- scripts/gpu/solver-bench.sh - Build and run the solver benchmark ---===#
#
# Builds demos/cloth/cloth.cu with clang and the meshad plugin for a real GPU
# (no GPU needed here), with cuSPARSE SpMV and cuSOLVER Cholesky switched on
# (MESHAD_SOLVE_CUSPARSE, MESHAD_SOLVE_CUSOLVER), into the git-ignored
# .gpu/solver/:
#   cloth        the demo and benchmark
#   cloth.build  the compiler's output (the dumped local derivatives)
# With --run (on the GPU machine): the cloth's gradient, gradient + Hessian,
# HVP, one Newton iteration and a whole implicit Euler step (CUDA events,
# one warm-up, the median of 5) at 10k, 100k and 1M vertices, each with a
# "cg scalars" line (the first system's PCG and the whole step with CG's
# dot products on the host and with its scalars on the device), then a
# 25-step simulation of a 256 x 256 cloth with its OBJ and PNG; the output
# goes to .gpu/solver/bench.txt.
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
Out=${MESHAD_GPU_OUT:-$Root/.gpu}/solver
mkdir -p "$Out"
if [[ ${1:-} == --run ]]; then
  {
    nvidia-smi --query-gpu=name --format=csv,noheader || true
    for N in 100 316 1000; do
      "$Out/cloth" --bench --n=$N --reps=5
    done
    "$Out/cloth" --n=256 --steps=25 --dt=0.04 --quiet \
      --obj="$Out/cloth-256.obj" --png="$Out/cloth-256.png"
  } 2>&1 | tee "$Out/bench.txt"
  exit 0
fi
"$Clang" -x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version \
  --cuda-gpu-arch="$Arch" -fplugin="$BuildDir/lib/libmeshad.so" \
  -fplugin-arg-meshad-dump -DMESHAD_SOLVE_CUSPARSE -DMESHAD_SOLVE_CUSOLVER \
  -Wno-deprecated-declarations -I"$Cuda/include/cccl" -I"$Root/include" \
  -I"$Root/test/Inputs" -O2 "$Root/demos/cloth/cloth.cu" -L"$Cuda/lib64" \
  -lcusolver -lcusparse -lcudart_static -ldl -lrt -pthread \
  -Wl,-rpath,"$Cuda/lib64" -o "$Out/cloth" >"$Out/cloth.build" 2>&1 ||
  { cat "$Out/cloth.build"; exit 1; }
echo "built $Out/cloth; on the GPU machine: bash scripts/gpu/solver-bench.sh --run"
