// execute/execute_kernel with arguments that do not fit the derived
// function: one error at the user's call that names the derived signature in
// its note, not errors from inside the header (issue 16). The calls that fit
// run, and their gradients are checked against the analytic ones.
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify -DBAD
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin %s -o %t
// RUN: %t | FileCheck %s
#include <meshad/Differentiator.h>
#include <cmath>
#include <cstdio>

double product(double x, double y) { return x * y * y; }

__global__ void squares(int n, const double *x, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(E, x[i] * x[i]);
}

int main() {
  auto g = meshad::gradient(product, "x, y");
  auto k = meshad::gradient(squares, "x, E");
  double dx = 0, dy = 0;
#ifdef BAD
  g.execute(1.0, 2.0, &dx); // expected-error {{call to deleted member function 'execute': meshad: these arguments do not fit the derived function}}
  // expected-note@meshad/Differentiator.h:* {{DerivedSignature = void (*)(double, double, double *, double *)}}
  // expected-note@meshad/Differentiator.h:* {{candidate template ignored}}
  g.execute(1.0, 2.0, dx, dy); // expected-error {{call to deleted member function 'execute'}}
  // expected-note@meshad/Differentiator.h:* {{DerivedSignature = void (*)(double, double, double *, double *)}}
  // expected-note@meshad/Differentiator.h:* {{candidate template ignored}}
  k.execute_kernel(dim3(1), dim3(32), 4, (double *)nullptr, (double *)nullptr); // expected-error {{call to deleted member function 'execute_kernel': meshad: these arguments do not fit the derived kernel}}
  // expected-note@meshad/Differentiator.h:* {{DerivedSignature = void (*)(int, const double *, double *, double *, double *)}}
  // expected-note@meshad/Differentiator.h:* {{candidate template ignored}}
#endif
  g.execute(1.5, -2.0, &dx, &dy);
  // CHECK: product: dx 4 (4), dy -6 (-6)
  std::printf("product: dx %g (%g), dy %g (%g)\n", dx, 4.0, dy, 2 * 1.5 * -2.0);
  double x[4] = {1, -2, 3, 0.5}, E = 0, dX[4] = {0, 0, 0, 0}, dE = 1;
  // Both forms: plain, and with sharedBytes and a stream.
  k.execute_kernel(dim3(1), dim3(32), 4, x, &E, dX, &dE);
  k.execute_kernel(dim3(1), dim3(32), 0, nullptr, 4, x, &E, dX, &dE);
  bool Ok = true;
  for (int I = 0; I < 4; ++I)
    Ok &= std::fabs(dX[I] - 2 * 2 * x[I]) < 1e-12;
  // CHECK: squares: PASS
  std::printf("squares: %s\n", Ok ? "PASS" : "FAIL");
}
