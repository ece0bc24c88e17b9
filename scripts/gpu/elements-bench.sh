#!/usr/bin/env bash
#===- scripts/gpu/elements-bench.sh - The element-kernel benchmark -------===#
#
#   bash scripts/gpu/elements-bench.sh build   here: compile (clang + plugin)
#                                              and prepare the meshes
#   bash scripts/gpu/elements-bench.sh run [options]   on the GPU machine
#   bash scripts/gpu/elements-bench.sh cpu     here: --small on the CPU emulation
#
# build writes .gpu/elements/ (git-ignored): bin/elements-bench, log/ (the
# compiler's output with meshad's remarks and the generated gradients), and
# data/ (camel.off; armadillo's tets from tetgen -pq1.3, gzipped, ~1.2M
# tets). run unpacks the tets to /tmp, runs the benchmark with --export for
# the peers, then benchmarks/elements/peers.py (JAX, PyTorch) when python3
# is there, and peers_warp.py when Warp is (pip install warp-lang: its wheel
# is downloaded here and carried over). Environment: MESHAD_BUILD_DIR, MESHAD_CLANG, CUDA_PATH,
# MESHAD_GPU_ARCH as for scripts/gpu/build.sh.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Cuda=${CUDA_PATH:-/usr/local/cuda}
Arch=${MESHAD_GPU_ARCH:-sm_90}
Out=$Root/.gpu/elements
Src=$Root/benchmarks/elements

compileAll() { # MODE: gpu or cpu
  local Mode=$1 Bin=$2 Obj
  Obj=$(mktemp -d)
  local Flags=(-O2 -I"$Root/include" -I"$Src")
  if [[ $Mode == gpu ]]; then
    Flags+=(-x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version
            --cuda-gpu-arch="$Arch" -I"$Cuda/include/cccl")
  else
    Flags+=(-x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h -pthread)
  fi
  "$Clang" "${Flags[@]}" -fplugin="$BuildDir/lib/libmeshad.so" \
    -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -c "$Src/kernels.cu" -o "$Obj/kernels.o" \
    >"$Out/log/kernels.$Mode.build" 2>&1 ||
    { tail -20 "$Out/log/kernels.$Mode.build"; return 1; }
  # The baseline variants (meshad-twophase-add, meshad-gather-whole).
  "$Clang" "${Flags[@]}" -fplugin="$BuildDir/lib/libmeshad.so" \
    -fplugin-arg-meshad-element-baseline -fplugin-arg-meshad-remarks \
    -DELEMENTS_BASELINE -c "$Src/kernels.cu" -o "$Obj/kernels-baseline.o" \
    >"$Out/log/kernels-baseline.$Mode.build" 2>&1 ||
    { tail -20 "$Out/log/kernels-baseline.$Mode.build"; return 1; }
  "$Clang" "${Flags[@]}" -c "$Src/handwritten.cu" -o "$Obj/handwritten.o"
  "$Clang" "${Flags[@]}" -c "$Src/main.cu" -o "$Obj/main.o"
  if [[ $Mode == gpu ]]; then
    "$Clang" "$Obj"/*.o -L"$Cuda/lib64" -lcudart_static -ldl -lrt -pthread -o "$Bin"
  else
    "$Clang" "$Obj"/*.o -pthread -o "$Bin"
  fi
  rm -rf "$Obj"
}

prepareData() {
  mkdir -p "$Out/data"
  bash "$Root/scripts/fetch-meshes.sh" >/dev/null
  cp "$Root/data/meshes/camel.off" "$Out/data/"
  if [[ ! -s $Out/data/armadillo.1.ele.gz ]]; then
    local Tmp
    Tmp=$(mktemp -d)
    cp "$Root/data/meshes/armadillo.off" "$Tmp/"
    tetgen -pq1.3Q "$Tmp/armadillo.off"
    gzip -c "$Tmp/armadillo.1.node" >"$Out/data/armadillo.1.node.gz"
    gzip -c "$Tmp/armadillo.1.ele" >"$Out/data/armadillo.1.ele.gz"
    rm -rf "$Tmp"
  fi
}

case ${1:-} in
build)
  mkdir -p "$Out/bin" "$Out/log"
  compileAll gpu "$Out/bin/elements-bench"
  prepareData
  cp "$Src/peers.py" "$Src/peers_warp.py" "$Out/bin/"
  du -sh "$Out"
  ;;
run)
  shift
  Tmp=$(mktemp -d)
  gunzip -c "$Out/data/armadillo.1.node.gz" >"$Tmp/armadillo.1.node"
  gunzip -c "$Out/data/armadillo.1.ele.gz" >"$Tmp/armadillo.1.ele"
  mkdir -p "$Tmp/export"
  "$Out/bin/elements-bench" --mesh-dir="$Out/data" --tets="$Tmp/armadillo.1" \
    --export="$Tmp/export" "$@"
  if command -v python3 >/dev/null; then
    python3 "$Out/bin/peers.py" "$Tmp/export" || echo "peers.py failed"
    if python3 -c "import warp" 2>/dev/null; then
      python3 "$Out/bin/peers_warp.py" "$Tmp/export" || echo "peers_warp.py failed"
    else
      echo "Warp is not installed: peers_warp.py skipped"
    fi
  fi
  ;;
cpu)
  mkdir -p "$Out/log" "$Out/cpu"
  compileAll cpu "$Out/cpu/elements-bench"
  bash "$Root/scripts/fetch-meshes.sh" >/dev/null
  Tmp=$(mktemp -d)
  cp "$Root/test/Inputs/meshes/icosahedron.off" "$Tmp/ico.off"
  tetgen -pq1.2a0.01Q "$Tmp/ico.off"
  "$Out/cpu/elements-bench" --small --reps=2 --mesh-dir="$Root/data/meshes" \
    --tets="$Tmp/ico.1"
  ;;
*)
  sed -n '3,16p' "$0"
  exit 2
  ;;
esac
