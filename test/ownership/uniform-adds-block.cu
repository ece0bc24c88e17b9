// Block-level sums of block-uniform adjoint adds in reverse loops (issue 15,
// GPU/BlockUniformReduce, uniform-sums=block; the default is per warp): the reverse loop
// runs in step across the whole block (meshad::blockMaxSteps: the block's
// largest trip count; threads past their own count, outside the image or
// stopped early run no body but still reach the barrier) and each uniform
// add is summed per warp, then across the warps in shared memory, one
// atomicAdd per block and iteration (meshad::blockUniformAdds). Cases: tiles
// of 16x8 pixels (four warps) blending their splat list with a per-pixel
// early stop and pixels outside the image; a loop in a branch whose
// condition is block-uniform (summed per block too); a loop nested in
// another loop, or in a branch whose condition depends on the thread (their
// adds stay atomic, with a remark). Every gradient is
// checked against central differences and against meshad's all-atomics
// gradient of the same kernels (compiled with -fplugin-arg-meshad-atomics=all
// into a second object, renamed, -DALL_ATOMICS). MESHAD_TEST_QUICK=1 checks
// one entry per array against the differences (compute-sanitizer racecheck
// on the GPU, scripts/gpu/quick.sh); the GPU build (scripts/gpu/build.sh,
// one source) has no all-atomics object and skips that comparison.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-atomics=all -DALL_ATOMICS -I%test_inputs -c %s -o %t.atomics.o
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-uniform-sums=block -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -DWITH_ALL_ATOMICS -I%test_inputs %s -x none %t.atomics.o -o %t 2> %t.log
// RUN: FileCheck %s < %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: env MESHAD_TEST_QUICK=1 %t | FileCheck %s --check-prefix=QUICK
#include "KernelCheck.h"
#include "NumericCheck.h"
#include "SplatTiles.h"
#include <cmath>
#include <meshad/Differentiator.h>

#ifdef ALL_ATOMICS
#define tiles tilesAllAtomics
#define uniformBranch uniformBranchAllAtomics
#define nestedLoop nestedLoopAllAtomics
#define threadBranch threadBranchAllAtomics
#endif

// Tiles of 16x8 pixels blend the splats of their list front to back; a
// pixel stops once its transmittance falls below 0.35.
__global__ void tiles(int W, int H, const int *ranges, const int *ids,
                      const double *p, double *img) {
  int px = blockIdx.x * 16 + threadIdx.x;
  int py = blockIdx.y * 8 + threadIdx.y;
  if (px >= W || py >= H)
    return;
  int tile = blockIdx.y * gridDim.x + blockIdx.x;
  int begin = ranges[2 * tile];
  int end = ranges[2 * tile + 1];
  double T = 1, acc = 0;
  for (int k = begin; k < end; ++k) {
    int id = ids[k];
    double dx = (px - p[3 * id]) * 0.2, dy = (py - p[3 * id + 1]) * 0.2;
    double alpha = 0.9 * p[3 * id + 2] * exp(-(dx * dx + dy * dy));
    acc += alpha * T;
    T = T * (1 - alpha);
    if (T < 0.35)
      break;
  }
  img[py * W + px] = acc;
}
// REMARK: uniform-adds-block.cu:[[#@LINE-8]]:{{[0-9]+}}: remark: adjoint store to 'p': summed per block, one atomicAdd per block and iteration (the address p[3 * id + 2] is the same in every thread at an iteration of the reverse loop; the loop runs in step across the block
// CHECK-LABEL: __global__ void tiles_grad(
// CHECK: int _steps = 0;
// CHECK: for (int _step = meshad::blockMaxSteps(_steps); _step > 0; --_step) {
// CHECK: if (_step <= _steps) {
// CHECK: _d_p_at = &_d_p[3 * id + 2];
// CHECK: meshad::blockUniformAdds(_step, _d_p_at, _d_p_sum, _d_p_at1, _d_p_sum1, _d_p_at2, _d_p_sum2);
// CHECK-NOT: atomicAdd(&_d_p
// CHECK: {{^}}}

