#!/usr/bin/env bash
#===- scripts/build.sh - Configure and build meshad ----------------------===#
#
# Configures ./build (Ninja, Release) if needed and builds everything: the
# plugin, meshad-gen, unit tests. Arguments go to ninja (e.g. `-k 0`, or
# target names). Environment:
#   MESHAD_BUILD_DIR  build directory (default: <repo>/build)
#   MESHAD_JOBS       parallel jobs for ninja (default: number of cores)
# When ccache is installed, compiles go through it (a worktree rebuilds from
# the cache; set base_dir and hash_dir = false in ccache.conf to share it
# between checkouts).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Jobs=${MESHAD_JOBS:-$(nproc)}

if [[ ! -f "$BuildDir/build.ninja" ]]; then
  Launcher=()
  if command -v ccache >/dev/null; then
    Launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$Root" -B "$BuildDir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "${Launcher[@]}"
fi
ninja -C "$BuildDir" -j "$Jobs" "$@"
