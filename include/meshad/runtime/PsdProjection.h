//===- meshad/runtime/PsdProjection.h - Clamping eigenvalues ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Projects a small dense symmetric matrix onto the positive semi-definite
/// cone, as projected Newton needs for local Hessians: H = V diag(l) V^T
/// becomes V diag(max(l, MinEig)) V^T. Host and device code (and the CPU
/// emulation), no allocation, float or double:
///   - n = 2: closed form;
///   - n = 3: closed-form eigenvalues (the trigonometric solution of the
///     characteristic cubic) and, for each clamped one, its eigenvector
///     from a cross product of two rows of H - l I; when an eigenvalue is
///     repeated (no well-conditioned cross product) it falls back to
///     Jacobi;
///   - 4 <= n <= 12 (MaxPsdSize): cyclic Jacobi rotations.
/// A matrix whose eigenvalues are all at least MinEig is left unchanged.
/// Dense matrices are row-major n x n; packed ones hold the lower triangle
/// row by row (n (n + 1) / 2 values: (0,0), (1,0), (1,1), (2,0)...), entry
/// (i, j), j <= i, at i (i + 1) / 2 + j.
///
/// \code
///   double H[9 * 9];
///   h.execute(x, H);                 // auto h = meshad::hessian(f, "x[0:9]")
///   meshad::projectPsd(H, 9);        // now H >= 0
///   double P[3 * 4 / 2] = {2, -3, 2, 0, 0, 1};
///   meshad::projectPsdPacked(P, 3, 1e-8); // eigenvalues >= 1e-8
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_PSDPROJECTION_H
#define MESHAD_RUNTIME_PSDPROJECTION_H

#include <cmath>

#if !defined(MESHAD_HOST_DEVICE)
#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)
#define MESHAD_HOST_DEVICE __host__ __device__
#else
#define MESHAD_HOST_DEVICE
#endif
#endif

namespace meshad {

/// The largest n that projectPsd and projectPsdPacked take.
inline constexpr int MaxPsdSize = 12;

namespace detail {

template <class T> MESHAD_HOST_DEVICE inline T psdAbs(T X) {
  return X < T(0) ? -X : X;
}
template <class T> MESHAD_HOST_DEVICE inline T psdMax(T A, T B) {
  return A < B ? B : A;
}

/// Eigen-decomposes the row-major symmetric \p A (n x n) in place by cyclic
/// Jacobi rotations: on return its diagonal holds the eigenvalues and the
/// columns of \p V (n x n) the eigenvectors.
template <class T>
MESHAD_HOST_DEVICE inline void jacobiEigen(T *A, T *V, int N) {
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J)
      V[I * N + J] = I == J ? T(1) : T(0);
  for (int Sweep = 0; Sweep < 64; ++Sweep) {
    T Off = 0, Diag = 0;
    for (int I = 0; I < N; ++I) {
      Diag += A[I * N + I] * A[I * N + I];
      for (int J = I + 1; J < N; ++J)
        Off += A[I * N + J] * A[I * N + J];
    }
    // Converged to the precision of T (relative to the whole matrix).
    if (Off <= T(1e-30) * (Diag + Off) || Off == T(0))
      return;
    for (int P = 0; P < N; ++P)
      for (int Q = P + 1; Q < N; ++Q) {
        T Apq = A[P * N + Q];
        if (Apq == T(0))
          continue;
        T Theta = (A[Q * N + Q] - A[P * N + P]) / (T(2) * Apq);
        T Tn = T(1) / (psdAbs(Theta) + sqrt(Theta * Theta + T(1)));
        if (Theta < T(0))
          Tn = -Tn;
        T C = T(1) / sqrt(Tn * Tn + T(1)), S = Tn * C;
        for (int K = 0; K < N; ++K) { // A <- A J (columns p, q)
          T Akp = A[K * N + P], Akq = A[K * N + Q];
          A[K * N + P] = C * Akp - S * Akq;
          A[K * N + Q] = S * Akp + C * Akq;
        }
        for (int K = 0; K < N; ++K) { // A <- J^T A (rows p, q)
          T Apk = A[P * N + K], Aqk = A[Q * N + K];
          A[P * N + K] = C * Apk - S * Aqk;
          A[Q * N + K] = S * Apk + C * Aqk;
        }
        for (int K = 0; K < N; ++K) { // V <- V J
          T Vkp = V[K * N + P], Vkq = V[K * N + Q];
          V[K * N + P] = C * Vkp - S * Vkq;
          V[K * N + Q] = S * Vkp + C * Vkq;
        }
      }
  }
}

/// Jacobi projection of the dense \p H (n x n, n <= MaxPsdSize).
template <class T>
MESHAD_HOST_DEVICE inline void projectPsdJacobi(T *H, int N, T MinEig) {
  T A[MaxPsdSize * MaxPsdSize], V[MaxPsdSize * MaxPsdSize];
  for (int I = 0; I < N * N; ++I)
    A[I] = H[I];
  jacobiEigen(A, V, N);
  bool Clamp = false;
  for (int K = 0; K < N; ++K)
    Clamp |= A[K * N + K] < MinEig;
  if (!Clamp)
    return;
  for (int I = 0; I < N; ++I)
    for (int J = 0; J <= I; ++J) {
      T Sum = 0;
      for (int K = 0; K < N; ++K)
        Sum += V[I * N + K] * psdMax(A[K * N + K], MinEig) * V[J * N + K];
      H[I * N + J] = H[J * N + I] = Sum;
    }
}

/// Adds (\p Target - \p Lambda) v v^T to the dense n x n \p H (n = 2, 3),
/// v = \p Vec the unit eigenvector of Lambda.
template <class T>
MESHAD_HOST_DEVICE inline void shiftEigen(T *H, int N, const T *Vec,
                                          T Lambda, T Target) {
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J)
      H[I * N + J] += (Target - Lambda) * Vec[I] * Vec[J];
}

