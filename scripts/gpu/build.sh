#!/usr/bin/env bash
#===- scripts/gpu/build.sh - Build the GPU test suite --------------------===#
#
# Compiles every source listed in scripts/gpu/tests.txt as CUDA for a real
# GPU with clang and the meshad plugin (no GPU needed here), into the
# git-ignored folder .gpu/:
#   .gpu/bin/<name>        one executable per source (cudart linked
#                          statically: the GPU machine needs only the driver)
#   .gpu/log/<name>.build  the compiler's output (the dumped derivatives)
# then run scripts/gpu/run.sh on the GPU machine. Ends with one line
# `N built, N failed`; exits non-zero when a build failed.
# Environment:
#   MESHAD_BUILD_DIR  build directory with lib/libmeshad.so (default: build)
#   MESHAD_CLANG      clang++ (default: /usr/lib/llvm-22/bin/clang++)
#   CUDA_PATH         CUDA toolkit (default: /usr/local/cuda)
#   MESHAD_GPU_ARCH   GPU architecture (default: sm_90, H100/H200)
#   MESHAD_GPU_OUT    output folder instead of .gpu (keep it under .gpu/,
#                     which git ignores)
#   MESHAD_JOBS       compiles at once (default: number of cores)
# clang passes -target-sdk-version itself (12.9 with CUDA 13), so the kernel
# launches of clang-compiled CUDA need no extra flag.
#
#===----------------------------------------------------------------------===#
set -uo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Plugin=$BuildDir/lib/libmeshad.so
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Cuda=${CUDA_PATH:-/usr/local/cuda}
Arch=${MESHAD_GPU_ARCH:-sm_90}
Out=${MESHAD_GPU_OUT:-$Root/.gpu}

if [[ ! -f $Plugin ]]; then
  echo "build.sh: no plugin at $Plugin (build the 'meshad' target first)" >&2
  exit 1
fi
rm -rf "$Out/bin" "$Out/log"
mkdir -p "$Out/bin" "$Out/log"

Jobs=${MESHAD_JOBS:-$(nproc)}

# Compiles one source; its verdict goes to $Out/log/<name>.status. A
# source's line `// GPU-BUILD: FLAGS` adds FLAGS (defines, libraries of the
# toolkit, found at run time through an rpath to its lib64).
compileOne() {
  local Src=$1 Name Extra
  Name=$(basename "${Src%.*}")
  Extra=$(sed -n 's|^// GPU-BUILD: ||p' "$Root/$Src" | head -1)
  [[ -n $Extra ]] && Extra="$Extra -Wl,-rpath,$Cuda/lib64"
  # shellcheck disable=SC2086 # Extra is a list of flags
  if "$Clang" -x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version \
      --cuda-gpu-arch="$Arch" -fplugin="$Plugin" -fplugin-arg-meshad-dump \
      -I"$Cuda/include/cccl" -I"$Root/include" -I"$Root/test/Inputs" -O2 \
      "$Root/$Src" $Extra \
      -L"$Cuda/lib64" -lcudart_static -ldl -lrt -pthread \
      -o "$Out/bin/$Name" >"$Out/log/$Name.build" 2>&1; then
    echo "built  $Name"
    echo ok >"$Out/log/$Name.status"
  else
    echo "FAILED $Name (see $Out/log/$Name.build):"
    grep -m 5 'error' "$Out/log/$Name.build" | sed 's/^/    /'
    echo failed >"$Out/log/$Name.status"
  fi
}

Sources=()
while read -r Line; do
  Src=${Line%%#*}
  Src=$(echo "$Src" | xargs)
  [[ -n $Src ]] && Sources+=("$Src")
done <"$Root/scripts/gpu/tests.txt"

for Src in "${Sources[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge $Jobs ]]; do
    wait -n
  done
  compileOne "$Src" &
done
wait

Built=$(grep -lx ok "$Out"/log/*.status 2>/dev/null | wc -l)
Failed=$(grep -lx failed "$Out"/log/*.status 2>/dev/null | wc -l)
rm -f "$Out"/log/*.status
echo "$Built built, $Failed failed"
[[ $Failed -eq 0 ]]
