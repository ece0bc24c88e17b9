#!/usr/bin/env bash
# Compile time of a small .cu that includes <meshad/Differentiator.h> (and
# requests nothing), with the headers of this checkout, or of another
# include folder given as $1 (e.g. an older checkout's include/, to compare).
# Clang CUDA with CCCL on the include path (as scripts/gpu/build.sh), and
# nvcc when it is installed. Needs no GPU.
set -euo pipefail
Root=$(cd "$(dirname "$0")/../.." && pwd)
Inc=${1:-$Root/include}
Cuda=${CUDA_PATH:-/usr/local/cuda}
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Src=$Root/benchmarks/compile-cost/small.cu
Out=$(mktemp -d)
trap 'rm -rf "$Out"' EXIT
for Run in 1 2 3; do
  /usr/bin/time -f "clang+cccl run $Run: wall %e s, user %U s, max RSS %M KB" \
    "$Clang" -std=c++17 -x cuda --cuda-path="$Cuda" -I"$Cuda/include/cccl" \
    -Wno-unknown-cuda-version --cuda-gpu-arch=sm_90 -I"$Inc" -O2 -c "$Src" \
    -o "$Out/small.o" 2>"$Out/log" || { cat "$Out/log"; exit 1; }
  tail -1 "$Out/log"
  echo "  warnings: $(grep -c 'warning:' "$Out/log" || true)"
done
if [[ -x $Cuda/bin/nvcc ]]; then
  /usr/bin/time -f "nvcc: wall %e s, user %U s" "$Cuda/bin/nvcc" -std=c++17 \
    -arch=sm_90 -I"$Inc" -O2 -c "$Src" -o "$Out/small.o"
fi
