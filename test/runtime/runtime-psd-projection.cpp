// meshad/runtime/PsdProjection.h: projectPsd and projectPsdPacked against
// the analytic projection Q diag(max(l, MinEig)) Q^T of matrices built as
// Q diag(l) Q^T from random orthogonal Q and chosen eigenvalues l (some
// negative, some repeated), for n = 1..12 (closed forms at 2 and 3, Jacobi
// above and on repeated 3x3 eigenvalues), double and float, on the host and
// in a kernel under the CPU emulation; PSD matrices come back unchanged.
//
// RUN: %clangxx -std=c++17 -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t.cpu
// RUN: %t.cpu | FileCheck %s --check-prefixes=CHECK,CPU
// RUN: %if cuda %{ %clangxx -x cuda %cuda_flags -fsyntax-only -I%I -I%test_inputs %s %}
//
// CPU: PASS kernel n=12
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <cmath>
#include <meshad/runtime/PsdProjection.h>
#include <string>
#include <vector>

namespace mt = meshad::test;

/// A random orthogonal n x n matrix: a product of Givens rotations.
static std::vector<double> randomOrthogonal(int N, mt::RandomInputs &Rng) {
  std::vector<double> Q(N * N, 0.0);
  for (int I = 0; I < N; ++I)
    Q[I * N + I] = 1;
  for (int R = 0; R < 3 * N * N; ++R) {
    int P = static_cast<int>(Rng.uniform(0, N)) % N;
    int S = static_cast<int>(Rng.uniform(0, N)) % N;
    if (P == S)
      continue;
    double A = Rng.uniform(-3.2, 3.2), C = std::cos(A), Sn = std::sin(A);
    for (int K = 0; K < N; ++K) {
      double X = Q[K * N + P], Y = Q[K * N + S];
      Q[K * N + P] = C * X - Sn * Y;
      Q[K * N + S] = Sn * X + C * Y;
    }
  }
  return Q;
}

/// Q diag(L) Q^T.
static std::vector<double> compose(const std::vector<double> &Q,
                                   const std::vector<double> &L, int N) {
  std::vector<double> H(N * N, 0.0);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J)
      for (int K = 0; K < N; ++K)
        H[I * N + J] += Q[I * N + K] * L[K] * Q[J * N + K];
  return H;
}

/// Checks ||Got - Want||_F <= Tol ||Scale||_F (Scale: the input matrix,
/// as Want is 0 when every eigenvalue is clamped): MESHAD_CHECK_CLOSE_TOL's
/// relative error between ||Got - Want|| + ||Scale|| and ||Scale|| is
/// ||Got - Want|| / (||Got - Want|| + ||Scale||), at most that.
template <class T>
static void checkMatrix(const std::string &Name, const T *Got,
                        const std::vector<double> &Want,
                        const std::vector<double> &Scale, double Tol) {
  double Diff = 0, Norm = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    Diff += (Got[I] - Want[I]) * (Got[I] - Want[I]);
    Norm += Scale[I] * Scale[I];
  }
  MESHAD_CHECK_CLOSE_TOL(Name.c_str(), std::sqrt(Diff) + std::sqrt(Norm),
                         std::sqrt(Norm), Tol);
}

/// Projects Q diag(L) Q^T, dense and packed, in T; checks against the
/// analytic projection. Tolerances: 1e-10 in double (the rotations lose a
/// few ulps per sweep, 12x12 needs ~8 sweeps), 2e-5 in float (the same in
/// single precision, eps 6e-8, with the cubic's acos at 3x3).
template <class T>
static void checkCase(const std::string &Name, const std::vector<double> &L,
                      double MinEig, mt::RandomInputs &Rng) {
  int N = static_cast<int>(L.size());
  double Tol = sizeof(T) == 8 ? 1e-10 : 2e-5;
  std::vector<double> Q = randomOrthogonal(N, Rng), Clamped(L);
  for (double &X : Clamped)
    X = X < MinEig ? MinEig : X;
  std::vector<double> H = compose(Q, L, N), Want = compose(Q, Clamped, N);
  std::vector<T> Dense(H.begin(), H.end()), Packed(N * (N + 1) / 2);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J <= I; ++J)
      Packed[I * (I + 1) / 2 + J] = static_cast<T>(H[I * N + J]);
  std::string Tag = Name + (sizeof(T) == 8 ? " double" : " float");
  meshad::projectPsd(Dense.data(), N, static_cast<T>(MinEig));
  checkMatrix(Tag + " dense", Dense.data(), Want, H, Tol);
  meshad::projectPsdPacked(Packed.data(), N, static_cast<T>(MinEig));
  std::vector<T> Unpacked(N * N);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J <= I; ++J)
      Unpacked[I * N + J] = Unpacked[J * N + I] = Packed[I * (I + 1) / 2 + J];
  checkMatrix(Tag + " packed", Unpacked.data(), Want, H, Tol);
}

