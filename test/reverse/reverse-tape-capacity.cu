// The capacity and placement of reverse mode's tapes. A tape whose pushes
// sit in loops of constant trip counts holds at most their product (times
// the values pushed per iteration): in device code it is declared with
// exactly that capacity, a per-thread array of that size (less local memory
// than the default 64 values, and no overflow trap past them: 100 values
// here). A trip count known only at run time, or host code (whose tapes
// grow on the heap), keep the default meshad::Tape<T>. Every gradient is
// checked against central finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

// One value per iteration of a loop of 4: a tape of 4.
__global__ void product4(const double *x, double *out) {
  double prod = 1;
  for (int k = 0; k < 4; ++k)
    prod = prod * (0.9 + 0.1 * sin(x[k])) + x[k];
  out[0] = prod;
}
// CHECK-LABEL: __global__ void product4_grad(
// CHECK: meshad::Tape<double, 4> _t0;
// CHECK: meshad::push(_t0, prod);
// CHECK: prod = meshad::pop(_t0);

// 100 values: more than the default capacity.
__global__ void product100(const double *x, double *out) {
  double prod = 1;
  for (int k = 99; k >= 0; --k)
    prod = prod * (0.99 + 0.01 * cos(x[k])) + 0.01 * x[k];
  out[0] = prod;
}
// CHECK-LABEL: __global__ void product100_grad(
// CHECK: meshad::Tape<double, 100> _t0;

// Nested loops of 3 and 5 (stepping by 2 over 0..9): 15 values; the inner
// loop's trip count is taped once per outer iteration.
__global__ void nested(const double *x, double *out, double w) {
  double s = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 10; b += 2)
      s = w * sin(s) + x[a * 10 + b];
  out[0] = s;
}
// CHECK-LABEL: __global__ void nested_grad_0_1(
// CHECK-DAG: meshad::Tape<double, 15> _t{{[0-9]+}};
// CHECK-DAG: meshad::Tape<int, 3> _t{{[0-9]+}};

// A trip count known only at run time: the default capacity.
__global__ void productK(const double *x, double *out, int K) {
  double prod = 1;
  for (int k = 0; k < K; ++k)
    prod = prod * (0.9 + 0.1 * sin(x[k])) + x[k];
  out[0] = prod;
}
// CHECK-LABEL: __global__ void productK_grad(
// CHECK: meshad::Tape<double> _t0;

// Host code: the tape grows on the heap.
double hostProduct(const double *x) {
  double prod = 1;
  for (int k = 0; k < 4; ++k)
    prod = prod * (0.9 + 0.1 * sin(x[k])) + x[k];
  return prod;
}
// CHECK-LABEL: void hostProduct_grad(
// CHECK: meshad::Tape<double> _t0;

/// Checks the gradient of a one-thread kernel k(x, out, extra...) w.r.t. x
/// (N values) against central differences of out[0].
template <class Kernel, class Grad, class... Extra>
void checkKernel(const char *Name, Kernel K, Grad G, int N,
                 meshad::test::RandomInputs &Rng, Extra... E) {
  meshad::test::DeviceArray<double> X(N), Out(1), DX(N), DOut(1);
  Rng.fill(X.host(), N, -1, 1);
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(K, 1, 1)(X.device(), Out.device(), E...);
    meshad::test::checkLaunch(Name);
    Out.download();
    return Out[0];
  };
  std::vector<double> Expected = meshad::test::fdGradient(Loss, X.host(), N);
  X.upload();
  DOut[0] = 1;
  DOut.upload();
  DX.zero();
  G.execute_kernel(dim3(1), dim3(1), X.device(), Out.device(), E...,
                   DX.device(), DOut.device());
  meshad::test::checkLaunch(Name);
  DX.download();
  meshad::test::checkArray(Name, DX.host(), Expected.data(), N);
}

int main() {
  meshad::test::RandomInputs Rng;
  checkKernel("product4", product4, meshad::gradient(product4, "x, out"), 4,
              Rng);
  checkKernel("product100", product100,
              meshad::gradient(product100, "x, out"), 100, Rng);
  checkKernel("nested", nested, meshad::gradient(nested, "x, out"), 30, Rng,
              0.7);
  checkKernel("productK", productK, meshad::gradient(productK, "x, out"), 20,
              Rng, 20);
  double X[4], DX[4] = {0, 0, 0, 0};
  Rng.fill(X, 4, -1, 1);
  meshad::gradient(hostProduct, "x").execute(X, DX);
  for (int I = 0; I < 4; ++I)
    MESHAD_CHECK_CLOSE("hostProduct", DX[I],
                       meshad::test::centralDifferenceAt(
                           [&] { return hostProduct(X); }, X, I));
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
