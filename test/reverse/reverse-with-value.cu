// meshad::WithValue: the value and the gradient from one call. A host
// function returns the primal's value beside its gradient (also through
// early returns and a loop that overwrites a local); a device function's
// gradient, called by name from a kernel, returns the value; an energy
// kernel leaves E with the atomicAdd sum and f with the per-element outputs
// while the seeds are read from _d_E and _d_f (reset after reading by
// default, kept with meshad::KeepSeeds | meshad::WithValue); an element
// kernel's two-phase gradient (meshad::ElementStrategy's default) keeps its
// energy too. Values are checked against the primal, gradients against
// central differences. An output passed as its own seed stops the program
// (meshad::requireSeparateSeed, first thing in the gradient).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: FileCheck %s --check-prefix=ELEM < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DSEED_IS_OUTPUT %s -o %t.same
// RUN: not --crash %t.same 2>&1 | FileCheck %s --check-prefix=SAME
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

// A loop that overwrites s (taped) and an early return.
double energy(const double *x, int n, double k) {
  double s = 0.0;
  for (int i = 0; i < n; ++i)
    s = s * 0.9 + k * sin(x[i]) * x[i];
  if (s < 0.0)
    return -s * k;
  return s * s + k;
}
// CHECK-LABEL: double energy_grad_with_value(const double *x, int n, double k, double *_d_x, double *_d_k) {
// CHECK: _value = -s * k;
// CHECK: _value = s * s + k;
// CHECK: return _value;

// A device energy whose gradient a kernel calls by name (__host__ too: host
// code names it in the request).
__host__ __device__ double spring(const double *a, const double *b, double k) {
  double dx = b[0] - a[0], dy = b[1] - a[1];
  double l = sqrt(dx * dx + dy * dy);
  return 0.5 * k * (l - 1.0) * (l - 1.0);
}
// CHECK-LABEL: __host__ __device__ double spring_grad_0_1_with_value(const double *a, const double *b, double k, double *_d_a, double *_d_b) {
// CHECK: return _value;

__global__ void springPrimal(int n, const double *x, double k, double *e) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    e[i] = spring(&x[2 * i], &x[2 * i + 2], k);
}

#ifndef MESHAD_PLANNING
// Each thread its own slice of g: no two threads add to one element.
__global__ void springValueAndGrad(int n, const double *x, double k,
                                   double *e, double *g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    e[i] = spring_grad_0_1_with_value(&x[2 * i], &x[2 * i + 2], k, &g[4 * i],
                                      &g[4 * i + 2]);
}
#endif

// An energy summed with atomicAdd and a per-element output.
__global__ void springs(int n, const double *x, double k, double *E,
                        double *f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double d = x[i + 1] - x[i];
    double e = 0.5 * k * d * d + 0.1 * cos(x[i]);
    f[i] = k * d * x[i];
    atomicAdd(&E[0], e);
  }
}
// REMARK: remark: meshad::WithValue: 'E' is left with the primal's values (its stores are kept); its seed is read from the adjoint argument, which must be a separate buffer
// REMARK: remark: meshad::WithValue: 'f' is left with the primal's values
// CHECK-LABEL: __global__ void springs_grad_with_value(int n, const double *x, double k, double *E, double *f, double *_d_x, double *_d_k, double *_d_E, double *_d_f) {
// CHECK: meshad::requireSeparateSeed(E, _d_E);
// CHECK-NEXT: meshad::requireSeparateSeed(f, _d_f);
// CHECK: f[i] = k * d * x[i];
// CHECK: atomicAdd(&E[0], e);
// CHECK: _z0 = &_d_f[i];
// CHECK: *_z0 = 0.;
// CHECK-LABEL: __global__ void springs_grad_keep_seeds_with_value(
// CHECK: f[i] = k * d * x[i];
// CHECK: atomicAdd(&E[0], e);
// CHECK-NOT: _d_f[i] = 0
// CHECK: }