template <class T>
MESHAD_HOST_DEVICE inline void projectPsd2(T *H, T MinEig) {
  T A = H[0], B = (H[1] + H[2]) / T(2), C = H[3];
  H[1] = H[2] = B;
  T Mean = (A + C) / T(2), Half = (A - C) / T(2);
  T R = sqrt(Half * Half + B * B);
  T Lambda[2] = {Mean - R, Mean + R};
  if (Lambda[0] >= MinEig)
    return;
  if (R == T(0)) { // A multiple of the identity.
    H[0] = H[3] = MinEig;
    H[1] = H[2] = T(0);
    return;
  }
  for (int K = 0; K < 2; ++K) {
    if (Lambda[K] >= MinEig)
      continue;
    // (B, l - A) and (l - C, B) are both eigenvectors; take the longer.
    T V[2] = {B, Lambda[K] - A}, W[2] = {Lambda[K] - C, B};
    T *U = V[0] * V[0] + V[1] * V[1] >= W[0] * W[0] + W[1] * W[1] ? V : W;
    T Norm = sqrt(U[0] * U[0] + U[1] * U[1]);
    U[0] /= Norm;
    U[1] /= Norm;
    shiftEigen(H, 2, U, Lambda[K], MinEig);
  }
}

/// The eigenvalues of the symmetric 3x3 \p H, ascending.
template <class T>
MESHAD_HOST_DEVICE inline void eigenvalues3(const T *H, T *Lambda) {
  T P1 = H[1] * H[1] + H[2] * H[2] + H[5] * H[5];
  T Q = (H[0] + H[4] + H[8]) / T(3);
  T P2 = (H[0] - Q) * (H[0] - Q) + (H[4] - Q) * (H[4] - Q) +
         (H[8] - Q) * (H[8] - Q) + T(2) * P1;
  T P = sqrt(P2 / T(6));
  if (P == T(0)) {
    Lambda[0] = Lambda[1] = Lambda[2] = Q;
    return;
  }
  T Bm[9];
  for (int I = 0; I < 9; ++I)
    Bm[I] = (H[I] - (I % 4 == 0 ? Q : T(0))) / P;
  T Det = Bm[0] * (Bm[4] * Bm[8] - Bm[5] * Bm[7]) -
          Bm[1] * (Bm[3] * Bm[8] - Bm[5] * Bm[6]) +
          Bm[2] * (Bm[3] * Bm[7] - Bm[4] * Bm[6]);
  T R = Det / T(2);
  R = R < T(-1) ? T(-1) : (R > T(1) ? T(1) : R);
  T Phi = acos(R) / T(3);
  const T TwoPiOver3 = T(2.0943951023931954923);
  Lambda[2] = Q + T(2) * P * cos(Phi);
  Lambda[0] = Q + T(2) * P * cos(Phi + TwoPiOver3);
  Lambda[1] = T(3) * Q - Lambda[0] - Lambda[2];
}

