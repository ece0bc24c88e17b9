// `new T[n]` (and `malloc`) of a run-time size inside a loop, released in
// the same iteration (issue 13): forward mode allocates and releases the
// tangent buffer beside each iteration's buffer; reverse mode keeps every
// iteration's buffers: the forward sweep tapes the pointers where the
// primal releases them (`meshad::push(_t0, t)`), the reverse of that
// iteration pops them back, and the reverse of the allocation releases
// them. Host functions in forward mode, reverse mode and HVPs, a kernel's
// per-thread buffers in forward and reverse mode and an energy kernel's HVP
// on the CPU emulation, against central differences. A buffer not released in its iteration is
// an error (cxx/diagnostics.cpp).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementwiseKernelChecks.h"
#include "TwoInputChecks.h"
#include <cmath>
#include <cstdlib>
#include <vector>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

int Len = 4; // read at run time

// An energy kernel's HVP: per-iteration buffers in the gradient and in
// forward mode over it.
__global__ void energyRounds(int n, int w, const double *x, double *e) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double s = x[i];
  for (int r = 0; r < 2; ++r) {
    double *t = (double *)malloc(w * sizeof(double));
    for (int k = 0; k < w; ++k)
      t[k] = x[(i + k + 1) % n] * s;
    for (int k = 0; k < w; ++k)
      s += 0.5 * sin(t[k]);
    free(t);
  }
  atomicAdd(e, s * s);
}
// CHECK-LABEL: __global__ void energyRounds_grad(
// CHECK: meshad::push(
// CHECK-LABEL: __global__ void energyRounds_hvp_{{[0-9]+}}(
// CHECK: meshad::newArray(&t, w);
// CHECK: meshad::deleteArray(t);

/// H v of energyRounds against central differences of its gradient along v.
void checkEnergyHvp(mt::RandomInputs &Rng, int W) {
  constexpr int B = ekc::B, N = ekc::N;
  auto g = meshad::gradient(energyRounds, "x, e");
  auto h = meshad::hvp(energyRounds, "x");
  mt::DeviceArray<double> X(N), E(1), DX(N), DE(1), VX(N), HX(N), Seed(1);
  std::vector<double> X0(N), V(N), Ref(N);
  Rng.fill(X0.data(), N, -1, 1);
  Rng.fill(V.data(), N, -1, 1);
  auto GradientAt = [&](double T, int I) {
    for (int J = 0; J < N; ++J)
      X[J] = X0[J] + T * V[J];
    X.upload();
    E.zero();
    DX.zero();
    DE[0] = 1;
    DE.upload();
    g.execute_kernel(dim3(N / B), dim3(B), 0, nullptr, N, W, X.device(),
                     E.device(), DX.device(), DE.device());
    DX.download();
    return DX[I];
  };
  for (int I = 0; I < N; ++I)
    Ref[I] = mt::centralDifference([&](double T) { return GradientAt(T, I); },
                                   0.0);
  for (int I = 0; I < N; ++I) {
    X[I] = X0[I];
    VX[I] = V[I];
  }
  X.upload();
  VX.upload();
  E.zero();
  HX.zero();
  Seed[0] = 1;
  Seed.upload();
  h.execute_kernel(dim3(N / B), dim3(B), 0, nullptr, N, W, X.device(),
                   E.device(), VX.device(), HX.device(), Seed.device());
  mt::checkLaunch("energyRounds_hvp");
  HX.download();
  mt::checkArray("energyRounds H v", HX.host(), Ref.data(), N);
}

// Each iteration's buffer is read by its own reverse (t[i] * t[i]) and
// depends on the previous iterations (s).
double perIteration(double x, double y) {
  int n = Len;
  double s = 0.5;
  for (int k = 0; k < 3; ++k) {
    double *t = new double[n];
    for (int i = 0; i < n; ++i)
      t[i] = sin(x * (i + k + 1)) + y * s;
    double p = 0;
    for (int i = 0; i < n; ++i)
      p += t[i] * t[i];
    s += p * x;
    delete[] t;
  }
  return s;
}
// CHECK-LABEL: double perIteration_darg0(double x, double y) {
// CHECK: meshad::newArray(&t, n);
// CHECK: meshad::newArray(&_d_t, n);
// CHECK: meshad::deleteArray(t);
// CHECK: meshad::deleteArray(_d_t);
// CHECK-LABEL: void perIteration_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&t, n);
// CHECK: meshad::newArray(&_d_t, n);
// CHECK: meshad::push(
// CHECK: meshad::pop(
// CHECK: meshad::deleteArray(_d_t);
// CHECK: meshad::deleteArray(t);
// CHECK-LABEL: void perIteration_hvp(

// A run-time trip count, a size that changes per iteration (malloc), the
// buffer overwritten in place, an iteration that skips its work.
double growing(double x, double y) {
  double s = 1;
  for (int k = 0; k < Len; ++k) {
    double *t = (double *)malloc((k + 1) * sizeof(double));
    for (int i = 0; i <= k; ++i)
      t[i] = s * x + i * y;
    for (int i = 0; i <= k; ++i)
      t[i] = t[i] * cos(t[i]);
    double acc = 0;
    if (k != 1)
      for (int i = 0; i <= k; ++i)
        acc += t[i];
    s = s * 0.5 + acc * y;
    free(t);
  }
  return s;
}
// CHECK-LABEL: double growing_darg0(double x, double y) {
// CHECK-LABEL: void growing_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&t, k + 1);
// CHECK: meshad::deleteArray(t);
// CHECK-LABEL: void growing_hvp(

__global__ void rounds(int n, int w, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double s = 0;
  for (int r = 0; r < 2; ++r) {
    double *t = new double[w];
    for (int k = 0; k < w; ++k)
      t[k] = x[(i + k + r) % n] * (x[i] + s);
    for (int k = 1; k < w; ++k)
      s += sin(t[k]) * t[k - 1];
    delete[] t;
  }
  y[i] = s;
}
// CHECK-LABEL: __global__ void rounds_darg2(int n, int w, const double *x, double *y, const double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&_d_t, w);
// CHECK: meshad::deleteArray(_d_t);
// CHECK-LABEL: __global__ void rounds_grad(int n, int w, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&_d_t, w);
// CHECK: meshad::deleteArray(_d_t);
// CHECK: meshad::deleteArray(t);

int main() {
  mt::RandomInputs Rng;
  for (int L : {1, 3, 5}) {
    Len = L;
    checkAll("perIteration", perIteration,
             meshad::differentiate(perIteration, "x"),
             meshad::differentiate(perIteration, "y"),
             meshad::gradient(perIteration, "x, y"),
             meshad::hvp(perIteration, "x, y"), Rng);
    checkAll("growing", growing, meshad::differentiate(growing, "x"),
             meshad::differentiate(growing, "y"),
             meshad::gradient(growing, "x, y"), meshad::hvp(growing, "x, y"),
             Rng);
  }
  for (int W : {2, 4}) {
    ekc::checkKernel("rounds", rounds, meshad::differentiate(rounds, "x"),
                     meshad::gradient(rounds, "x, y"), Rng, W);
    checkEnergyHvp(Rng, W);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
