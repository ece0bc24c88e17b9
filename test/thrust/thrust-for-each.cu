// thrust::for_each over counting iterators with a lambda that writes
// through the pointers it captures (issue 15): y[i] = a f(x[i]) for every
// index, then an in-place update of y over [1, n) that reads a neighbour
// of x, then a reduction. Reverse mode snapshots the captured buffers
// before each for_each, puts them back around the adjoint and calls the
// lambda's pullback for every index with the captured pointers' adjoints
// (the captured number a: one slot per index, summed);
// forward mode replaces each for_each by its lambda's pushforward (values
// and tangents). Both are checked against central differences.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>

#include "NumericCheck.h"
#include <meshad/Differentiator.h>

// The lambdas run on the device: __host__ __device__ there (CUDA), nothing
// under the CPU emulation.
#if defined(__CUDACC__)
#define HD __host__ __device__
#else
#define HD
#endif

__host__ __device__ double wave(double v) { return sin(v) * v + 0.5 * v; }

/// y[i] = a wave(x[i]); y[i] = y[i] cos(x[i]) + x[i-1]^2 for i >= 1;
/// E = the sum of y.
double energy(const double *x, double *y, int n, double a) {
  thrust::for_each(thrust::device, thrust::counting_iterator<int>(0),
                   thrust::counting_iterator<int>(n),
                   [=] HD(int i) { y[i] = a * wave(x[i]); });
  auto couple = [=] HD(int i) {
    y[i] = y[i] * cos(x[i]) + x[i - 1] * x[i - 1];
  };
  thrust::for_each(thrust::device, thrust::make_counting_iterator(1),
                   thrust::make_counting_iterator(n), couple);
  return thrust::reduce(thrust::device, y, y + n, 0.0);
}

namespace mt = meshad::test;

template <class T> T *managed(int N) {
  T *P;
  cudaMallocManaged(&P, N * sizeof(T));
  return P;
}

int main() {
  const int N = 29;
  mt::RandomInputs Rng;
  double *X = managed<double>(N), *V = managed<double>(N);
  double *Y = managed<double>(N), *DX = managed<double>(N);
  double *DY = managed<double>(N), *Xh = managed<double>(N);
  Rng.fill(X, N, -1.0, 1.0);
  Rng.fill(V, N, -1.0, 1.0);
  double A = Rng.uniform(0.5, 1.5);

  for (int I = 0; I < N; ++I)
    DX[I] = DY[I] = 0;
  double DA = 0;
  auto G = meshad::gradient(energy, "x, y, a");
  G.execute(X, Y, N, A, DX, DY, &DA);
  for (int I = 0; I < N; ++I)
    MESHAD_CHECK_CLOSE("reverse: dE/dx", DX[I],
                       mt::centralDifferenceAt(
                           [&] { return energy(X, Y, N, A); }, X, I));
  MESHAD_CHECK_CLOSE("reverse: dE/da", DA, mt::centralDifference(
      [&](double H) { return energy(X, Y, N, H); }, A));
  // y is overwritten before it is read: no derivative in its contents.
  int Nonzero = 0;
  for (int I = 0; I < N; ++I)
    Nonzero += DY[I] != 0;
  MESHAD_CHECK_CLOSE("reverse: dE/dy is zero", double(Nonzero), 0.0);

  auto F = meshad::differentiate(energy, "x");
  double Got = F.execute(X, Y, N, A, V, DY);
  double Fd = mt::centralDifference(
      [&](double H) {
        for (int I = 0; I < N; ++I)
          Xh[I] = X[I] + H * V[I];
        return energy(Xh, Y, N, A);
      },
      0.0);
  MESHAD_CHECK_CLOSE("forward: dE/dx . v", Got, Fd);
  auto FA = meshad::differentiate(energy, "a");
  MESHAD_CHECK_CLOSE("forward: dE/da", FA.execute(X, Y, N, A, DY), DA);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 33 passed, 0 failed