// The loop runs only when the block-uniform n > 3; threads past m read a
// clamped x and add nothing to out.
__global__ void uniformBranch(int n, int m, const double *w, const double *x,
                              double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int s = t < m ? t : m - 1;
  double acc = 0;
  if (n > 3) {
    for (int i = 0; i < n; ++i) {
      double d = x[s] - w[2 * i];
      acc += w[2 * i + 1] * exp(-d * d);
    }
  } else {
    acc = x[s] * x[s];
  }
  if (t < m)
    out[t] = acc;
}
// REMARK: uniform-adds-block.cu:[[#@LINE-8]]:{{[0-9]+}}: remark: adjoint store to 'w': summed per block, one atomicAdd per block and iteration (the address w[2 * i + 1] is the same
// CHECK-LABEL: __global__ void uniformBranch_grad(
// CHECK: _d_out[t] = 0.;
// CHECK: if (_cond0) {
// CHECK-NEXT: int _steps = _cnt0;
// CHECK: for (int _step = meshad::blockMaxSteps(_steps); _step > 0; --_step) {
// CHECK: meshad::blockUniformAdds(_step,
// CHECK-NOT: atomicAdd(&_d_w
// CHECK: {{^}}}

// The uniform adds are in a loop nested in another: they stay atomic.
__global__ void nestedLoop(int n, int m, const double *w, const double *x,
                           double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = 0;
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < n; ++i)
      acc += w[2 * i + r] * x[t] * x[t];
  out[t] = acc;
}
// REMARK: uniform-adds-block.cu:[[#@LINE-4]]:{{[0-9]+}}: remark: adjoint adds of this loop not summed per warp: it is nested in a reverse loop whose iterations the threads run under their own trip count
// CHECK-LABEL: __global__ void nestedLoop_grad(
// CHECK-NOT: blockMaxSteps
// CHECK: meshad::warpAtomicAdd(&_d_w[2 * i + r],
// CHECK: {{^}}}

// The loop runs in odd threads only: its adds stay atomic.
__global__ void threadBranch(int n, int m, const double *w, const double *x,
                             double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = x[t];
  if (t % 2 == 1) {
    for (int i = 0; i < n; ++i)
      acc += w[2 * i] * x[t] * x[t];
  } else {
    acc = 0.5 * acc;
  }
  out[t] = acc;
}
// REMARK: uniform-adds-block.cu:[[#@LINE-7]]:{{[0-9]+}}: remark: adjoint adds of this loop not summed per warp: it is not at the kernel's top level (it is inside a loop, or a branch whose condition may differ between threads), so the threads of a warp may reach it a different number of times
// CHECK-LABEL: __global__ void threadBranch_grad(
// CHECK-NOT: blockMaxSteps
// CHECK: meshad::warpAtomicAdd(&_d_w[2 * i],
// CHECK: {{^}}}

void tilesGrad(dim3 Grid, dim3 Block, int W, int H, const int *Ranges,
               const int *Ids, const double *P, double *Img, double *DP,
               double *DImg)
#ifdef ALL_ATOMICS
{
  meshad::gradient(tiles, "p, img")
      .execute_kernel(Grid, Block, W, H, Ranges, Ids, P, Img, DP, DImg);
}
#else
    ;
#endif

/// The all-atomics gradient of uniformBranch (\p Which 0), nestedLoop (1)
/// or threadBranch (2).
void grad1D(int Which, dim3 Grid, dim3 Block, int N, int M, double *Wv,
            double *X, double *Out, double *DW, double *DX, double *DOut)
#ifdef ALL_ATOMICS
{
  if (Which == 0)
    meshad::gradient(uniformBranch, "w, x, out")
        .execute_kernel(Grid, Block, N, M, Wv, X, Out, DW, DX, DOut);
  else if (Which == 1)
    meshad::gradient(nestedLoop, "w, x, out")
        .execute_kernel(Grid, Block, N, M, Wv, X, Out, DW, DX, DOut);
  else
    meshad::gradient(threadBranch, "w, x, out")
        .execute_kernel(Grid, Block, N, M, Wv, X, Out, DW, DX, DOut);
}
#else
    ;
#endif

#ifndef ALL_ATOMICS
/// Checks \p Got (the adjoint of \p Name, \p N entries) against central
/// differences (\p Checked entries) and against the all-atomics \p Atomics.
void checkBoth(const std::string &Name, const double *Got,
               const std::vector<double> &Expected, const double *Atomics,
               std::size_t N) {
  meshad::test::checkArray(Name, Got, Expected.data(), Expected.size());
  if (Atomics)
    meshad::test::checkArray(Name + " vs all atomics", Got, Atomics, N);
}

