#!/usr/bin/env bash
#===- scripts/dev/ownership-crosscheck.sh - Ownership both ways, corpus --===#
#
# Runs the plugin with -fplugin-arg-meshad-ownership-crosscheck (issue 10,
# item 2: every gradient kernel's adjoint arrays classified on the primal
# and on the finished function, GPU/OwnershipCrossCheck) over the sources
# under test/ that define a kernel (__global__), over the demos that tests
# compile and the benchmarks that define kernels (each with the include
# folders its build script gives), syntax only, kernels under the CPU
# emulation, and prints each difference (the plugin's warnings `ownership
# cross-check of ...`), then the count per source and in all. Each warning
# is a difference to close or to explain (docs/architecture.md, "Ownership
# on the finished function").
#
# Usage: bash scripts/dev/ownership-crosscheck.sh [build dir [SOURCE...]]
#   SOURCE...: test sources or folders (default: test, then the demos and
#   benchmarks; with SOURCE..., only those)
#
#===----------------------------------------------------------------------===#
set -uo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
Build=${1:-$Root/build}
shift $(( $# < 1 ? $# : 1 ))
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Plugin=$Build/lib/libmeshad.so
[[ -f $Plugin ]] || { echo "no plugin at $Plugin" >&2; exit 1; }

# check SOURCE EXTRA-FLAGS...: the cross-check's warnings for SOURCE.
check() {
  local Src=$1
  shift
  (cd "$Root" && "$Clang" -fsyntax-only -fplugin="$Plugin" \
     -fplugin-arg-meshad-ownership-crosscheck -fplugin-arg-meshad-verify \
     -I include -I test/Inputs -Wno-everything -x c++ -std=c++20 \
     -include meshad/cpu/CudaOnCpu.h "$@" "$Src") 2>&1 |
    grep -E 'ownership cross-check|error:' | sed "s|$Root/||g"
}

Total=0 Sources=0 Differing=0
while read -r Src; do
  Out=$(check "$Src")
  N=$(grep -c 'ownership cross-check' <<< "$Out")
  Sources=$((Sources + 1))
  [[ -n $Out ]] && echo "$Out"
  if (( N > 0 )); then
    Differing=$((Differing + 1))
    Total=$((Total + N))
  fi
done < <(cd "$Root" && grep -rlE '__global__' --include='*.cu' \
           --include='*.cpp' "${@:-test}" | grep -v '/Inputs/' | sort)

(( $# > 0 )) && { echo "$Total differences in $Differing of $Sources sources"; exit 0; }

# checkExtra SOURCE FLAGS...: a demo or benchmark, counted like the tests.
checkExtra() {
  [[ -f $Root/$1 ]] || return 0
  local Out N
  Out=$(check "$@")
  N=$(grep -c 'ownership cross-check' <<< "$Out")
  Sources=$((Sources + 1))
  [[ -n $Out ]] && echo "$Out"
  (( N > 0 )) && Differing=$((Differing + 1)) && Total=$((Total + N))
  return 0
}
while read -r Demo; do
  checkExtra "$Demo" -I "$(dirname "$Demo")"
done < <(cd "$Root" && grep -rlE '__global__' --include='*.cu' demos | sort)
Elements=benchmarks/elements
checkExtra $Elements/kernels.cu -I $Elements
checkExtra benchmarks/ehess/ehess-bench.cu -I $Elements
checkExtra benchmarks/peers/ops.cu -I $Elements -I benchmarks/peers
checkExtra benchmarks/hvp/hvp-bench.cu
checkExtra benchmarks/solve/param-bench.cu -I demos/parameterization
for Splat in bench warp atomics; do
  checkExtra benchmarks/splat/$Splat.cu -I demos/splat -DSPLAT_REAL=float
done

Bench=benchmarks/ownership/patterns.cu
for Variant in "" -DMESHAD_BENCH_KEEP_SEEDS; do
  Out=$(check "$Bench" -I benchmarks/ownership -DMESHAD_TAPE_CAPACITY=64 \
          -DMESHAD_BENCH_NS=bench_meshad $Variant)
  N=$(grep -c 'ownership cross-check' <<< "$Out")
  Sources=$((Sources + 1))
  [[ -n $Out ]] && echo "$Out"
  (( N > 0 )) && Differing=$((Differing + 1)) && Total=$((Total + N))
done
echo "$Total differences in $Differing of $Sources sources"
