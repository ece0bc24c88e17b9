#!/usr/bin/env bash
#===- scripts/gpu/bench.sh - Build and run the ownership benchmark -------===#
#
# The benchmark of issue 4 (benchmarks/ownership): for six access patterns,
# the gradient kernel with atomics everywhere, with meshad's ownership
# decisions, and written by hand, timed in one process on the same inputs.
#
#   bash scripts/gpu/bench.sh build        here (clang + plugin, no GPU needed)
#   bash scripts/gpu/bench.sh run [ARGS]   on the GPU machine (runs the binary
#                                          only; ARGS go to it, e.g. --reps=50
#                                          --only=splat,mesh; --help lists them)
#   bash scripts/gpu/bench.sh cpu [ARGS]   here: builds the same sources under
#                                          the CUDA-on-CPU emulation and runs
#                                          them with --small (correctness only)
#
# build writes into the git-ignored folder .gpu/bench/:
#   bin/ownership-bench      the benchmark (cudart linked statically)
#   log/<object>.build       compiler output, with the meshad remarks (one per
#                            adjoint store: plain, block reduction, atomic...)
#   log/meshad/patterns.cu   the augmented source with meshad's gradients
#   log/atomics/patterns.cu  the same compiled with the atomics=all option
#   log/meshad-keep/, log/atomics-keep/  the same two with meshad::KeepSeeds
#                            (the output seeds are only read, as in the
#                            hand-written gradients)
#   log/decisions.txt        per gradient kernel: plain +=, atomicAdd, block
#                            reductions, tapes... (also printed by build)
# run prints the checks, then a markdown table last, and keeps a copy in
# log/bench.run; it exits non-zero when a gradient check failed.
# patterns.cu is compiled four times (namespaces bench_meshad, bench_atomics,
# bench_meshad_keep, bench_atomics_keep).
#
# Environment:
#   MESHAD_BUILD_DIR   build directory with lib/libmeshad.so (default: build)
#   MESHAD_CLANG       clang++ (default: /usr/lib/llvm-22/bin/clang++)
#   CUDA_PATH          CUDA toolkit (default: /usr/local/cuda)
#   MESHAD_GPU_ARCH    GPU architecture (default: sm_90, H100/H200)
#   MESHAD_GPU_OUT     instead of .gpu (the benchmark goes to its bench/)
#   MESHAD_TAPE_CAPACITY  per-thread tape size of meshad's gradients (the
#                         benchmark's need none)
#                      (default 64: --splat-k may not exceed it)
#   MESHAD_BENCH_PLUGIN_FLAGS  more plugin options for every build (e.g.
#                      -fplugin-arg-meshad-no-simplify, to time the code
#                      without the simplifier)
#   MESHAD_BENCH_ATOMICS_FLAG  the plugin option forcing atomics (default
#                      -fplugin-arg-meshad-atomics=all). Set it empty only to
#                      try the build before that option exists: the
#                      all-atomics column is then meshad's default code, and
#                      the binary says so.
#
#===----------------------------------------------------------------------===#
set -uo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Plugin=$BuildDir/lib/libmeshad.so
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Cuda=${CUDA_PATH:-/usr/local/cuda}
Arch=${MESHAD_GPU_ARCH:-sm_90}
Out=${MESHAD_GPU_OUT:-$Root/.gpu}/bench
Src=$Root/benchmarks/ownership
Tape=${MESHAD_TAPE_CAPACITY:-64}
AtomicsFlag=${MESHAD_BENCH_ATOMICS_FLAG--fplugin-arg-meshad-atomics=all}
Bin=$Out/bin/ownership-bench

usage() {
  sed -n '/^#   bash/,/^#$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
}

# compile NAME SOURCE FLAGS...: one object into $Obj/NAME.o, its output in
# $Log/NAME.build; says what failed.
compile() {
  local Name=$1 Source=$2
  shift 2
  if "$Clang" "$@" -c "$Source" -o "$Obj/$Name.o" >"$Log/$Name.build" 2>&1; then
    echo "built  $Name"
  else
    echo "FAILED $Name (see $Log/$Name.build):"
    grep -m 8 'error' "$Log/$Name.build" | sed 's/^/    /'
    Failed=1
  fi
}

