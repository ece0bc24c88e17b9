#!/usr/bin/env bash
#===- scripts/gpu/hessian-sparse-bench.sh - Sparse loop Hessians on GPU --===#
#
#   bash scripts/gpu/hessian-sparse-bench.sh build [DIR]   here: compile
#        benchmarks/hessian-sparse/gpu-bench.cu (clang + plugin) into DIR
#        (default .gpu/hessian-sparse), with jax_bench.py beside it
#   bash scripts/gpu/hessian-sparse-bench.sh run [DIR] [--n=1024] [--reps=10]
#        on the GPU machine: the meshad / write-once / hand-written table,
#        then the JAX table (python3 with jax[cuda]; skipped without it)
#   bash scripts/gpu/hessian-sparse-bench.sh cpu   here: --n=64 on the CPU
#        emulation (the same checks, no meaningful times)
#
# Issue 12's benchmark: the CSR Hessian of a mass-spring energy on an n x n
# grid (V = n^2 = 1M at n = 1024, ~3M springs, fp64). DIR must be absolute
# or relative to the current directory. Environment: MESHAD_BUILD_DIR,
# MESHAD_CLANG, CUDA_PATH, MESHAD_GPU_ARCH as for scripts/gpu/build.sh.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Cuda=${CUDA_PATH:-/usr/local/cuda}
Arch=${MESHAD_GPU_ARCH:-sm_90}
Src=$Root/benchmarks/hessian-sparse

compile() { # MODE BIN LOG
  local Flags=(-O2 -I"$Root/include") Link=(-pthread)
  if [[ $1 == gpu ]]; then
    Flags+=(-x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version
            --cuda-gpu-arch="$Arch")
    Link=(-L"$Cuda/lib64" -lcudart_static -ldl -lrt -pthread)
  else
    Flags+=(-x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h)
  fi
  "$Clang" "${Flags[@]}" -fplugin="$BuildDir/lib/libmeshad.so" \
    -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks \
    "$Src/gpu-bench.cu" "${Link[@]}" -o "$2" >"$3" 2>&1 ||
    { tail -20 "$3"; return 1; }
}

case ${1:-} in
build)
  Out=${2:-$Root/.gpu/hessian-sparse}
  mkdir -p "$Out"
  compile gpu "$Out/hessian-sparse-bench" "$Out/build.log"
  cp "$Src/jax_bench.py" "$Out/"
  du -sh "$Out"
  ;;
run)
  Out=${2:-$Root/.gpu/hessian-sparse}
  shift $(( $# >= 2 ? 2 : 1 ))
  "$Out/hessian-sparse-bench" "$@"
  if python3 -c "import jax" 2>/dev/null; then
    python3 "$Out/jax_bench.py" "$@"
  else
    echo "jax not installed: JAX table skipped"
  fi
  ;;
cpu)
  Out=$(mktemp -d)
  compile cpu "$Out/bench" "$Out/build.log"
  "$Out/bench" --n=64 --reps=2
  rm -rf "$Out"
  ;;
*)
  sed -n '2,17p' "$0"
  exit 1
  ;;
esac
