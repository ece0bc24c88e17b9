// meshad::hvp of stencil kernels: the lowering that runs last gives a
// tile-exclusive Hv (thread i adds to elements i - 1, i, i + 1) what its
// gradient would get, behind the 1D launch check the proof assumes, instead
// of an atomicAdd per add: the gather form where the thread's work is
// straight-line code that only adds to the Hv (the owner of each element
// recomputes its neighbours' sweeps: no shared memory, no atomics), else a
// shared-memory tile (summed per block, one plain += per element, atomicAdd
// only for the halo). A stencil too wide for a tile keeps its atomics. The
// remarks say which and why. Each HVP is checked against central finite
// differences of meshad::gradient along random directions (CPU emulation
// in CI; on the GPU by scripts/gpu).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

// An energy: the discrete Laplacian squared, plus a quartic term. Gathered.
__global__ void smooth(const double *x, double *E, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    double l = x[i - 1] - 2 * x[i] + x[i + 1];
    atomicAdd(&E[0], l * l + 0.25 * x[i] * x[i] * x[i] * x[i]);
  }
}
// REMARK-DAG: hvp-kernel-stencil.cu:[[#@LINE-4]]:16: remark: adjoint store to 'x': gathered (tile-exclusive: {{.*}}every access is gid + {-1, 0, 1}{{.*}}the thread that owns each element sums its contributions from the neighbouring threads' recomputed sweeps
// CHECK-LABEL: __global__ void smooth_hvp_0(const double *x, double *E, int n, const double *_d2_x, double *_d2_d_x, double *_d_E) {
// CHECK-NEXT: meshad::requireLaunch1D();
// CHECK-NOT: tile
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: long long _e = meshad::gatherElement<-1, 1>(_j, _threads);
// CHECK: if (_e + 1 >= 0 && _e + 1 < _threads) {
// CHECK: if (_e - 1 >= 0 && _e - 1 < _threads) {
// CHECK: _d2_d_x[_e] += _d2_d_x_sum;
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK-LABEL: void smooth_grad(

// Per-element outputs weighed by their seeds: the HVP only reads the seeds,
// so it is gathered (the gradient, which resets them, keeps its tile).
__global__ void blur(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    y[i] = x[i - 1] * x[i] + sin(x[i + 1]) * x[i];
}
// REMARK-DAG: hvp-kernel-stencil.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': gathered (tile-exclusive: _d2_d_x
// REMARK-DAG: hvp-kernel-stencil.cu:[[#@LINE-3]]:12: remark: adjoint store to 'x': shared-memory tile (tile-exclusive: x{{.*}}not gathered: the sweeps store to memory other threads can see)
// CHECK-LABEL: __global__ void blur_hvp_0(const double *x, double *y, int n, const double *_d2_x, double *_d2_d_x, double *_d_y) {
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: meshad::gatherElement<-1, 1>(_j, _threads);
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: _d2_d_x[_e] += _d2_d_x_sum;
// CHECK-LABEL: void blur_grad(

// A loop in the thread's work, which each neighbour would repeat: a tile.
__global__ void powers(const double *x, double *E, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    double s = 0;
    for (int k = 0; k < 3; ++k)
      s = s * x[i] + x[i - 1] * x[i + 1];
    atomicAdd(&E[0], s * s);
  }
}
// REMARK-DAG: hvp-kernel-stencil.cu:[[#@LINE-4]]:15: remark: adjoint store to 'x': shared-memory tile (tile-exclusive: _d2_d_x{{.*}}not gathered: the thread's work has a loop, which each neighbour would repeat)
// CHECK-LABEL: __global__ void powers_hvp_0(const double *x, double *E, int n, const double *_d2_x, double *_d2_d_x, double *_d_E) {
// CHECK-NEXT: meshad::requireLaunch1D();
// CHECK-NEXT: __shared__ double _d2_d_x_tile[{{[0-9]+}}];
// CHECK-NEXT: meshad::tileZero<1, -1, 1>(_d2_d_x_tile);
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: meshad::tileAdd<1, -1, 1>(_d2_d_x_tile, _d2_d_x, i - 1,
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: meshad::tileWriteBack<1, -1, 1>(_d2_d_x_tile, _d2_d_x);
// CHECK-NEXT: }

// 29 offsets: a tile for 128 threads would take more shared memory than
// tiles may (24 KiB): atomics.
__global__ void wide(const double *x, double *E, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 14 && i < n - 14) {
    double d = x[i + 14] - x[i - 14];
    atomicAdd(&E[0], d * d * d);
  }
}
// REMARK-DAG: hvp-kernel-stencil.cu:[[#@LINE-4]]:16: remark: adjoint store to 'x': atomicAdd (shared: {{.*}}not tiled: its tile would not fit 128 threads in 24576 bytes of shared memory)
// CHECK-LABEL: __global__ void wide_hvp_0(const double *x, double *E, int n, const double *_d2_x, double *_d2_d_x, double *_d_E) {
// CHECK-NOT: tile
// CHECK: atomicAdd(&_d2_d_x[i + 14]
// CHECK-NOT: tile
// CHECK: }

