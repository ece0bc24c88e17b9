#!/usr/bin/env bash
#===- scripts/quickstart.sh - Build meshad and run the quickstart demo ---===#
#
# setup.sh, build.sh, then compiles demos/quickstart/quickstart.cu with the
# plugin (printing the generated code at compile time) and runs it: it prints
# the derivatives' source, compares them with finite differences and ends with
# "quickstart: OK". Runs on a machine without a GPU: the demo only calls
# __host__ __device__ derivatives on the host.
#
# With the CUDA toolkit the demo is compiled as CUDA (host and sm_90 device
# code); without it, as C++ with __host__/__device__ defined away.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
CudaPath=${MESHAD_CUDA_PATH:-/usr/local/cuda}
ClangXX=${MESHAD_CLANGXX:-clang++-22}

bash "$Root/scripts/setup.sh"
MESHAD_BUILD_DIR=$BuildDir bash "$Root/scripts/build.sh" meshad

Demo=$Root/demos/quickstart/quickstart.cu
Exe=$BuildDir/quickstart
Common=(-O1 -fplugin="$BuildDir/lib/libmeshad.so" -fplugin-arg-meshad-dump
        -I"$Root/include" -I"$Root/test/Inputs")
if [[ -x "$CudaPath/bin/nvcc" ]]; then
  # shellcheck disable=SC2054 # the commas of -Wl,-rpath,... are meant
  Compile=("$ClangXX" -x cuda --cuda-path="$CudaPath" -Wno-unknown-cuda-version
           --cuda-gpu-arch=sm_90 "${Common[@]}" "$Demo" -o "$Exe"
           -L"$CudaPath/lib64" -lcudart -Wl,-rpath,"$CudaPath/lib64")
else
  echo "quickstart: no CUDA toolkit at $CudaPath, compiling the demo as C++"
  Compile=("$ClangXX" -x c++ -std=c++17 -D__host__= -D__device__=
           "${Common[@]}" "$Demo" -o "$Exe")
fi

echo "+ ${Compile[*]}"
"${Compile[@]}"
echo "+ $Exe"
"$Exe"
