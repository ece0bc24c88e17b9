#!/usr/bin/env bash
#===- scripts/gpu/splat-bench.sh - The rasterizer backward benchmark -----===#
#
#   bash scripts/gpu/splat-bench.sh build   here: compile (clang + plugin) the
#                                           fp32 and fp64 binaries
#   bash scripts/gpu/splat-bench.sh run     on the GPU machine: 1024x1024 with
#                                           10k, 100k, 1M Gaussians, fp32 and
#                                           fp64, then PyTorch; one table last
#   bash scripts/gpu/splat-bench.sh cpu     here: a tiny scene on the CPU
#                                           emulation (a smoke test)
#
# build writes .gpu/splat/ (git-ignored): bin/splat-bench-{fp32,fp64},
# bin/splat_torch.py, log/ (the compiler's output with meshad's remarks and
# the generated gradients). run times the hand-written backward
# (demos/splat/SplatBackward.h), meshad's gradient (sums per warp), the same
# with meshad::AfterPrimal (meshad-after: no forward loop), the same with
# uniform-sums=warp spelled out (warp.cu) and meshad's all-atomics gradient,
# without and with AfterPrimal (benchmarks/splat/bench.cu: 3 warm-ups, median of REPS runs,
# CUDA events), and PyTorch autograd of the same rasterizer
# (benchmarks/splat/splat_torch.py, skipped with a note when torch is
# missing), whose gradient is checked against the hand-written one.
# Environment: MESHAD_BUILD_DIR, MESHAD_CLANG, CUDA_PATH, MESHAD_GPU_ARCH as
# for scripts/gpu/build.sh; REPS (default 20), SIZES (default
# "10000 100000 1000000").
#
#===----------------------------------------------------------------------===#
set -euo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Cuda=${CUDA_PATH:-/usr/local/cuda}
Arch=${MESHAD_GPU_ARCH:-sm_90}
Out=$Root/.gpu/splat
Src=$Root/benchmarks/splat
Demo=$Root/demos/splat

compileAll() { # MODE (gpu or cpu), REAL (float or double), BIN
  local Mode=$1 Real=$2 Bin=$3 Obj
  Obj=$(mktemp -d)
  local Flags=(-O2 -I"$Root/include" -I"$Demo" -DSPLAT_REAL="$Real")
  if [[ $Mode == gpu ]]; then
    Flags+=(-x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version
            --cuda-gpu-arch="$Arch" -I"$Cuda/include/cccl")
  else
    Flags+=(-x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h -pthread)
  fi
  local Plugin=(-fplugin="$BuildDir/lib/libmeshad.so" -fplugin-arg-meshad-dump
                -fplugin-arg-meshad-remarks)
  "$Clang" "${Flags[@]}" "${Plugin[@]}" -c "$Src/bench.cu" \
    -o "$Obj/bench.o" >"$Out/log/bench.$Mode.$Real.build" 2>&1 ||
    { tail -20 "$Out/log/bench.$Mode.$Real.build"; return 1; }
  "$Clang" "${Flags[@]}" "${Plugin[@]}" -fplugin-arg-meshad-uniform-sums=warp \
    -c "$Src/warp.cu" -o "$Obj/warp.o" >"$Out/log/warp.$Mode.$Real.build" 2>&1 ||
    { tail -20 "$Out/log/warp.$Mode.$Real.build"; return 1; }
  "$Clang" "${Flags[@]}" "${Plugin[@]}" -fplugin-arg-meshad-atomics=all \
    -c "$Src/atomics.cu" -o "$Obj/atomics.o" \
    >"$Out/log/atomics.$Mode.$Real.build" 2>&1 ||
    { tail -20 "$Out/log/atomics.$Mode.$Real.build"; return 1; }
  if [[ $Mode == gpu ]]; then
    "$Clang" "$Obj"/*.o -L"$Cuda/lib64" -lcudart_static -ldl -lrt -pthread \
      -o "$Bin"
  else
    "$Clang" "$Obj"/*.o -pthread -o "$Bin"
  fi
  rm -rf "$Obj"
}

case ${1:-} in
build)
  mkdir -p "$Out/bin" "$Out/log"
  compileAll gpu float "$Out/bin/splat-bench-fp32"
  compileAll gpu double "$Out/bin/splat-bench-fp64"
  cp "$Src/splat_torch.py" "$Out/bin/"
  du -sh "$Out"
  ;;
run)
  Reps=${REPS:-20}
  Sizes=${SIZES:-"10000 100000 1000000"}
  Table=$(mktemp)
  for Ty in fp32 fp64; do
    for N in $Sizes; do
      Dir=$(mktemp -d)
      "$Out/bin/splat-bench-$Ty" --gaussians="$N" --reps="$Reps" \
        --export="$Dir" | tee /dev/stderr | grep -v '^#' | grep -v '^type' \
        >>"$Table"
      if python3 -c 'import torch' 2>/dev/null; then
        python3 "$Out/bin/splat_torch.py" "$Dir" --reps="$Reps" |
          tee /dev/stderr | grep -v '^#' >>"$Table" ||
          echo "# splat_torch.py failed for $Ty $N" >&2
      else
        echo "# PyTorch not installed: its rows are skipped" >&2
      fi
      rm -rf "$Dir"
    done
  done
  echo
  echo "# backward of renderTiles, 1024x1024 (median ms; vs hand = / handwritten)"
  printf "%-8s %-5s %-10s %-16s %10s %10s %12s\n" type size gaussians \
    variant ms "vs hand" "rel. error"
  cat "$Table"
  rm -f "$Table"
  ;;
cpu)
  mkdir -p "$Out/bin" "$Out/log"
  compileAll cpu double "$Out/bin/splat-bench-cpu"
  "$Out/bin/splat-bench-cpu" --width=64 --height=48 --gaussians=60 --reps=2
  ;;
*)
  sed -n '3,24p' "$0"
  exit 2
  ;;
esac
