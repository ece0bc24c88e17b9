#!/usr/bin/env bash
#===- scripts/gpu/quick.sh - GPU suite, one line a binary ---------------===#
#
# Runs on the GPU machine each binary of DIR/bin (scripts/gpu/build.sh's
# output, or a subset of it): plainly, then under compute-sanitizer memcheck,
# then racecheck for the names in RACE (with MESHAD_TEST_QUICK=1: tests that
# read it check one entry per array against finite differences, so that the
# sanitizer's slow launches end in time), each with a time limit, and prints
# one line a binary as it goes (nothing is buffered, so a run cut off by the
# device's limit still says how far it got). Also appended to $OUT/quick.txt
# when OUT is set.
#   bash scripts/gpu/quick.sh DIR [SECONDS] [RACE...]
#
#===----------------------------------------------------------------------===#
set -u
Dir=$1; Limit=${2:-60}; shift; shift || true
Race=" $* "
San=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
Log=$(mktemp -d)
say() { echo "$*"; [[ -n ${OUT:-} ]] && echo "$*" >>"$OUT/quick.txt"; }
for B in "$Dir"/bin/*; do
  N=$(basename "$B")
  S=$(date +%s)
  timeout "$Limit" "$B" >"$Log/$N.run" 2>&1; Rc=$?
  P=$(grep -c '^PASS' "$Log/$N.run"); F=$(grep -c '^FAIL' "$Log/$N.run")
  V=ok; [[ $Rc -ne 0 || $F -ne 0 || $P -eq 0 ]] && V="FAILED(rc=$Rc)"
  T=$(( $(date +%s) - S ))
  timeout "$Limit" "$San" --tool memcheck "$B" >"$Log/$N.mem" 2>&1
  M=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$Log/$N.mem" | tail -1); [[ -z $M ]] && M="memcheck: no verdict (limit)"
  R=""
  if [[ $Race == *" $N "* ]]; then
    MESHAD_TEST_QUICK=1 timeout "$Limit" "$San" --tool racecheck "$B" \
      >"$Log/$N.race" 2>&1
    R=$(grep -o 'RACECHECK SUMMARY: [0-9]* hazard[s]* displayed ([0-9]* errors, [0-9]* warnings)' "$Log/$N.race" | tail -1)
    [[ -z $R ]] && R="racecheck: no verdict (limit)"
  fi
  say "$V $N ($P checks, ${T}s) | $M | $R"
  if [[ $V != ok ]]; then grep -m5 '^FAIL\|error\|abort' "$Log/$N.run" | sed 's/^/    /'; tail -3 "$Log/$N.run" | sed 's/^/    /'; fi
done
