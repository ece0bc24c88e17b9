// Reverse mode of energy kernels that sum per-thread terms with
// atomicAdd(&E[0], e): the adjoint of every term is the seed d_E[0], E's
// adjoint on exit is the seed itself (E_final = E_initial + sum e), and the
// adjoints of the shared inputs (neighbouring threads read the same x[j])
// accumulate over threads. A float energy accumulates with atomicAdd(float).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

// A closed chain of springs of rest length r and stiffness k, plus a
// potential per node.
__global__ void chainEnergy(int n, const double *x, double k, double r,
                            double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double d = x[(i + 1) % n] - x[i];
    double s = sqrt(d * d + 0.01) - r;
    double e = 0.5 * k * s * s + x[i] + 0.1 * sin(x[i]);
    atomicAdd(&E[0], e);
  }
}
// CHECK-LABEL: __global__ void chainEnergy_grad_1_2_4(int n, const double *x, double k, double r, double *E, double *_d_x, double *_d_k, double *_d_E) {
// CHECK: _d_E[0]

template <class T>
__global__ void potential(int n, const T *x, T *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&E[0], x[i] * x[i] * exp(-x[i]));
}
// CHECK-LABEL: __global__ void potential_grad(int n, const float *x, float *E, float *_d_x, float *_d_E) {

namespace mt = meshad::test;
constexpr int N = 40;
const dim3 Grid(3), Block(16);

int main() {
  mt::RandomInputs Rng;
  auto gc = meshad::gradient(chainEnergy, "x, k, E");
  auto gp = meshad::gradient(potential<float>, "x, E");

  mt::DeviceArray<double> X(N), DX(N), E(1), DE(1), DK(1);
  // Positions spread along a line with jitter: springs stretched and
  // compressed; the node potential's slope (>= 0.9) exceeds the net spring
  // force on inner nodes (<= 0.4), so no adjoint is near zero.
  for (int I = 0; I < N; ++I)
    X[I] = 0.3 * I + Rng.uniform(-0.05, 0.05);
  double K = Rng.uniform(0.5, 2), R = 0.25;
  auto Energy = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(chainEnergy, Grid, Block)(N, X.device(), K, R, E.device());
    E.download();
    return E[0];
  };
  std::vector<double> RefX = mt::fdGradient(Energy, X.host(), N);
  double RefK = mt::fdGradient(Energy, &K, 1)[0];
  const double Seed = 1.75;
  X.upload();
  E.zero();
  DX.zero();
  DK.zero();
  DE[0] = Seed;
  DE.upload();
  gc.execute_kernel(Grid, Block, N, X.device(), K, R, E.device(), DX.device(),
                    DK.device(), DE.device());
  mt::checkLaunch("chainEnergy_grad");
  DX.download();
  DK.download();
  DE.download();
  std::vector<double> Scaled(N);
  for (int I = 0; I < N; ++I)
    Scaled[I] = Seed * RefX[I];
  mt::checkArray("d chainEnergy/dx", DX.host(), Scaled.data(), N);
  MESHAD_CHECK_CLOSE("d chainEnergy/dk", DK[0], Seed * RefK);
  MESHAD_CHECK_CLOSE("d E_initial = seed", DE[0], Seed);

  // Float energy against finite differences of the double instance.
  mt::DeviceArray<double> XD(N), ED(1);
  mt::DeviceArray<float> XF(N), EF(1), DXF(N), DEF(1);
  for (int I = 0; I < N; ++I) {
    XF[I] = static_cast<float>(Rng.uniform(0.2, 1.5)); // d/dx != 0 below 2
    XD[I] = XF[I];
  }
  auto EnergyD = [&] {
    XD.upload();
    ED.zero();
    MESHAD_LAUNCH(potential<double>, Grid, Block)(N, XD.device(), ED.device());
    ED.download();
    return ED[0];
  };
  std::vector<double> RefF = mt::fdGradient(EnergyD, XD.host(), N);
  XF.upload();
  EF.zero();
  DXF.zero();
  DEF[0] = 1.0f;
  DEF.upload();
  gp.execute_kernel(Grid, Block, N, XF.device(), EF.device(), DXF.device(),
                    DEF.device());
  mt::checkLaunch("potential_grad<float>");
  DXF.download();
  mt::checkArray("d potential<float>/dx", DXF.host(), RefF.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 82 passed, 0 failed
