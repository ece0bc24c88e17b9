#!/usr/bin/env bash
#===- scripts/gpu/peers-bench.sh - meshad against JAX and PyTorch --------===#
#
#   bash scripts/gpu/peers-bench.sh build   here: compile (clang + plugin),
#                                           prepare the meshes, copy the
#                                           python scripts
#   bash scripts/gpu/peers-bench.sh run [--quick]   on the GPU machine: one
#                                           command, ~6 minutes, the table last
#   bash scripts/gpu/peers-bench.sh cpu     here: tiny sizes on the CPU
#                                           emulation and the CPU peers, and
#                                           selftest.py (synthetic CSVs)
#
# build writes .gpu/peers/ (git-ignored): bin/peers-meshad and the python
# scripts of benchmarks/peers, log/ (the compiler's output with meshad's
# remarks and the generated code), data/ (camel.off; armadillo's tets, as
# scripts/gpu/elements-bench.sh makes them). run: peers-meshad times meshad
# and the hand-written kernels on three energies at three sizes each and
# exports the problems, then peers.py times JAX and PyTorch on them (one
# process each, a time budget each), then table.py prints the tables; CSVs,
# tables and (when matplotlib imports) plots go to $OUT (default
# .gpu/peers/out). --quick: the smallest size of each energy only.
# Environment: MESHAD_BUILD_DIR, MESHAD_CLANG, CUDA_PATH, MESHAD_GPU_ARCH as
# for scripts/gpu/build.sh; PEERS_BUDGET_JAX, PEERS_BUDGET_TORCH (seconds,
# default 140 and 190); PEERS_FRAMEWORKS (default "jax torch").
#
#===----------------------------------------------------------------------===#
set -euo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Cuda=${CUDA_PATH:-/usr/local/cuda}
Arch=${MESHAD_GPU_ARCH:-sm_90}
Dir=$Root/.gpu/peers
Src=$Root/benchmarks/peers
Python=(peers.py peers_jax.py peers_torch.py local_energies.py table.py plot.py
        selftest.py)