# build MODE: MODE gpu (clang -x cuda) or cpu (the CUDA-on-CPU emulation).
build() {
  local Mode=$1
  if [[ ! -f $Plugin ]]; then
    echo "bench.sh: no plugin at $Plugin (set MESHAD_BUILD_DIR or build the" \
      "'meshad' target)" >&2
    exit 1
  fi
  local Dir=$Out
  [[ $Mode == cpu ]] && Dir=$Out/cpu
  Obj=$Dir/obj
  Log=$Dir/log
  rm -rf "$Obj" "$Log" "$Dir/bin"
  mkdir -p "$Obj" "$Log/meshad" "$Log/atomics" "$Log/meshad-keep" \
    "$Log/atomics-keep" "$Dir/bin"
  local Lang=(-x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version
    --cuda-gpu-arch="$Arch" -O3)
  local Link=(-L"$Cuda/lib64" -lcudart_static -ldl -lrt -pthread)
  if [[ $Mode == cpu ]]; then
    Lang=(-x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h -O1 -pthread)
    Link=(-pthread)
  fi
  local Common=(-Wall -I"$Root/include" -I"$Src" -DMESHAD_TAPE_CAPACITY="$Tape")
  local Meshad=(-fplugin="$Plugin" -fplugin-arg-meshad-remarks
                ${MESHAD_BENCH_PLUGIN_FLAGS:-})
  local MainDefs=()
  local Atomics=(-DMESHAD_BENCH_ATOMICS_ALL)
  if [[ -n $AtomicsFlag ]]; then
    Atomics+=("$AtomicsFlag")
  else
    echo "WARNING: MESHAD_BENCH_ATOMICS_FLAG is empty: all-atomics = meshad"
    MainDefs+=(-DMESHAD_BENCH_ATOMICS_FLAG_MISSING)
  fi
  Failed=0
  compile patterns-meshad "$Src/patterns.cu" "${Lang[@]}" "${Common[@]}" \
    "${Meshad[@]}" -fplugin-arg-meshad-dump-dir="$Log/meshad" \
    -DMESHAD_BENCH_NS=bench_meshad
  compile patterns-atomics "$Src/patterns.cu" "${Lang[@]}" "${Common[@]}" \
    "${Meshad[@]}" -fplugin-arg-meshad-dump-dir="$Log/atomics" \
    -DMESHAD_BENCH_NS=bench_atomics "${Atomics[@]}"
  compile patterns-meshad-keep "$Src/patterns.cu" "${Lang[@]}" "${Common[@]}" \
    "${Meshad[@]}" -fplugin-arg-meshad-dump-dir="$Log/meshad-keep" \
    -DMESHAD_BENCH_NS=bench_meshad_keep -DMESHAD_BENCH_KEEP_SEEDS
  compile patterns-atomics-keep "$Src/patterns.cu" "${Lang[@]}" "${Common[@]}" \
    "${Meshad[@]}" -fplugin-arg-meshad-dump-dir="$Log/atomics-keep" \
    -DMESHAD_BENCH_NS=bench_atomics_keep -DMESHAD_BENCH_KEEP_SEEDS \
    "${Atomics[@]}"
  compile handwritten "$Src/handwritten.cu" "${Lang[@]}" "${Common[@]}"
  compile main "$Src/main.cu" "${Lang[@]}" "${Common[@]}" "${MainDefs[@]}"
  if [[ $Failed -ne 0 ]]; then
    echo "bench.sh: build failed"
    exit 1
  fi
  if "$Clang" "$Obj"/*.o "${Link[@]}" -o "$Dir/bin/ownership-bench" \
      >"$Log/link.build" 2>&1; then
    echo "linked $Dir/bin/ownership-bench"
  else
    echo "FAILED link (see $Log/link.build):"
    sed -n 1,8p "$Log/link.build" | sed 's/^/    /'
    exit 1
  fi
  # Where the adjoint stores went, per generated kernel.
  for Variant in meshad atomics meshad-keep atomics-keep; do
    echo "$Variant: adjoint stores per gradient kernel:"
    summarize "$Log/$Variant/patterns.cu"
  done | tee "$Log/decisions.txt"
}

# summarize FILE: per generated __global__ gradient kernel, how its adjoint
# stores look: `_d_...[...] +=` (plain), atomicAdd into an adjoint, the meshad
# runtime helpers it calls (blockReduceAtomicAdd, warpAtomicAdd,
# warpUniformAdd: a reverse loop in step with per-warp sums, blockUniformAdds:
# the same per block, tile..., push:
# tape), and atomicAdds of the forward sweep (the primal's own).
summarize() {
  awk '
    /^__global__ void .*_grad.*\) \{$/ {
      name = $3; sub(/\(.*/, "", name); inside = 1; delete n; next }
    !inside { next }
    /^}$/ {
      inside = 0; line = sprintf("  %-24s", name)
      split("plain+= atomicAdd blockReduceAtomicAdd warpAtomicAdd warpUniformAdd " \
            "blockUniformAdds " \
            "tileWriteBack push forward-atomicAdd", order, " ")
      for (i = 1; i in order; i++)
        if (order[i] in n) { line = line sprintf(" %s %d,", order[i], n[order[i]]); delete n[order[i]] }
      for (k in n) line = line sprintf(" %s %d,", k, n[k])
      sub(/,$/, "", line); print line; next }
    {
      s = $0
      while (match(s, /meshad::[A-Za-z0-9_]+/)) {
        n[substr(s, RSTART + 8, RLENGTH - 8)]++; s = substr(s, RSTART + RLENGTH) }
      if ($0 ~ /(^|[^A-Za-z_])atomicAdd\(&?_d_/) n["atomicAdd"]++
      else if ($0 ~ /(^|[^A-Za-z_])atomicAdd\(/) n["forward-atomicAdd"]++
      if ($0 ~ /_d_[A-Za-z0-9_]*\[[^]]*\] \+=/) n["plain+="]++
    }
  ' "$1"
}

Command=${1:-}
[[ $# -gt 0 ]] && shift
case $Command in
build)
  build gpu
  ;;
cpu)
  build cpu
  "$Out/cpu/bin/ownership-bench" --small "$@" 2>&1 | tee "$Out/cpu/log/bench.run"
  exit "${PIPESTATUS[0]}"
  ;;
run)
  if [[ ! -x $Bin ]]; then
    echo "bench.sh: no $Bin (run 'bash scripts/gpu/bench.sh build' first)" >&2
    exit 1
  fi
  mkdir -p "$Out/log"
  "$Bin" "$@" 2>&1 | tee "$Out/log/bench.run"
  exit "${PIPESTATUS[0]}"
  ;;
*)
  usage
  ;;
esac
