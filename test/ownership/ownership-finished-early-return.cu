// Ownership on the finished function (issue 10, item 2): an index assigned
// after an early return. Reverse mode writes `_cond0 = gx >= W || gy >= H;`,
// `if (!_cond0) { p = gy * W + gx; }` and later `if (!_cond0) { ...
// _d_x[3 * p] ... }`: p's one assignment is in a branch of the guard
// _cond0 (assigned once, before) and every read of p is in a later branch
// of the same guard, so p is gy * W + gx there (Analysis/SweepDefs). The
// gradient and the HVP, whose Accumulates record no primal reads, get the
// same decision as the primal kernel, thread-exclusive: plain adds, no
// atomics, and no cross-check warning. Each gradient and HVP is checked
// against central finite differences (of the loss, of the gradient).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-ownership-crosscheck -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: not grep "cross-check" %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <map>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

// REMARK-NOT: cross-check
// An energy over the pixels of a W x H image, three channels each.
__global__ void shade(const double *rgb, double *E, int W, int H) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx >= W || gy >= H)
    return;
  int p = gy * W + gx;
  double l = rgb[3 * p] * rgb[3 * p + 1] + exp(rgb[3 * p + 2]);
  atomicAdd(&E[0], l * l);
}
// REMARK-DAG: ownership-finished-early-return.cu:[[#@LINE-3]]:14: remark: adjoint store to 'rgb': plain += (thread-exclusive: every access is 3*(gy*W + gx) + {0, 1, 2} with 0 <= gx < W)
// REMARK-DAG: ownership-finished-early-return.cu:[[#@LINE-4]]:14: remark: adjoint store to 'rgb': plain += (thread-exclusive: every access is 3*(gy*W + gx) + {0, 1, 2} with 0 <= gx < W)
// CHECK-LABEL: __global__ void shade_grad(
// CHECK-NOT: atomicAdd(&_d_rgb
// CHECK: meshad::exclusiveAdd(&_d_rgb[3 * p],
// CHECK-NOT: atomicAdd(&_d_rgb
// CHECK-LABEL: __global__ void shade_hvp_0(
// CHECK: meshad::requireLaunch2D();
// CHECK-NOT: atomicAdd(&_d2_d_rgb
// CHECK: _d2_d_rgb[3 * p] +=
// CHECK-NOT: atomicAdd(&_d2_d_rgb

// 1D, two elements per thread after the return.
__global__ void pairs(const double *x, double *E, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int q = 2 * i;
  double d = x[q + 1] - sin(x[q]);
  atomicAdd(&E[0], d * d * x[q + 1]);
}
// REMARK-DAG: ownership-finished-early-return.cu:[[#@LINE-3]]:14: remark: adjoint store to 'x': plain += (thread-exclusive: every access is 2*gid + {0, 1})
// CHECK-LABEL: __global__ void pairs_grad(
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::exclusiveAdd(&_d_x[q],
// CHECK-NOT: atomicAdd(&_d_x
// CHECK-LABEL: __global__ void pairs_hvp_0(
// CHECK: meshad::requireLaunch1D();
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: _d2_d_x[q] +=
// CHECK-NOT: atomicAdd(&_d2_d_x

namespace mt = meshad::test;

/// Checks \p Got against d/dt Grad(X + t V)[J] for every J; the gradient
/// is computed once per step t (every J differentiates at the same steps).
template <class GradFn>
void checkAgainstFd(const std::string &Name, const std::vector<double> &X,
                    const std::vector<double> &V, const double *Got,
                    GradFn Grad) {
  std::map<double, std::vector<double>> AtStep;
  auto GradAt = [&](double T) -> const std::vector<double> & {
    auto It = AtStep.find(T);
    if (It != AtStep.end())
      return It->second;
    std::vector<double> XT(X.size());
    for (size_t I = 0; I < X.size(); ++I)
      XT[I] = X[I] + T * V[I];
    return AtStep.emplace(T, Grad(XT)).first->second;
  };
  for (size_t J = 0; J < X.size(); ++J) {
    double Fd = mt::centralDifference([&](double T) { return GradAt(T)[J]; },
                                      0.0);
    mt::checkClose(Name + "[" + std::to_string(J) + "]", Got[J], Fd);
  }
}

/// The gradient of the energy \p Launch(x, E) against central differences,
/// then the HVP \p Hvp(x, v, Hv) against differences of \p Grad(x, g).
template <class L, class G, class H>
void check(const char *Name, int N, L Launch, G Grad, H Hvp) {
  mt::RandomInputs Rng;
  std::vector<double> X(N), V(N);
  Rng.fill(X.data(), N, 0.2, 1.2);
  Rng.fill(V.data(), N, -1.0, 1.0);
  mt::DeviceArray<double> DX(N), DV(N), Out(N), E(1);
  auto GradAt = [&](const std::vector<double> &P) {
    for (int I = 0; I < N; ++I)
      DX[I] = P[I];
    DX.upload();
    Out.zero();
    Grad(DX.device(), Out.device());
    mt::checkLaunch(Name);
    Out.download();
    return std::vector<double>(Out.host(), Out.host() + N);
  };
  auto Energy = [&] {
    DX.upload();
    E.zero();
    Launch(DX.device(), E.device());
    mt::checkLaunch(Name);
    E.download();
    return E[0];
  };
  for (int I = 0; I < N; ++I)
    DX[I] = X[I];
  std::vector<double> Fd = mt::fdGradient(Energy, DX.host(), N);
  std::vector<double> Got = GradAt(X);
  mt::checkArray((std::string(Name) + " gradient").c_str(), Got.data(),
                 Fd.data(), N);
  for (int I = 0; I < N; ++I)
    DX[I] = X[I], DV[I] = V[I];
  DX.upload();
  DV.upload();
  Out.zero();
  Hvp(DX.device(), DV.device(), Out.device());
  mt::checkLaunch(Name);
  Out.download();
  std::vector<double> Hv(Out.host(), Out.host() + N);
  checkAgainstFd(std::string(Name) + " hvp", X, V, Hv.data(), GradAt);
}

int main() {
  const int W = 9, H = 5, N = 70;
  const dim3 Grid2(2, 2), Block2(8, 4);
  mt::DeviceArray<double> Seed(1), Energy(1);
  Seed[0] = 1;
  Seed.upload();
  auto gShade = meshad::gradient(shade, "rgb, E");
  auto hShade = meshad::hvp(shade, "rgb");
  check(
      "shade", 3 * W * H,
      [&](double *X, double *E) {
        MESHAD_LAUNCH(shade, Grid2, Block2)(X, E, W, H);
      },
      [&](double *X, double *G) {
        Seed.upload();
        gShade.execute_kernel(Grid2, Block2, X, Energy.device(), W, H, G,
                              Seed.device());
      },
      [&](double *X, double *V, double *Hv) {
        hShade.execute_kernel(Grid2, Block2, X, Energy.device(), W, H, V, Hv,
                              Seed.device());
      });
  auto gPairs = meshad::gradient(pairs, "x, E");
  auto hPairs = meshad::hvp(pairs, "x");
  check(
      "pairs", 2 * N,
      [&](double *X, double *E) {
        MESHAD_LAUNCH(pairs, dim3(2), dim3(64))(X, E, N);
      },
      [&](double *X, double *G) {
        Seed.upload();
        gPairs.execute_kernel(dim3(2), dim3(64), X, Energy.device(), N, G,
                              Seed.device());
      },
      [&](double *X, double *V, double *Hv) {
        hPairs.execute_kernel(dim3(2), dim3(64), X, Energy.device(), N, V, Hv,
                              Seed.device());
      });
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
