#!/usr/bin/env bash
#===- scripts/dev/compare-generated.sh - Generated code, before and after -===#
#
# Compares what two builds of the plugin generate (dump-generated.sh: the
# dump and remarks, simplified and raw, every variant of the RUN lines) for
# the lit sources, one source at a time with both builds in turn, so that a
# run cut short still leaves complete pairs:
#   OUT/base/..., OUT/new/...   the dumps of BASE-BUILD and NEW-BUILD
#   OUT/summary.txt             one line per dump file: `identical PATH`,
#                               `moved PATH` or `changed PATH`, then the
#                               totals
# MESHAD_COMPARE_MOVED=REGEX: lines matching REGEX may move (a change that
# moves declarations by design, e.g. ' \*_z[0-9]+ = \{\};$'): a file whose
# two dumps have the same such lines, in any order, and are identical
# without them is `moved`, not `changed`.
# Both builds dump the same sources (this checkout's): compare plugins, not
# tests whose line numbers moved. The ownership benchmark (patterns.cu, the
# four builds of bench.sh) is compared last unless MESHAD_DUMP_BENCH=0.
#
# Usage: bash scripts/dev/compare-generated.sh OUT BASE-BUILD NEW-BUILD
#                                              [SOURCE...]
#   BASE-BUILD, NEW-BUILD: folders holding lib/libmeshad.so (a copy of
#   main's plugin, e.g. /tmp/base/lib/libmeshad.so, and build/)
#   SOURCE...: test sources or folders in the order to compare them (a
#   source named twice is compared once; default: test), e.g. the kernel
#   gradients first, then test. MESHAD_DUMP_ONLY filters as in
#   dump-generated.sh.
#
#===----------------------------------------------------------------------===#
set -uo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
Out=${1:?usage: compare-generated.sh OUT BASE-BUILD NEW-BUILD [SOURCE...]}
Base=${2:?no base build}
New=${3:?no new build}
shift 3
Dump=$Root/scripts/dev/dump-generated.sh
mkdir -p "$Out/base" "$Out/new"
Summary=$Out/summary.txt
: > "$Summary"

# movedOnly BASE NEW: true when the two differ only in where the lines
# that match MESHAD_COMPARE_MOVED are.
movedOnly() {
  local Moved=${MESHAD_COMPARE_MOVED:-}
  [[ -n $Moved && -f $2 ]] || return 1
  cmp -s <(grep -Ev -- "$Moved" "$1") <(grep -Ev -- "$Moved" "$2") &&
    cmp -s <(grep -E -- "$Moved" "$1" | sort) <(grep -E -- "$Moved" "$2" | sort)
}

# compareFiles PATTERN: one summary line per base dump file under PATTERN.
compareFiles() {
  local File Rel
  for File in $1; do
    [[ -f $File ]] || continue
    Rel=${File#$Out/base/}
    if cmp -s "$File" "$Out/new/$Rel"; then
      echo "identical $Rel"
    elif movedOnly "$File" "$Out/new/$Rel"; then
      echo "moved $Rel"
    else
      echo "changed $Rel"
    fi >> "$Summary"
  done
}

(cd "$Root" && find "${@:-test}" \( -name '*.cpp' -o -name '*.cu' -o \
  -name '*.c' \) -not -path '*/Inputs/*') | awk '!Seen[$0]++' |
while read -r Src; do
  if [[ -n ${MESHAD_DUMP_ONLY:-} ]] &&
     ! grep -Eq "$MESHAD_DUMP_ONLY" "$Root/$Src"; then
    continue
  fi
  for Side in base new; do
    Build=$Base
    [[ $Side == new ]] && Build=$New
    MESHAD_DUMP_BENCH=0 MESHAD_DUMP_ONLY= \
      bash "$Dump" "$Out/$Side" "$Build" "$Src" > /dev/null
  done
  compareFiles "$Out/base/$Src.*"
done

if [[ ${MESHAD_DUMP_BENCH:-1} != 0 ]]; then
  # Only the benchmark: a pattern that no source matches.
  for Side in base new; do
    Build=$Base
    [[ $Side == new ]] && Build=$New
    MESHAD_DUMP_ONLY='NO-SOURCE-HAS-THIS-e0f1' bash "$Dump" "$Out/$Side" "$Build" > /dev/null
  done
  compareFiles "$Out/base/bench/*"
fi
# The sources that tests compile instead of themselves (demos), once each.
compareFiles "$(cd "$Out/base" && find . -type f -not -path './test/*' \
  -not -path './bench/*' | sed "s|^\./|$Out/base/|" | tr '\n' ' ')"

Same=$(grep -c '^identical' "$Summary")
Moved=$(grep -c '^moved' "$Summary")
Changed=$(grep -c '^changed' "$Summary")
echo "$Same identical, $Moved moved, $Changed changed" | tee -a "$Summary"
