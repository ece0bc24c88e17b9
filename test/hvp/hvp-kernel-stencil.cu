// meshad::hvp of stencil kernels: the lowering that runs last gives a
// tile-exclusive Hv (thread i adds to elements i - 1, i, i + 1) the
// shared-memory tile its gradient gets (summed per block in shared memory,
// one plain += per element, atomicAdd only for the halo), behind the 1D
// launch check the proof assumes, instead of an atomicAdd per add. A stencil
// too wide for the tile keeps its atomics, and the remark says why. Each HVP
// is checked against central finite differences of meshad::gradient along
// random directions (CPU emulation in CI; on the GPU by scripts/gpu).
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

// An energy: the discrete Laplacian squared, plus a quartic term.
__global__ void smooth(const double *x, double *E, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    double l = x[i - 1] - 2 * x[i] + x[i + 1];
    atomicAdd(&E[0], l * l + 0.25 * x[i] * x[i] * x[i] * x[i]);
  }
}
// REMARK-DAG: hvp-kernel-stencil.cu:[[#@LINE-4]]:16: remark: adjoint store to 'x': shared-memory tile (tile-exclusive: {{.*}}every access is gid + {-1, 0, 1}{{.*}}not gathered: gathers of composed derivatives are not made yet)
// CHECK-LABEL: __global__ void smooth_hvp_0(const double *x, double *E, int n, const double *_d2_x, double *_d2_d_x, double *_d_E) {
// CHECK-NEXT: meshad::requireLaunch1D();
// CHECK-NEXT: __shared__ double _d2_d_x_tile[{{[0-9]+}}];
// CHECK-NEXT: meshad::tileZero<1, -1, 1>(_d2_d_x_tile);
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: meshad::tileAdd<1, -1, 1>(_d2_d_x_tile, _d2_d_x, i - 1,
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: meshad::tileAdd<1, -1, 1>(_d2_d_x_tile, _d2_d_x, i + 1,
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: meshad::tileWriteBack<1, -1, 1>(_d2_d_x_tile, _d2_d_x);
// CHECK-NEXT: }

// Per-element outputs weighed by their seeds.
__global__ void blur(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    y[i] = x[i - 1] * x[i] + sin(x[i + 1]) * x[i];
}
// REMARK-DAG: hvp-kernel-stencil.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': shared-memory tile (tile-exclusive: {{.*}}not gathered: gathers of composed derivatives are not made yet)
// CHECK-LABEL: __global__ void blur_hvp_0(const double *x, double *y, int n, const double *_d2_x, double *_d2_d_x, double *_d_y) {
// CHECK: meshad::tileZero<1, -1, 1>(_d2_d_x_tile);
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: meshad::tileWriteBack<1, -1, 1>(_d2_d_x_tile, _d2_d_x);

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
  auto hWide = meshad::hvp(wide, "x");
  auto gWide = meshad::gradient(wide, "x, E");
  Check("wide", hWide, gWide, false);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: PASS smooth[47]
// NUM: PASS blur[47]
// NUM: PASS wide[47]
// NUM: numeric checks: 144 passed, 0 failed