namespace mt = meshad::test;
constexpr int N = 48;
const dim3 Grid(3), Block(16);

/// Checks \p Got against d/dt Grad(X + t V)[J] for every J, where \p Grad
/// gives the gradient at the given positions.
template <class GradFn>
void checkAgainstFd(const std::string &Name, const std::vector<double> &X,
                    const std::vector<double> &V, const double *Got,
                    GradFn Grad) {
  for (size_t J = 0; J < X.size(); ++J) {
    double Fd = mt::centralDifference(
        [&](double T) {
          std::vector<double> XT(X.size());
          for (size_t I = 0; I < X.size(); ++I)
            XT[I] = X[I] + T * V[I];
          return Grad(XT)[J];
        },
        0.0);
    mt::checkClose(Name + "[" + std::to_string(J) + "]", Got[J], Fd);
  }
}

int main() {
  mt::RandomInputs Rng;
  std::vector<double> X(N), V(N);
  Rng.fill(X.data(), N, -1.0, 1.0);
  Rng.fill(V.data(), N, -1.0, 1.0);
  mt::DeviceArray<double> DX(N), DV(N), H(N);
  for (int I = 0; I < N; ++I)
    DX[I] = X[I], DV[I] = V[I];
  DX.upload();
  DV.upload();
  // The HVP of the weighted outputs against the differences of the
  // gradient seeded with the same weights.
  auto Check = [&](const char *Name, auto &h, auto &g, bool Elementwise) {
    mt::DeviceArray<double> Seeds(Elementwise ? N : 1);
    for (size_t I = 0; I < Seeds.size(); ++I)
      Seeds[I] = Rng.uniform(0.5, 1.5);
    Seeds.upload();
    mt::DeviceArray<double> Out(Elementwise ? N : 1);
    H.zero();
    h.execute_kernel(Grid, Block, DX.device(), Out.device(), N, DV.device(),
                     H.device(), Seeds.device());
    mt::checkLaunch(Name);
    H.download();
    std::vector<double> SeedCopy(Seeds.host(), Seeds.host() + Seeds.size());
    checkAgainstFd(Name, X, V, H.host(), [&](const std::vector<double> &P) {
      mt::DeviceArray<double> PX(N), GX(N), DOut(SeedCopy.size());
      for (int I = 0; I < N; ++I)
        PX[I] = P[I];
      PX.upload();
      for (size_t I = 0; I < SeedCopy.size(); ++I)
        DOut[I] = SeedCopy[I];
      DOut.upload();
      GX.zero();
      g.execute_kernel(Grid, Block, PX.device(), Out.device(), N, GX.device(),
                       DOut.device());
      GX.download();
      return std::vector<double>(GX.host(), GX.host() + N);
    });
  };
  auto hSmooth = meshad::hvp(smooth, "x");
  auto gSmooth = meshad::gradient(smooth, "x, E");
  Check("smooth", hSmooth, gSmooth, false);
  auto hBlur = meshad::hvp(blur, "x");
  auto gBlur = meshad::gradient(blur, "x, y");
  Check("blur", hBlur, gBlur, true);
  auto hPowers = meshad::hvp(powers, "x");
  auto gPowers = meshad::gradient(powers, "x, E");
  Check("powers", hPowers, gPowers, false);
  auto hWide = meshad::hvp(wide, "x");
  auto gWide = meshad::gradient(wide, "x, E");
  Check("wide", hWide, gWide, false);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: PASS smooth[47]
// NUM: PASS blur[47]
// NUM: PASS powers[47]
// NUM: PASS wide[47]
// NUM: numeric checks: 192 passed, 0 failed
