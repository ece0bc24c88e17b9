#!/usr/bin/env bash
#===- scripts/gpu/run.sh - Run the GPU test suite ------------------------===#
#
# Runs on the GPU machine (no LLVM needed) every executable that
# scripts/gpu/build.sh put into .gpu/bin: a binary passes when it exits with
# 0, prints at least one PASS line and no FAIL line. Then, when
# compute-sanitizer is available (PATH or $CUDA_PATH/bin), runs each again
# under `compute-sanitizer --tool memcheck` and `--tool racecheck` (shared
# memory hazards), which pass when they report no error or hazard (whatever
# the program's exit status: that is the plain run's verdict).
# Outputs go to .gpu/log/<name>.run, <name>.memcheck, <name>.racecheck. The
# LAST line is
#   N passed, N failed
# (runs plus sanitizer runs); exits non-zero when anything failed.
# Environment:
#   MESHAD_GPU_SANITIZERS  sanitizer tools to run (default: "memcheck
#                          racecheck"; empty: none)
#   MESHAD_GPU_TIMEOUT   seconds per run (default: 300)
#   MESHAD_GPU_OUT       the folder build.sh wrote (default: .gpu)
#
#===----------------------------------------------------------------------===#
set -uo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
Out=${MESHAD_GPU_OUT:-$Root/.gpu}
Bin=$Out/bin
Log=$Out/log
Timeout=${MESHAD_GPU_TIMEOUT:-300}
mkdir -p "$Log"

Sanitizer=$(command -v compute-sanitizer || true)
if [[ -z $Sanitizer && -x ${CUDA_PATH:-/usr/local/cuda}/bin/compute-sanitizer ]]; then
  Sanitizer=${CUDA_PATH:-/usr/local/cuda}/bin/compute-sanitizer
fi
Tools=${MESHAD_GPU_SANITIZERS-memcheck racecheck}
[[ -z $Tools ]] && Sanitizer=
[[ -z $Sanitizer ]] && echo "note: sanitizer runs skipped (no compute-sanitizer or MESHAD_GPU_SANITIZERS empty)"

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
    echo "FAIL $Name (exit $Rc, $P checks passed, $F failed; $Log/$Name.run)"
    grep -m 5 '^FAIL' "$Log/$Name.run" | sed 's/^/    /'
    Failed=$((Failed + 1))
  fi
  [[ -z $Sanitizer ]] && continue
  for Tool in $Tools; do
    timeout "$Timeout" "$Sanitizer" --tool "$Tool" --error-exitcode 99 \
      "$B" >"$Log/$Name.$Tool" 2>&1
    Rc=$?
    # The program's own exit status is the plain run's business: a sanitizer
    # run passes when it reached its summary and found no error or hazard.
    if [[ $Rc -ne 99 && $Rc -ne 124 ]] &&
        grep -qE 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards' \
          "$Log/$Name.$Tool"; then
      echo "PASS $Tool $Name"
      Passed=$((Passed + 1))
    else
      echo "FAIL $Tool $Name (exit $Rc; $Log/$Name.$Tool)"
      grep -m 5 -E '=+ (Invalid|ERROR|Error|Race|Warning)' "$Log/$Name.$Tool" |
        sed 's/^/    /'
      Failed=$((Failed + 1))
    fi
  done
done

echo "numeric checks: $ChecksPassed passed, $ChecksFailed failed"
echo "$Passed passed, $Failed failed"
[[ $Failed -eq 0 ]]