/// The unit eigenvector of the symmetric 3x3 \p H for \p Lambda: the
/// longest cross product of two rows of H - Lambda I. False when it is too
/// short to be trusted (Lambda repeated).
template <class T>
MESHAD_HOST_DEVICE inline bool eigenvector3(const T *H, T Lambda, T *Vec) {
  T M[9];
  T Scale = psdAbs(Lambda); // The scale of H, not of H - Lambda I.
  for (int I = 0; I < 9; ++I) {
    M[I] = H[I] - (I % 4 == 0 ? Lambda : T(0));
    Scale = psdMax(Scale, psdAbs(H[I]));
  }
  T Best = -1;
  for (int A = 0; A < 3; ++A) {
    int B = (A + 1) % 3;
    const T *Ra = M + 3 * A, *Rb = M + 3 * B;
    T C[3] = {Ra[1] * Rb[2] - Ra[2] * Rb[1], Ra[2] * Rb[0] - Ra[0] * Rb[2],
              Ra[0] * Rb[1] - Ra[1] * Rb[0]};
    T Len = C[0] * C[0] + C[1] * C[1] + C[2] * C[2];
    if (Len > Best) {
      Best = Len;
      Vec[0] = C[0], Vec[1] = C[1], Vec[2] = C[2];
    }
  }
  // A well-separated eigenvalue gives a cross product of the order of
  // Scale^2; a repeated one gives noise of the order of its own error, up
  // to sqrt(epsilon) Scale for the cubic's double root: |C|^2 up to about
  // epsilon Scale^4.
  const T Eps = sizeof(T) == 4 ? T(1.1920929e-7) : T(2.220446049250313e-16);
  if (!(Best > T(1e4) * Eps * Scale * Scale * Scale * Scale) ||
      Scale == T(0))
    return false;
  T Norm = sqrt(Best);
  for (int I = 0; I < 3; ++I)
    Vec[I] /= Norm;
  return true;
}

template <class T>
MESHAD_HOST_DEVICE inline void projectPsd3(T *H, T MinEig) {
  for (int I = 0; I < 3; ++I) // Symmetrize.
    for (int J = 0; J < I; ++J)
      H[I * 3 + J] = H[J * 3 + I] = (H[I * 3 + J] + H[J * 3 + I]) / T(2);
  T Lambda[3];
  eigenvalues3(H, Lambda);
  if (Lambda[0] >= MinEig)
    return;
  T Vecs[3][3];
  for (int K = 0; K < 3; ++K)
    if (Lambda[K] < MinEig && !eigenvector3(H, Lambda[K], Vecs[K])) {
      projectPsdJacobi(H, 3, MinEig);
      return;
    }
  for (int K = 0; K < 3; ++K)
    if (Lambda[K] < MinEig)
      shiftEigen(H, 3, Vecs[K], Lambda[K], MinEig);
}

} // namespace detail

/// Projects the dense row-major symmetric \p H (n x n, 1 <= n <=
/// MaxPsdSize) in place: eigenvalues below \p MinEig become MinEig.
/// Returns false (H unchanged) for an n out of range.
template <class T>
MESHAD_HOST_DEVICE inline bool projectPsd(T *H, int N, T MinEig = T(0)) {
  if (N < 1 || N > MaxPsdSize)
    return false;
  if (N == 1)
    H[0] = detail::psdMax(H[0], MinEig);
  else if (N == 2)
    detail::projectPsd2(H, MinEig);
  else if (N == 3)
    detail::projectPsd3(H, MinEig);
  else
    detail::projectPsdJacobi(H, N, MinEig);
  return true;
}

/// projectPsd on the packed lower triangle \p P (n (n + 1) / 2 values).
template <class T>
MESHAD_HOST_DEVICE inline bool projectPsdPacked(T *P, int N,
                                                T MinEig = T(0)) {
  if (N < 1 || N > MaxPsdSize)
    return false;
  T H[MaxPsdSize * MaxPsdSize];
  for (int I = 0; I < N; ++I)
    for (int J = 0; J <= I; ++J)
      H[I * N + J] = H[J * N + I] = P[I * (I + 1) / 2 + J];
  projectPsd(H, N, MinEig);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J <= I; ++J)
      P[I * (I + 1) / 2 + J] = H[I * N + J];
  return true;
}

} // namespace meshad

#endif // MESHAD_RUNTIME_PSDPROJECTION_H