/// n eigenvalues in [-2, 2], at least one negative.
static std::vector<double> randomSpectrum(int N, mt::RandomInputs &Rng) {
  std::vector<double> L(N);
  Rng.fill(L.data(), N, -2.0, 2.0);
  L[0] = -std::fabs(L[0]) - 0.1;
  return L;
}

#if defined(MESHAD_CPU_CUDA)
__global__ void projectKernel(double *H, int N) {
  meshad::projectPsd(H + threadIdx.x * N * N, N);
}
#endif

int main() {
  mt::RandomInputs Rng;
  for (int N = 1; N <= meshad::MaxPsdSize; ++N)
    for (int Trial = 0; Trial < 3; ++Trial) {
      std::vector<double> L = randomSpectrum(N, Rng);
      std::string Name = "n=" + std::to_string(N) + " #" + std::to_string(Trial);
      checkCase<double>(Name, L, 0.0, Rng);
      checkCase<float>(Name, L, 0.0, Rng);
      checkCase<double>(Name + " MinEig=0.5", L, 0.5, Rng);
    }
  // Repeated eigenvalues (the 3x3 closed form hands these to Jacobi).
  checkCase<double>("2x2 -I", {-1, -1}, 0.0, Rng);
  checkCase<double>("3x3 {-1,-1,2}", {-1, -1, 2}, 0.0, Rng);
  checkCase<double>("3x3 {3,3,-1}", {3, 3, -1}, 0.0, Rng);
  checkCase<double>("3x3 -I", {-1, -1, -1}, 1e-8, Rng);
  checkCase<float>("3x3 {-1,-1,2}", {-1, -1, 2}, 0.0, Rng);
  checkCase<double>("12x12 {-1 x6, 1 x6}",
                    {-1, -1, -1, -1, -1, -1, 1, 1, 1, 1, 1, 1}, 0.0, Rng);
  // Rank-deficient, like a spring's [K -K; -K K]: zero eigenvalues stay.
  checkCase<double>("4x4 {10,-2,0,0}", {10, -2, 0, 0}, 0.0, Rng);
  // A PSD matrix comes back exactly as it was.
  std::vector<double> Q = randomOrthogonal(5, Rng);
  std::vector<double> Psd = compose(Q, {0.5, 1, 2, 3, 4}, 5), Copy = Psd;
  meshad::projectPsd(Copy.data(), 5);
  bool Same = Copy == Psd;
  MESHAD_CHECK_CLOSE("PSD 5x5 unchanged", Same ? 1.0 : 0.0, 1.0);
  MESHAD_CHECK_CLOSE("n=13 refused",
                     meshad::projectPsd(Copy.data(), 13) ? 0.0 : 1.0, 1.0);
#if defined(MESHAD_CPU_CUDA)
  // Two threads, each projecting its own 12x12 matrix in a kernel.
  const int N = 12;
  std::vector<double> Lk = randomSpectrum(N, Rng), Clamped(Lk);
  for (double &X : Clamped)
    X = X < 0 ? 0 : X;
  std::vector<double> Qk = randomOrthogonal(N, Rng);
  std::vector<double> Hk = compose(Qk, Lk, N), Want = compose(Qk, Clamped, N);
  double *D = nullptr;
  cudaMalloc(&D, 2 * N * N * sizeof(double));
  cudaMemcpy(D, Hk.data(), N * N * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(D + N * N, Hk.data(), N * N * sizeof(double),
             cudaMemcpyHostToDevice);
  MESHAD_LAUNCH(projectKernel, 1, 2)(D, N);
  std::vector<double> Out(2 * N * N);
  cudaMemcpy(Out.data(), D, 2 * N * N * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(D);
  checkMatrix("kernel n=12", Out.data(), Want, Hk, 1e-10);
  checkMatrix("kernel n=12 thread 1", Out.data() + N * N, Want, Hk, 1e-10);
#endif
  return mt::summary();
}