compileAll() { # MODE BIN
  local Mode=$1 Bin=$2 Obj
  Obj=$(mktemp -d)
  local Flags=(-O2 -I"$Root/include" -I"$Root/benchmarks/elements" -I"$Src")
  if [[ $Mode == gpu ]]; then
    Flags+=(-x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version
            --cuda-gpu-arch="$Arch" -I"$Cuda/include/cccl")
  else
    Flags+=(-x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h -pthread)
  fi
  "$Clang" "${Flags[@]}" -fplugin="$BuildDir/lib/libmeshad.so" \
    -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -c "$Src/ops.cu" \
    -o "$Obj/ops.o" >"$Dir/log/ops.$Mode.build" 2>&1 ||
    { tail -20 "$Dir/log/ops.$Mode.build"; return 1; }
  "$Clang" "${Flags[@]}" -c "$Src/main.cu" -o "$Obj/main.o"
  "$Clang" "${Flags[@]}" -c "$Root/benchmarks/elements/handwritten.cu" \
    -o "$Obj/handwritten.o"
  if [[ $Mode == gpu ]]; then
    "$Clang" "$Obj"/*.o -L"$Cuda/lib64" -lcudart_static -ldl -lrt -pthread \
      -o "$Bin"
  else
    "$Clang" "$Obj"/*.o -pthread -o "$Bin"
  fi
  rm -rf "$Obj"
}

prepareData() {
  mkdir -p "$Dir/data"
  bash "$Root/scripts/fetch-meshes.sh" >/dev/null
  cp "$Root/data/meshes/camel.off" "$Dir/data/"
  [[ -s $Dir/data/armadillo.1.ele.gz ]] && return
  local Elements=$Root/.gpu/elements/data
  if [[ -s $Elements/armadillo.1.ele.gz ]]; then
    cp "$Elements"/armadillo.1.{node,ele}.gz "$Dir/data/"
    return
  fi
  local Tmp
  Tmp=$(mktemp -d)
  cp "$Root/data/meshes/armadillo.off" "$Tmp/"
  tetgen -pq1.3Q "$Tmp/armadillo.off"
  gzip -c "$Tmp/armadillo.1.node" >"$Dir/data/armadillo.1.node.gz"
  gzip -c "$Tmp/armadillo.1.ele" >"$Dir/data/armadillo.1.ele.gz"
  rm -rf "$Tmp"
}

# runAll BIN MESHDIR TETS OUT PYTHONFLAGS... : meshad, the peers, the table.
runAll() {
  local Bin=$1 MeshDir=$2 Tets=$3 Res=$4 Tmp
  shift 4
  Tmp=$(mktemp -d)
  mkdir -p "$Res" "$Tmp/export"
  rm -f "$Res"/*.csv
  local Start=$SECONDS
  "$Bin" "${MeshadFlags[@]}" --mesh-dir="$MeshDir" --tets="$Tets" \
    --export="$Tmp/export" --csv="$Res/meshad.csv" ||
    echo "peers-meshad: checks failed"
  echo "meshad: $((SECONDS - Start)) s"
  for Fw in ${PEERS_FRAMEWORKS:-jax torch}; do
    Start=$SECONDS
    if "$Py" -c "import $Fw" 2>/dev/null; then
      "$Py" "$PyDir/peers.py" "$Tmp/export" --framework=$Fw \
        --csv="$Res/$Fw.csv" "$@" "${PeerFlags[@]}" \
        --budget="${Budgets[$Fw]}" || echo "peers.py $Fw failed"
    else
      echo "$Fw is not installed: skipped"
    fi
    echo "$Fw: $((SECONDS - Start)) s"
  done
  rm -rf "$Tmp"
  if "$Py" -c "import matplotlib" 2>/dev/null; then
    "$Py" "$PyDir/plot.py" "$Res" "$Res/plots" >/dev/null ||
      echo "plot.py failed"
  fi
  "$Py" "$PyDir/table.py" "$Res" | tee "$Res/table.md"
}

declare -A Budgets=([jax]=${PEERS_BUDGET_JAX:-140}
                   [torch]=${PEERS_BUDGET_TORCH:-190})
Py=${PYTHON:-python3}
case ${1:-} in
build)
  mkdir -p "$Dir/bin" "$Dir/log"
  compileAll gpu "$Dir/bin/peers-meshad"
  prepareData
  for F in "${Python[@]}"; do cp "$Src/$F" "$Dir/bin/"; done
  du -sh "$Dir"
  ;;
run)
  Res=${OUT:-$Dir/out}
  MeshadFlags=(--reps=20 --reps-large=10)
  PeerFlags=(--reps=10 --reps-large=10)
  if [[ ${2:-} == --quick ]]; then
    MeshadFlags=(--reps=10 --reps-large=10 --only=-1)
    PeerFlags=(--reps=10 --reps-large=10)
  fi
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  Tmp=$(mktemp -d)
  gunzip -c "$Dir/data/armadillo.1.node.gz" >"$Tmp/armadillo.1.node"
  gunzip -c "$Dir/data/armadillo.1.ele.gz" >"$Tmp/armadillo.1.ele"
  PyDir=$Dir/bin
  runAll "$Dir/bin/peers-meshad" "$Dir/data" "$Tmp/armadillo.1" "$Res"
  rm -rf "$Tmp"
  ;;
cpu)
  mkdir -p "$Dir/log" "$Dir/cpu"
  compileAll cpu "$Dir/cpu/peers-meshad"
  bash "$Root/scripts/fetch-meshes.sh" >/dev/null
  Tmp=$(mktemp -d)
  cp "$Root/test/Inputs/meshes/icosahedron.off" "$Tmp/ico.off"
  tetgen -pq1.2a0.01Q "$Tmp/ico.off" >/dev/null
  MeshadFlags=(--small --reps=2 --reps-large=2)
  PeerFlags=(--cpu --reps=2 --reps-large=2 --no-compile)
  PyDir=$Src
  runAll "$Dir/cpu/peers-meshad" "$Root/data/meshes" "$Tmp/ico.1" "$Dir/cpu/out"
  rm -rf "$Tmp"
  "$Py" "$Src/selftest.py" "$Dir/cpu/selftest" # table.py and plot.py
  ;;
*)
  sed -n '3,25p' "$0"
  exit 2
  ;;
esac