// An element kernel: two-phase slots by default (meshad::ElementStrategy),
// the energy kept in E.
__global__ void edgeSprings(int n, const int *edges, const double *x,
                            double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    double d = x[edges[2 * e]] - x[edges[2 * e + 1]];
    atomicAdd(E, d * d * (0.5 + d * d));
  }
}
// REMARK: remark: gradient of 'edgeSprings': two-phase slots for x
// ELEM-LABEL: __global__ void edgeSprings_grad_with_value(int n, const int *edges, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// ELEM: atomicAdd(E, d * d * (0.5 + d * d));
// ELEM: meshad::slotStore<2, 1>(_slots, n, e, 2 * e, 0, _r0);

namespace mt = meshad::test;

void checkHost(mt::RandomInputs &Rng) {
  auto G = meshad::gradient(energy, "x, k", meshad::WithValue);
  constexpr int N = 8;
  for (double K : {1.3, -2.1}) { // s > 0, then s < 0: both returns
    double X[N], DX[N] = {}, DK = 0;
    Rng.fill(X, N, 0.2, 1.4);
    double Value = G.execute(X, N, K, DX, &DK);
    MESHAD_CHECK_CLOSE("energy value", Value, energy(X, N, K));
    auto F = [&] { return energy(X, N, K); };
    std::vector<double> RefX = mt::fdGradient(F, X, N);
    mt::checkArray("d energy/dx", DX, RefX.data(), N);
    MESHAD_CHECK_CLOSE("d energy/dk", DK, mt::fdGradient(F, &K, 1)[0]);
  }
}

void checkDevice(mt::RandomInputs &Rng) {
  // The kernel above calls it by name.
  auto G = meshad::gradient(spring, "a, b", meshad::WithValue);
  (void)G;
  constexpr int N = 13;
  const dim3 Grid(2), Block(8);
  const double K = 1.7;
  mt::DeviceArray<double> X(2 * N + 2), E(N), Grad(4 * N), Ref(N);
  Rng.fill(X.host(), 2 * N + 2, -1, 1);
  X.upload();
  MESHAD_LAUNCH(springPrimal, Grid, Block)(N, X.device(), K, Ref.device());
  Ref.download();
  std::vector<double> Values(Ref.host(), Ref.host() + N);
  Grad.zero();
  MESHAD_LAUNCH(springValueAndGrad, Grid, Block)(N, X.device(), K, E.device(),
                                                 Grad.device());
  mt::checkLaunch("springValueAndGrad");
  E.download();
  Grad.download();
  for (int I = 0; I < N; ++I) {
    MESHAD_CHECK_CLOSE("spring value", E[I], Values[I]);
    // Element I's energy against central differences in its 4 inputs.
    auto F = [&] {
      X.upload();
      MESHAD_LAUNCH(springPrimal, Grid, Block)(N, X.device(), K,
                                               Ref.device());
      Ref.download();
      return Ref[I];
    };
    std::vector<double> RefG = mt::fdGradient(F, &X[2 * I], 4);
    mt::checkArray("d spring/d(a, b)", &Grad[4 * I], RefG.data(), 4);
  }
}

