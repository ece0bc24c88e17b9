// A value that carries a derivative stored into a global variable (a host
// global or a __device__ array) is an error at the store in forward and
// reverse mode: derivatives do not flow through globals, and before this
// check a read-back gave a silent zero derivative (found by tidy3, session
// 9). Globals that hold only constants (read, or written with values that
// carry no derivative) still work; their derivatives are checked against the
// analytic ones.
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin -I%test_inputs %s -Xclang -verify -DBAD
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <meshad/Differentiator.h>

double Scale = 3.0;
int Calls = 0;
__device__ double DeviceScale[1] = {3.0};

#ifdef BAD
double Scratch;
__device__ double DeviceScratch[1];

double squareThroughGlobal(double x) {
  Scratch = x * x; // expected-error 2 {{writing a derivative-carrying value to global variable 'Scratch' is not supported: derivatives do not flow through globals}}
  return Scratch;
}

__global__ void squareKernel(const double *x, double *y) {
  DeviceScratch[0] = x[0] * x[0]; // expected-error {{writing a derivative-carrying value to global variable 'DeviceScratch' is not supported}}
  y[0] = DeviceScratch[0];
}

void useBad() {
  auto Fwd = meshad::differentiate(squareThroughGlobal, "x");
  auto Grad = meshad::gradient(squareThroughGlobal, "x");
  auto KGrad = meshad::gradient(squareKernel, "x, y");
}
#endif

// Reads a global constant and counts its calls in a global: both inactive.
double scaled(double x) {
  Calls = Calls + 1;
  return Scale * x * x;
}

__global__ void scaledKernel(const double *x, double *y) {
  y[0] = DeviceScale[0] * x[0] * x[0];
}

int main() {
  meshad::test::RandomInputs Rng;
  double X = Rng.uniform(0.5, 2.0);
  auto Fwd = meshad::differentiate(scaled, "x");
  MESHAD_CHECK_CLOSE("forward", Fwd.execute(X), 2 * Scale * X);
  auto Grad = meshad::gradient(scaled, "x");
  double DX = 0;
  Grad.execute(X, &DX);
  MESHAD_CHECK_CLOSE("reverse", DX, 2 * Scale * X);
  auto KGrad = meshad::gradient(scaledKernel, "x, y");
  double Xs[1] = {X}, Ys[1] = {0}, DXs[1] = {0}, DYs[1] = {1};
  KGrad.execute_kernel(dim3(1), dim3(1), Xs, Ys, DXs, DYs);
  MESHAD_CHECK_CLOSE("kernel reverse", DXs[0], 2 * 3.0 * X);
  return meshad::test::summary();
}
