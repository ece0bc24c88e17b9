#!/usr/bin/env bash
#===- scripts/gpu/hvp-bench.sh - Build the HVP benchmark -----------------===#
#
# Builds benchmarks/hvp/hvp-bench.cu with clang and the meshad plugin for a
# real GPU (no GPU needed here) into the git-ignored .gpu/hvp/:
#   hvp-bench        the benchmark (cudart linked statically)
#   hvp-bench.build  the compiler's output (the dumped gradient and HVP)
# Run .gpu/hvp/hvp-bench [--n=1000] [--reps=50] on the GPU machine.
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
Out=${MESHAD_GPU_OUT:-$Root/.gpu}/hvp
mkdir -p "$Out"
"$Clang" -x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version \
  --cuda-gpu-arch="$Arch" -fplugin="$BuildDir/lib/libmeshad.so" \
  -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I"$Root/include" -O2 \
  "$Root/benchmarks/hvp/hvp-bench.cu" -L"$Cuda/lib64" -lcudart_static -ldl \
  -lrt -pthread -o "$Out/hvp-bench" >"$Out/hvp-bench.build" 2>&1 ||
  { cat "$Out/hvp-bench.build"; exit 1; }
echo "built $Out/hvp-bench"
