// Block-uniform adjoint adds in reverse loops (issue 15, GPU/BlockUniformReduce):
// every thread of a block adds, at iteration i, to the same element of the
// gradient of w. The reverse loop runs in step across each warp (from the
// warp's largest trip count; lanes past their own count, or outside the
// kernel's guard, idle) and each such add is summed per warp with shuffles,
// one atomicAdd per warp and iteration (meshad::warpKeyedAdds, the adds of
// an iteration in one shuffle tree, their addresses through one key;
// guardLoop's read two variables: meshad::warpUniformAdds). Cases: a
// uniform loop, a per-thread break, a per-thread guard (continue) with a
// block-uniform start loaded from an array, and 2D tiles with threads outside
// the image and an index array (the splat's shape); blocks of 48 threads end
// in a partial warp. A thread-dependent address keeps its atomic. Every
// gradient is checked against central differences on the CPU emulation.
// Sums per warp (uniform-sums=warp; the block form, the default, is
// uniform-adds-block.cu). MESHAD_TEST_QUICK=1 checks one entry per array (for
// compute-sanitizer racecheck on the GPU, scripts/gpu/quick.sh).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-uniform-sums=warp -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s < %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: env MESHAD_TEST_QUICK=1 %t | FileCheck %s --check-prefix=QUICK
#include "KernelCheck.h"
#include "NumericCheck.h"
#include "SplatTiles.h"
#include <cmath>
#include <meshad/Differentiator.h>

// Tiles of 8x4 pixels blend the splats of their list front to back (the
// splat rasterizer's shape): ranges per tile, ids, pixels outside the image.
__global__ void tiles(int W, int H, const int *ranges, const int *ids,
                      const double *p, double *img) {
  int px = blockIdx.x * 8 + threadIdx.x;
  int py = blockIdx.y * 4 + threadIdx.y;
  if (px >= W || py >= H)
    return;
  int tile = blockIdx.y * gridDim.x + blockIdx.x;
  int begin = ranges[2 * tile];
  int end = ranges[2 * tile + 1];
  double T = 1, acc = 0;
  for (int k = begin; k < end; ++k) {
    int id = ids[k];
    double dx = (px - p[3 * id]) * 0.3, dy = (py - p[3 * id + 1]) * 0.3;
    double alpha = 0.9 * p[3 * id + 2] * exp(-(dx * dx + dy * dy));
    acc += alpha * T;
    T = T * (1 - alpha);
  }
  img[py * W + px] = acc;
}
// CHECK-LABEL: __global__ void tiles_grad(
// CHECK: for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
// CHECK: _key = id;
// CHECK-NOT: atomicAdd(&_d_p
// CHECK: {{^}}}

__global__ void uniformLoop(int n, int m, const int *stop, const int *start,
                            const double *w, const double *x, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    double d = x[t] - w[2 * i];
    acc += w[2 * i + 1] * exp(-d * d);
  }
  out[t] = acc;
}
// REMARK: uniform-adds-in-loops.cu:[[#@LINE-4]]:{{[0-9]+}}: remark: adjoint store to 'w': summed per warp, one atomicAdd per warp and iteration (the address w[2 * i + 1] is the same in every thread at an iteration of the reverse loop
// CHECK-LABEL: __global__ void uniformLoop_grad(
// CHECK: int _steps = 0;
// CHECK: _steps = _cnt0;
// CHECK: for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
// CHECK: if (_step <= _steps) {
// CHECK: _key = i;
// CHECK: --_cnt0;
// CHECK: meshad::warpKeyedAdds(_key, _d_w, 2, 1, _d_w_sum, _d_w, 2, 0, _d_w_sum1);
// CHECK-NOT: atomicAdd(&_d_w
// CHECK: {{^}}}

__global__ void breakLoop(int n, int m, const int *stop, const int *start,
                          const double *w, const double *x, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    if (i >= stop[t])
      break;
    double d = x[t] - w[2 * i];
    acc += w[2 * i + 1] * exp(-d * d);
  }
  out[t] = acc;
}
// CHECK-LABEL: __global__ void breakLoop_grad(
// CHECK: for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
// CHECK-NOT: atomicAdd(&_d_w
// CHECK: meshad::warpKeyedAdds(_key, _d_w, 2, 1, _d_w_sum, _d_w, 2, 0, _d_w_sum1);
// CHECK: {{^}}}

