#!/usr/bin/env bash
#===- scripts/gpu/solver-bench.sh - Build and run the solver benchmark ---===#
#
# Builds, with clang and the meshad plugin for a real GPU (no GPU needed
# here), with cuSPARSE SpMV and cuSOLVER Cholesky switched on
# (MESHAD_SOLVE_CUSPARSE, MESHAD_SOLVE_CUSOLVER), into the git-ignored
# .gpu/solver/:
#   cloth             demos/cloth/cloth.cu, the demo and benchmark
#   cloth.build       the compiler's output (the dumped local derivatives)
#   param-bench       benchmarks/solve/param-bench.cu: the parameterization
#                     solves (meshad's Newton) and their export
#   param-bench.build its compiler output
#   lion-head.off, newton_peers.py, table.py, plot_results.py
# With --run (on the GPU machine, from the repository root or anywhere;
# about 6-7 minutes): the cloth's gradient, gradient + Hessian, HVP, one
# Newton iteration and a whole implicit Euler step (CUDA events, one
# warm-up, the median of 5) at 10k and 100k vertices, each with a "cg
# scalars" line and a "cholesky" line (the sparse Cholesky's analysis,
# factorization, solve and whole step), then a 25-step simulation of a
# 256 x 256 cloth by Newton with the sparse Cholesky, with its OBJ and PNG; then the parameterization (symmetric Dirichlet from Tutte,
# lion head: patches of 1k and 4k triangles, the whole 16.7k, subdivided
# once, 67k, and twice, 267k): one Newton iteration and the whole solve by
# meshad, then the same Newton (same PCG, Armijo line search and flip-free
# step) in JAX (jit) and PyTorch (eager, torch.compile on the local
# Hessians) by newton_peers.py, each with a time budget
# (SOLVE_BUDGET_JAX, SOLVE_BUDGET_TORCH: 60 s, 90 s); the table last.
# Output in .gpu/solver/ (or $OUT): bench.txt, solve/*.csv, solve/table.md,
# and, where matplotlib imports, plots/.
# Environment: MESHAD_BUILD_DIR, MESHAD_CLANG, CUDA_PATH, MESHAD_GPU_ARCH,
# MESHAD_GPU_OUT as for scripts/gpu/build.sh; PYTHON (default python3).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BuildDir=${MESHAD_BUILD_DIR:-$Root/build}
Clang=${MESHAD_CLANG:-/usr/lib/llvm-22/bin/clang++}
Cuda=${CUDA_PATH:-/usr/local/cuda}
Arch=${MESHAD_GPU_ARCH:-sm_90}
Out=${MESHAD_GPU_OUT:-$Root/.gpu}/solver
mkdir -p "$Out"
Py=${PYTHON:-python3}
if [[ ${1:-} == --run ]]; then
  Res=${OUT:-$Out}
  mkdir -p "$Res/solve" "$Res/export"
  {
    nvidia-smi --query-gpu=name --format=csv,noheader || true
    for N in 100 316; do # 1M vertices (n=1000) does not fit the 8 minutes
      "$Out/cloth" --bench --n=$N --reps=5
    done
    "$Out/cloth" --n=256 --steps=25 --dt=0.04 --linear=cholesky \
      --obj="$Res/cloth-256.obj" --png="$Res/cloth-256.png" ||
      echo "cloth 256 failed its checks (the benchmarks below still run)"
    "$Out/param-bench" "$Out/lion-head.off" --sizes=200,600,0,-1,-2 \
      --reps=5 --export="$Res/export" --csv="$Res/solve/meshad.csv"
    declare -A Budget=([jax]=${SOLVE_BUDGET_JAX:-60} [torch]=${SOLVE_BUDGET_TORCH:-90})
    for Fw in jax torch; do
      if "$Py" -c "import $Fw" 2>/dev/null; then
        "$Py" "$Out/newton_peers.py" "$Res/export" --framework=$Fw --reps=3 \
          --budget="${Budget[$Fw]}" --csv="$Res/solve/$Fw.csv" ||
          echo "newton_peers.py $Fw failed"
      else
        echo "$Fw is not installed: skipped"
      fi
    done
    "$Py" "$Out/table.py" "$Res/solve" | tee "$Res/solve/table.md"
    if "$Py" -c "import matplotlib" 2>/dev/null; then
      "$Py" "$Out/plot_results.py" "$Res" --out="$Res/plots" | tail -1
    fi
  } 2>&1 | tee "$Res/bench.txt"
  exit 0
fi
"$Clang" -x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version \
  --cuda-gpu-arch="$Arch" -fplugin="$BuildDir/lib/libmeshad.so" \
  -fplugin-arg-meshad-dump -DMESHAD_SOLVE_CUSPARSE -DMESHAD_SOLVE_CUSOLVER \
  -Wno-deprecated-declarations -I"$Cuda/include/cccl" -I"$Root/include" \
  -I"$Root/test/Inputs" -O2 "$Root/demos/cloth/cloth.cu" -L"$Cuda/lib64" \
  -lcusolver -lcusparse -lcudart_static -ldl -lrt -pthread \
  -Wl,-rpath,"$Cuda/lib64" -o "$Out/cloth" >"$Out/cloth.build" 2>&1 ||
  { cat "$Out/cloth.build"; exit 1; }
"$Clang" -x cuda --cuda-path="$Cuda" -Wno-unknown-cuda-version \
  --cuda-gpu-arch="$Arch" -fplugin="$BuildDir/lib/libmeshad.so" \
  -fplugin-arg-meshad-dump -DMESHAD_SOLVE_CUSPARSE -Wno-deprecated-declarations \
  -I"$Cuda/include/cccl" -I"$Root/include" -O2 \
  "$Root/benchmarks/solve/param-bench.cu" -L"$Cuda/lib64" -lcusparse \
  -lcudart_static -ldl -lrt -pthread -Wl,-rpath,"$Cuda/lib64" \
  -o "$Out/param-bench" >"$Out/param-bench.build" 2>&1 ||
  { cat "$Out/param-bench.build"; exit 1; }
bash "$Root/scripts/fetch-meshes.sh" >/dev/null
cp "$Root/data/meshes/lion-head.off" "$Root/benchmarks/solve/newton_peers.py" \
  "$Root/benchmarks/solve/table.py" "$Root/benchmarks/plot_results.py" "$Out/"
echo "built $Out/cloth and $Out/param-bench; on the GPU machine:" \
  "bash scripts/gpu/solver-bench.sh --run"
