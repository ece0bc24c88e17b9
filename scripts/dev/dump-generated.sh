#!/usr/bin/env bash
#===- scripts/dev/dump-generated.sh - The generated code of the corpus ----===#
#
# Dumps what meshad generates for every lit test source under test/ and for
# the ownership benchmark (benchmarks/ownership/patterns.cu, the four builds
# of scripts/gpu/bench.sh) into a folder, one file per source and variant,
# so that a refactoring that must not change the generated code can be
# checked with `diff -r`:
#   <test>.txt         -fplugin-arg-meshad-dump and -remarks (syntax only;
#                      kernels under the CPU emulation, as measure-simplify)
#   <test>.raw.txt     the same with -fplugin-arg-meshad-no-simplify (what
#                      the GPU lowering leaves, before the simplifier);
#                      MESHAD_DUMP_RAW=0 leaves these out
#   <test>.v.<flags>.txt one per other set of the flags that change what is
#                      generated (-D/-U, -fplugin-arg-meshad-atomics=...,
#                      -fplugin-arg-meshad-uniform-sums=...) that the test's
#                      RUN lines give the plugin or meshad-gen, e.g.
#                      <test>.v.atomics_all.DALL_ATOMICS.txt (and .raw.txt)
#   <source>.txt       the sources that a test's RUN lines compile instead
#                      of the test itself (%S/../../demos/<demo>/<demo>.cu,
#                      benchmarks/hessian-sparse/bench.cpp), once each, under
#                      their own paths (and .raw.txt)
#   bench/<variant>.txt  patterns.cu as bench.sh builds it (meshad, atomics,
#                      meshad-keep, atomics-keep; and .raw.txt), and
#                      bench/decisions.txt (the summary bench.sh prints)
# Every source is dumped, forward-only ones included (41 of the 203 test
# sources mention none of gradient, hvp, hessian, pullback), with every
# variant of its RUN lines.
# Every run verifies the IR (-fplugin-arg-meshad-verify). Each source takes
# a few seconds: MESHAD_DUMP_ONLY=REGEX dumps only the sources whose text
# matches it (e.g. 'gradient|hvp|hessian|pullback' for reverse mode and what
# composes over it: 162 of 203 sources).
#
# MESHAD_DUMP_BENCH=0 leaves the benchmark out (when dumping in parts).
#
# Usage: bash scripts/dev/dump-generated.sh OUT-DIR [build dir [SOURCE...]]
#   SOURCE...: only these test sources or folders (paths from the root),
#   e.g. test/ownership test/hvp (the benchmark too, unless
#   MESHAD_DUMP_BENCH=0)
#   e.g. on main:    bash scripts/dev/dump-generated.sh /tmp/gen-main
#        after:      bash scripts/dev/dump-generated.sh /tmp/gen-new
#                    diff -r /tmp/gen-main /tmp/gen-new
#
#===----------------------------------------------------------------------===#
set -uo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
Out=${1:?usage: dump-generated.sh OUT-DIR [build dir]}
Build=${2:-$Root/build}
shift $(( $# < 2 ? $# : 2 ))
Sources=("${@:-test}")
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Plugin=$Build/lib/libmeshad.so
[[ -f $Plugin ]] || { echo "no plugin at $Plugin" >&2; exit 1; }
mkdir -p "$Out"

# dumpOne SOURCE OUTPUT EXTRA-FLAGS...: the plugin's dump and remarks.
dumpOne() {
  local Src=$1 Dst=$2
  shift 2
  local Flags=(-fsyntax-only -fplugin="$Plugin" -fplugin-arg-meshad-dump
               -fplugin-arg-meshad-remarks -fplugin-arg-meshad-verify
               -I"$Root/include" -I"$Root/test/Inputs" -Wno-everything)
  case "$Src" in
    *.cu) Flags+=(-x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h) ;;
    *) Flags+=(-std=c++17) ;;
  esac
  mkdir -p "$(dirname "$Dst")"
  # Paths relative to the root: dumps of two checkouts compare equal.
  (cd "$Root" && "$Clang" "${Flags[@]}" "$@" "${Src#$Root/}") 2>&1 \
    | sed "s|$Root/||g" > "$Dst"
}