template <class Grad>
void checkKernel(mt::RandomInputs &Rng, Grad G, bool KeepSeeds) {
  constexpr int N = 37;
  const dim3 Grid(3), Block(16);
  mt::DeviceArray<double> X(N + 1), E(1), F(N), DX(N + 1), DK(1), DE(1),
      DF(N), RefF(N);
  Rng.fill(X.host(), N + 1, -1, 1);
  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1.5);
  double K = Rng.uniform(0.5, 2), SeedE = 1.25;
  // L = SeedE * E + sum W[i] f[i], from the primal.
  auto Loss = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(springs, Grid, Block)(N, X.device(), K, E.device(),
                                        RefF.device());
    E.download();
    RefF.download();
    return SeedE * E[0] + mt::weightedSum(W.data(), RefF.host(), N);
  };
  std::vector<double> RefX = mt::fdGradient(Loss, X.host(), N + 1);
  double RefK = mt::fdGradient(Loss, &K, 1)[0];
  Loss();
  double RefE = E[0];
  X.upload();
  E.zero();
  F.zero();
  DX.zero();
  DK.zero();
  DE[0] = SeedE;
  DE.upload();
  for (int I = 0; I < N; ++I)
    DF[I] = W[I];
  DF.upload();
  G.execute_kernel(Grid, Block, N, X.device(), K, E.device(), F.device(),
                   DX.device(), DK.device(), DE.device(), DF.device());
  mt::checkLaunch("springs_grad_with_value");
  for (auto *A : {&E, &F, &DX, &DK, &DE, &DF})
    A->download();
  MESHAD_CHECK_CLOSE("springs E (the primal's sum)", E[0], RefE);
  mt::checkArray("springs f (the primal's)", F.host(), RefF.host(), N);
  mt::checkArray("d springs/dx", DX.host(), RefX.data(), N + 1);
  MESHAD_CHECK_CLOSE("d springs/dk", DK[0], RefK);
  MESHAD_CHECK_CLOSE("seed of E unchanged", DE[0], SeedE);
  if (KeepSeeds)
    mt::checkArray("seeds of f kept", DF.host(), W.data(), N);
  else
    mt::checkZero("seeds of f reset", DF.host(), N);
}

void checkElements(mt::RandomInputs &Rng) {
  constexpr int NV = 9, NE = 14;
  const dim3 Grid(2), Block(8);
  mt::DeviceArray<int> Edges(2 * NE);
  for (int E = 0; E < NE; ++E) {
    Edges[2 * E] = E % NV;
    Edges[2 * E + 1] = (3 * E + 1) % NV;
  }
  Edges.upload();
  mt::DeviceArray<double> X(NV), E(1), DX(NV), DE(1);
  Rng.fill(X.host(), NV, -1, 1);
  auto Energy = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(edgeSprings, Grid, Block)(NE, Edges.device(), X.device(),
                                            E.device());
    E.download();
    return E[0];
  };
  std::vector<double> RefX = mt::fdGradient(Energy, X.host(), NV);
  double RefE = Energy();
  auto G = meshad::gradient(edgeSprings, "x, E", meshad::WithValue);
  E.zero();
  DX.zero();
  DE[0] = 1.0;
  DE.upload();
  G.execute_kernel(Grid, Block, NE, Edges.device(), X.device(), E.device(),
                   DX.device(), DE.device());
  mt::checkLaunch("edgeSprings_grad_with_value");
  E.download();
  DX.download();
  MESHAD_CHECK_CLOSE("edgeSprings E (the primal's sum)", E[0], RefE);
  mt::checkArray("d edgeSprings/dx", DX.host(), RefX.data(), NV);
}

int main() {
  mt::RandomInputs Rng;
#ifdef SEED_IS_OUTPUT
  // The output passed as its own seed: stopped before anything is computed.
  {
    mt::DeviceArray<double> X(9), E(1), F(8), DX(9), DK(1);
    auto G = meshad::gradient(springs, "x, k, E, f", meshad::WithValue);
    G.execute_kernel(dim3(1), dim3(8), 8, X.device(), 1.0, E.device(),
                     F.device(), DX.device(), DK.device(), E.device(),
                     F.device());
  }
#endif
  checkElements(Rng);
  checkHost(Rng);
  checkDevice(Rng);
  checkKernel(Rng, meshad::gradient(springs, "x, k, E, f", meshad::WithValue),
              false);
  checkKernel(Rng,
              meshad::gradient(springs, "x, k, E, f",
                               meshad::KeepSeeds | meshad::WithValue),
              true);
  return mt::summary();
}
// SAME: meshad: a seed is the output itself (meshad::WithValue keeps the output and reads the seed from the adjoint argument): pass a separate buffer as the output's adjoint
// NUM-NOT: FAIL
// NUM: numeric checks: 325 passed, 0 failed
