#!/usr/bin/env bash
#===- scripts/gpu/run.sh - Run the GPU test suite ------------------------===#
#
# Runs on the GPU machine (no LLVM needed) every executable that
# scripts/gpu/build.sh put into .gpu/bin: a binary passes when it exits with
# 0, prints at least one PASS line and no FAIL line. Then, when
# compute-sanitizer is available (PATH or $CUDA_PATH/bin) and
# MESHAD_GPU_MEMCHECK is not 0, runs each again under
# `compute-sanitizer --tool memcheck`, which passes when it reports no error.
# Outputs go to .gpu/log/<name>.run and <name>.memcheck. The LAST line is
#   N passed, N failed
# (runs plus memchecks); exits non-zero when anything failed.
# Environment:
#   MESHAD_GPU_MEMCHECK  0 skips the memcheck runs (default: 1)
#   MESHAD_GPU_TIMEOUT   seconds per run (default: 300)
#
#===----------------------------------------------------------------------===#
set -uo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
Bin=$Root/.gpu/bin
Log=$Root/.gpu/log
Timeout=${MESHAD_GPU_TIMEOUT:-300}
mkdir -p "$Log"

Sanitizer=$(command -v compute-sanitizer || true)
if [[ -z $Sanitizer && -x ${CUDA_PATH:-/usr/local/cuda}/bin/compute-sanitizer ]]; then
  Sanitizer=${CUDA_PATH:-/usr/local/cuda}/bin/compute-sanitizer
fi
if [[ ${MESHAD_GPU_MEMCHECK:-1} == 0 ]]; then
  Sanitizer=
fi
[[ -z $Sanitizer ]] && echo "note: memcheck runs skipped (no compute-sanitizer or MESHAD_GPU_MEMCHECK=0)"

Passed=0
Failed=0
ChecksPassed=0
ChecksFailed=0
shopt -s nullglob
Binaries=("$Bin"/*)
if [[ ${#Binaries[@]} -eq 0 ]]; then
  echo "run.sh: nothing in $Bin (run scripts/gpu/build.sh first)"
  echo "0 passed, 1 failed"
  exit 1
fi
for B in "${Binaries[@]}"; do
  Name=$(basename "$B")
  timeout "$Timeout" "$B" >"$Log/$Name.run" 2>&1
  Rc=$?
  P=$(grep -c '^PASS' "$Log/$Name.run")
  F=$(grep -c '^FAIL' "$Log/$Name.run")
  ChecksPassed=$((ChecksPassed + P))
  ChecksFailed=$((ChecksFailed + F))
  if [[ $Rc -eq 0 && $F -eq 0 && $P -gt 0 ]]; then
    echo "PASS $Name ($P checks)"
    Passed=$((Passed + 1))
  else
    echo "FAIL $Name (exit $Rc, $P checks passed, $F failed; .gpu/log/$Name.run)"
    grep -m 5 '^FAIL' "$Log/$Name.run" | sed 's/^/    /'
    Failed=$((Failed + 1))
  fi
  if [[ -n $Sanitizer ]]; then
    timeout "$Timeout" "$Sanitizer" --tool memcheck --error-exitcode 99 \
      "$B" >"$Log/$Name.memcheck" 2>&1
    Rc=$?
    if [[ $Rc -eq 0 ]]; then
      echo "PASS memcheck $Name"
      Passed=$((Passed + 1))
    else
      echo "FAIL memcheck $Name (exit $Rc; .gpu/log/$Name.memcheck)"
      grep -m 5 -E '=+ (Invalid|ERROR|Error)' "$Log/$Name.memcheck" | sed 's/^/    /'
      Failed=$((Failed + 1))
    fi
  fi
done

echo "numeric checks: $ChecksPassed passed, $ChecksFailed failed"
echo "$Passed passed, $Failed failed"
[[ $Failed -eq 0 ]]