/// The gradient of a 1D kernel for w and x, seeded with random weights.
template <class Kernel, class Grad>
void check1D(const char *Name, int Which, Kernel K, Grad G) {
  const int N = 7, M = 90, Size = 96;
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<double> Wv(2 * N), X(Size), Out(Size), Wt(Size),
      DW(2 * N), DX(Size), DOut(Size);
  Rng.fill(Wv.host(), 2 * N, 0.2, 1.5);
  Rng.fill(X.host(), Size, 0, 1.5);
  Rng.fill(Wt.host(), Size, -1, 1);
  dim3 Grid(2), Block(48);
  auto Loss = [&] {
    Wv.upload();
    X.upload();
    MESHAD_LAUNCH(K, Grid, Block)(N, M, Wv.device(), X.device(), Out.device());
    Out.download();
    return meshad::test::weightedSum(Wt.host(), Out.host(), M);
  };
  std::vector<double> EW = meshad::test::fdGradient(
      Loss, Wv.host(), meshad::test::checkedEntries(2 * N));
  std::vector<double> EX =
      meshad::test::fdGradient(Loss, X.host(), meshad::test::checkedEntries(M));
  Loss();
  auto Run = [&](auto &&Launch) {
    for (int T = 0; T < Size; ++T)
      DOut[T] = T < M ? Wt[T] : 0.0;
    DOut.upload();
    DW.zero();
    DX.zero();
    Launch();
    meshad::test::checkLaunch(Name);
    DW.download();
    DX.download();
  };
  std::vector<double> AW, AX;
#ifdef WITH_ALL_ATOMICS
  Run([&] {
    grad1D(Which, Grid, Block, N, M, Wv.device(), X.device(), Out.device(),
           DW.device(), DX.device(), DOut.device());
  });
  AW.assign(DW.host(), DW.host() + 2 * N);
  AX.assign(DX.host(), DX.host() + M);
#endif
  Run([&] {
    G.execute_kernel(Grid, Block, N, M, Wv.device(), X.device(), Out.device(),
                     DW.device(), DX.device(), DOut.device());
  });
  checkBoth(std::string(Name) + " dw", DW.host(), EW,
            AW.empty() ? nullptr : AW.data(), 2 * N);
  checkBoth(std::string(Name) + " dx", DX.host(), EX,
            AX.empty() ? nullptr : AX.data(), M);
}

void checkTiles() {
  // 3x3 tiles of 16x8; the last column and row are partial; tile 4 empty.
  meshad::test::RandomInputs Rng;
  meshad::test::SplatTiles S(Rng, 37, 20, 7);
  dim3 Grid(3, 3), Block(16, 8);
  auto Loss = [&] { return S.loss(tiles, Grid, Block); };
  std::vector<double> Expected = meshad::test::fdGradient(
      Loss, S.P.host(), meshad::test::checkedEntries(3 * S.K));
  Loss();
  std::vector<double> Atomics;
#ifdef WITH_ALL_ATOMICS
  S.gradient([&] {
    tilesGrad(Grid, Block, S.W, S.H, S.Ranges.device(), S.Ids.device(),
              S.P.device(), S.Img.device(), S.DP.device(), S.DImg.device());
  });
  Atomics.assign(S.DP.host(), S.DP.host() + 3 * S.K);
#endif
  S.gradient([&] {
    meshad::gradient(tiles, "p, img")
        .execute_kernel(Grid, Block, S.W, S.H, S.Ranges.device(),
                        S.Ids.device(), S.P.device(), S.Img.device(),
                        S.DP.device(), S.DImg.device());
  });
  checkBoth("tiles dp", S.DP.host(), Expected,
            Atomics.empty() ? nullptr : Atomics.data(), 3 * S.K);
}

int main() {
  check1D("uniformBranch", 0, uniformBranch,
          meshad::gradient(uniformBranch, "w, x, out"));
  check1D("nestedLoop", 1, nestedLoop,
          meshad::gradient(nestedLoop, "w, x, out"));
  check1D("threadBranch", 2, threadBranch,
          meshad::gradient(threadBranch, "w, x, out"));
  checkTiles();
  return meshad::test::summary();
}
#endif
// NUM-NOT: FAIL
// NUM: numeric checks: 666 passed, 0 failed
// QUICK-NOT: FAIL
// QUICK: numeric checks: 340 passed, 0 failed
