#!/usr/bin/env bash
#===- scripts/gpu/ehess-bench.sh - The element Hessian benchmark ---------===#
#
#   bash scripts/gpu/ehess-bench.sh build   here: compile (clang + plugin)
#                                           and prepare the tet mesh
#   bash scripts/gpu/ehess-bench.sh run [options]   on the GPU machine
#   bash scripts/gpu/ehess-bench.sh cpu     here: --small on the CPU emulation
#
# build writes .gpu/ehess/ (git-ignored): bin/ehess-bench, log/ (the
# compiler's output with meshad's remarks and the generated kernels) and
# data/ (armadillo's tets from tetgen -pq1.3, gzipped, ~1.2M tets, as
# scripts/gpu/elements-bench.sh makes them). run unpacks the tets to /tmp
# and prints a markdown table: gradient + block-CSR Hessian of a 1000x1000
# mass-spring grid (~3M springs) and of the tets, generated
# (meshad::hessian(kernel, "x"), atomic and deterministic) against the
# hand-written kernel of test/runtime/runtime-sparse-hessian.cu; CUDA events,
# 3 warm-ups, the median of --reps (20). Environment: MESHAD_BUILD_DIR,
# MESHAD_CLANG, CUDA_PATH, MESHAD_GPU_ARCH as for scripts/gpu/build.sh.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Cuda=${CUDA_PATH:-/usr/local/cuda}
Arch=${MESHAD_GPU_ARCH:-sm_90}
Out=$Root/.gpu/ehess
Src=$Root/benchmarks/ehess

compile() { # MODE BIN
  local Mode=$1 Bin=$2
  local Flags=(-O2 -I"$Root/include" -I"$Root/benchmarks/elements")
  local Link=(-pthread)
  if [[ $Mode == gpu ]]; then
    Flags+=(-x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version
            --cuda-gpu-arch="$Arch" -I"$Cuda/include/cccl")
    Link=(-L"$Cuda/lib64" -lcudart_static -ldl -lrt -pthread)
  else
    Flags+=(-x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h -pthread)
  fi
  "$Clang" "${Flags[@]}" -fplugin="$BuildDir/lib/libmeshad.so" \
    -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks \
    "$Src/ehess-bench.cu" "${Link[@]}" -o "$Bin" >"$Out/log/ehess.$Mode.build" 2>&1 ||
    { tail -20 "$Out/log/ehess.$Mode.build"; return 1; }
}

prepareData() {
  mkdir -p "$Out/data"
  local Elements=$Root/.gpu/elements/data
  if [[ -s $Elements/armadillo.1.ele.gz ]]; then
    cp "$Elements"/armadillo.1.{node,ele}.gz "$Out/data/"
    return
  fi
  bash "$Root/scripts/fetch-meshes.sh" >/dev/null
  local Tmp
  Tmp=$(mktemp -d)
  cp "$Root/data/meshes/armadillo.off" "$Tmp/"
  tetgen -pq1.3Q "$Tmp/armadillo.off"
  gzip -c "$Tmp/armadillo.1.node" >"$Out/data/armadillo.1.node.gz"
  gzip -c "$Tmp/armadillo.1.ele" >"$Out/data/armadillo.1.ele.gz"
  rm -rf "$Tmp"
}

case ${1:-} in
build)
  mkdir -p "$Out/bin" "$Out/log"
  compile gpu "$Out/bin/ehess-bench"
  prepareData
  du -sh "$Out"
  ;;
run)
  shift
  Tmp=$(mktemp -d)
  gunzip -c "$Out/data/armadillo.1.node.gz" >"$Tmp/armadillo.1.node"
  gunzip -c "$Out/data/armadillo.1.ele.gz" >"$Tmp/armadillo.1.ele"
  "$Out/bin/ehess-bench" --tets="$Tmp/armadillo.1" "$@"
  ;;
cpu)
  mkdir -p "$Out/log" "$Out/cpu"
  compile cpu "$Out/cpu/ehess-bench"
  Tmp=$(mktemp -d)
  cp "$Root/test/Inputs/meshes/icosahedron.off" "$Tmp/ico.off"
  tetgen -pq1.2a0.01Q "$Tmp/ico.off" >/dev/null
  "$Out/cpu/ehess-bench" --small --reps=2 --tets="$Tmp/ico.1"
  ;;
*)
  sed -n '3,18p' "$0"
  exit 2
  ;;
esac