__global__ void guardLoop(int n, int m, const int *stop, const int *start,
                          const double *w, const double *x, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  int b = start[blockIdx.x];
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    if ((t + i) % 3 == 0)
      continue;
    double d = x[t] - w[2 * (b + i)];
    acc += w[2 * (b + i) + 1] * d * d;
  }
  out[t] = acc;
}
// CHECK-LABEL: __global__ void guardLoop_grad(
// CHECK: for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
// CHECK: _d_w_at = &_d_w[2 * (b + i) + 1];
// CHECK: meshad::warpUniformAdds(_d_w_at, _d_w_sum, _d_w_at1, _d_w_sum1);
// CHECK-NOT: atomicAdd(&_d_w
// CHECK: {{^}}}

// The address reads threadIdx: the add stays atomic, the loop as it was.
__global__ void threadAddress(int n, int m, const int *stop, const int *start,
                              const double *w, const double *x, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = 0;
  for (int i = 0; i < n; ++i)
    acc += w[(t + i) % (2 * n)] * x[t];
  out[t] = acc;
}
// CHECK-LABEL: __global__ void threadAddress_grad(
// CHECK-NOT: warpMaxSteps
// CHECK: atomicAdd(&_d_w[(t + i) % (2 * n)],
// CHECK: {{^}}}

/// Checks the gradient of a 1D kernel for w and x against central
/// differences of sum(Wt * out).
template <class Kernel, class Grad>
void check1D(const char *Name, Kernel K, Grad G) {
  const int N = 7, M = 90;
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<int> Stop(96), Start(2);
  meshad::test::DeviceArray<double> Wv(4 * N), X(96), Out(96), Wt(96),
      DW(4 * N), DX(96), DOut(96);
  Rng.fill(Wv.host(), 4 * N, 0.2, 1.5);
  Rng.fill(X.host(), 96, 0, 1.5);
  Rng.fill(Wt.host(), 96, -1, 1);
  for (int T = 0; T < 96; ++T)
    Stop[T] = (T * 5) % (N + 2);
  Start[0] = 0;
  Start[1] = N;
  Stop.upload();
  Start.upload();
  dim3 Grid(2), Block(48);
  auto Run = [&] {
    Wv.upload();
    X.upload();
    MESHAD_LAUNCH(K, Grid, Block)(N, M, Stop.device(), Start.device(),
                                  Wv.device(), X.device(), Out.device());
    Out.download();
  };
  auto Loss = [&] {
    Run();
    return meshad::test::weightedSum(Wt.host(), Out.host(), M);
  };
  const std::size_t CW = meshad::test::checkedEntries(4 * N),
                    CX = meshad::test::checkedEntries(M);
  std::vector<double> EW = meshad::test::fdGradient(Loss, Wv.host(), CW);
  std::vector<double> EX = meshad::test::fdGradient(Loss, X.host(), CX);
  Run();
  for (int T = 0; T < 96; ++T)
    DOut[T] = T < M ? Wt[T] : 0.0;
  DOut.upload();
  DW.zero();
  DX.zero();
  G.execute_kernel(Grid, Block, N, M, Stop.device(), Start.device(),
                   Wv.device(), X.device(), Out.device(), DW.device(),
                   DX.device(), DOut.device());
  meshad::test::checkLaunch(Name);
  DW.download();
  DX.download();
  meshad::test::checkArray(std::string(Name) + " dw", DW.host(), EW.data(),
                           CW);
  meshad::test::checkArray(std::string(Name) + " dx", DX.host(), EX.data(), CX);
}

void checkTiles() {
  // 3x3 tiles of 8x4; tile (2, *) is partial, row 2 half outside.
  meshad::test::RandomInputs Rng;
  meshad::test::SplatTiles S(Rng, 21, 10, 6);
  dim3 Grid(3, 3), Block(8, 4);
  auto Loss = [&] { return S.loss(tiles, Grid, Block); };
  const std::size_t CP = meshad::test::checkedEntries(3 * S.K);
  std::vector<double> Expected = meshad::test::fdGradient(Loss, S.P.host(), CP);
  S.P.upload();
  S.gradient([&] {
    meshad::gradient(tiles, "p, img")
        .execute_kernel(Grid, Block, S.W, S.H, S.Ranges.device(),
                        S.Ids.device(), S.P.device(), S.Img.device(),
                        S.DP.device(), S.DImg.device());
  });
  meshad::test::checkArray("tiles dp", S.DP.host(), Expected.data(), CP);
}

int main() {
  check1D("uniformLoop", uniformLoop, meshad::gradient(uniformLoop, "w, x, out"));
  check1D("breakLoop", breakLoop, meshad::gradient(breakLoop, "w, x, out"));
  check1D("guardLoop", guardLoop, meshad::gradient(guardLoop, "w, x, out"));
  check1D("threadAddress", threadAddress,
          meshad::gradient(threadAddress, "w, x, out"));
  checkTiles();
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 490 passed, 0 failed
// QUICK-NOT: FAIL
// QUICK: numeric checks: 9 passed, 0 failed
