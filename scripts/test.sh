#!/usr/bin/env bash
#===- scripts/test.sh - Set up, build and run every test -----------------===#
#
# setup.sh, build (./build, Ninja, Release), the unit tests (ctest) and the
# lit tests, then one line with the totals of both:
#   N passed, N failed[, N skipped]
# Exits non-zero when anything failed. A failed build counts as one failure
# and the tests still run (ninja -k 0), so that what was built gets tested.
# Environment:
#   MESHAD_BUILD_DIR  build directory (default: <repo>/build)
#   MESHAD_JOBS       parallel jobs for ninja, ctest and lit (default: nproc)
#
#===----------------------------------------------------------------------===#
set -uo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Jobs=${MESHAD_JOBS:-$(nproc)}
Lit=${MESHAD_LIT:-/usr/lib/llvm-22/bin/lit}
FailedSteps=()

echo "=== setup"
bash "$Root/scripts/setup.sh" || FailedSteps+=(setup)

echo "=== build"
MESHAD_BUILD_DIR=$BuildDir MESHAD_JOBS=$Jobs bash "$Root/scripts/build.sh" -k 0 \
  || FailedSteps+=(build)

echo "=== unit tests (ctest)"
CTestLog=$BuildDir/ctest.log
mkdir -p "$BuildDir"
ctest --test-dir "$BuildDir" --output-on-failure -j "$Jobs" --timeout 300 \
  2>&1 | tee "$CTestLog"

echo "=== lit tests"
LitXml=$BuildDir/test/lit-results.xml
rm -f "$LitXml"
if [[ -f "$BuildDir/test/lit.site.cfg.py" ]]; then
  LitDir=$BuildDir/test
else
  # Not configured: the source tree's lit.cfg.py finds the build by itself.
  LitDir=$Root/test
fi
mkdir -p "$(dirname "$LitXml")"
"$Lit" -sv -j "$Jobs" --param build_dir="$BuildDir" \
  --xunit-xml-output "$LitXml" "$LitDir"

echo "=== summary"
StepArgs=()
for Step in "${FailedSteps[@]}"; do
  StepArgs+=(--failed-step "$Step")
done
exec python3 "$Root/scripts/count-results.py" --ctest-log "$CTestLog" \
  --lit-xml "$LitXml" "${StepArgs[@]}"