# variants SOURCE: one line per distinct non-empty set of the flags that
# change what is generated (-D/-U, -fplugin-arg-meshad-atomics=...,
# -fplugin-arg-meshad-uniform-sums=...) on the RUN lines of SOURCE that run
# the plugin or meshad-gen (continued lines joined), in order.
variants() {
  python3 - "$1" <<'EOF'
import re, sys
Cmds, Cur = [], ''
for Line in open(sys.argv[1], errors='replace').read().splitlines():
    M = re.search(r'RUN:(.*)$', Line)
    if not M:
        continue
    Part = M.group(1).rstrip()
    if Part.endswith('\\'):
        Cur += Part[:-1] + ' '
        continue
    Cmds.append(Cur + Part)
    Cur = ''
Seen = []
for C in Cmds:
    if 'meshad_plugin' not in C and 'meshad_gen' not in C:
        continue
    Flags = re.findall(r'(?<!\S)(-[DU]\S+|-fplugin-arg-meshad-'
                       r'(?:atomics|uniform-sums)=\S+)', C)
    Key = ' '.join(sorted(set(Flags)))
    if Key and Key not in Seen:
        Seen.append(Key)
print('\n'.join(Seen))
EOF
}

# dumpBoth SOURCE OUTPUT-STEM EXTRA-FLAGS...: STEM.txt, and STEM.raw.txt
# without the simplifier (unless MESHAD_DUMP_RAW=0).
dumpBoth() {
  local Src=$1 Stem=$2
  shift 2
  dumpOne "$Src" "$Stem.txt" "$@"
  if [[ ${MESHAD_DUMP_RAW:-1} != 0 ]]; then
    dumpOne "$Src" "$Stem.raw.txt" "$@" -fplugin-arg-meshad-no-simplify
  fi
}

(cd "$Root" && find "${Sources[@]}" \
  \( -name '*.cpp' -o -name '*.cu' -o -name '*.c' \) -not -path '*/Inputs/*') \
  | sed "s|^|$Root/|" | sort | while read -r F; do
  if [[ -n ${MESHAD_DUMP_ONLY:-} ]] && ! grep -Eq "$MESHAD_DUMP_ONLY" "$F"; then
    continue
  fi
  Rel=${F#$Root/}
  dumpBoth "$F" "$Out/$Rel"
  variants "$F" | while read -r Variant; do
    [[ -n $Variant ]] || continue
    Stem=$(echo "$Variant" | sed -E 's/-fplugin-arg-meshad-//g;
                                     s/(^| )-/\1/g; s/ /./g;
                                     s/[^A-Za-z0-9_.]/_/g')
    # shellcheck disable=SC2086 # the flags are words
    dumpBoth "$F" "$Out/$Rel.v.$Stem" $Variant
  done
  # A test that compiles another source (a demo): that source, once.
  grep -oE '%S/[^ ]+\.(cu|cpp)' "$F" | while read -r Other; do
    Other=$(realpath -m "$(dirname "$F")/${Other#%S/}")
    OtherRel=${Other#$Root/}
    [[ -f $Other && ! -f $Out/$OtherRel.txt ]] || continue
    dumpBoth "$Other" "$Out/$OtherRel"
  done
done

[[ ${MESHAD_DUMP_BENCH:-1} == 0 ]] && {
  echo "dumped $(find "$Out" -type f | wc -l) files into $Out"
  exit 0
}
Bench=$Root/benchmarks/ownership
Common=(-I"$Bench" -DMESHAD_TAPE_CAPACITY=64)
Atomics=(-DMESHAD_BENCH_ATOMICS_ALL -fplugin-arg-meshad-atomics=all)
Keep=(-DMESHAD_BENCH_KEEP_SEEDS)
dumpBoth "$Bench/patterns.cu" "$Out/bench/meshad" "${Common[@]}" \
  -DMESHAD_BENCH_NS=bench_meshad
dumpBoth "$Bench/patterns.cu" "$Out/bench/atomics" "${Common[@]}" \
  -DMESHAD_BENCH_NS=bench_atomics "${Atomics[@]}"
dumpBoth "$Bench/patterns.cu" "$Out/bench/meshad-keep" "${Common[@]}" \
  -DMESHAD_BENCH_NS=bench_meshad_keep "${Keep[@]}"
dumpBoth "$Bench/patterns.cu" "$Out/bench/atomics-keep" "${Common[@]}" \
  -DMESHAD_BENCH_NS=bench_atomics_keep "${Keep[@]}" "${Atomics[@]}"
# decisions.txt as bench.sh summarizes it, from the dumps.
Summary=$(sed -n '/^summarize() {/,/^}$/p' "$Root/scripts/gpu/bench.sh")
eval "$Summary"
for Variant in meshad atomics meshad-keep atomics-keep; do
  echo "$Variant: adjoint stores per gradient kernel:"
  summarize "$Out/bench/$Variant.txt"
done > "$Out/bench/decisions.txt"
echo "dumped $(find "$Out" -type f | wc -l) files into $Out"
