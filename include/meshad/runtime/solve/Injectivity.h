//===- meshad/runtime/solve/Injectivity.h - Flip-free line search -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The largest step along a direction that keeps every 2D triangle's
/// orientation (the injectivity-preserving line search of barrier energies,
/// Smith and Schaefer 2015): per triangle, the signed area along the step,
/// det(t) = (e1 + t f1) x (e2 + t f2) = a t^2 + b t + c, and its smallest
/// positive root (one thread per triangle), then a min-reduction over the
/// triangles. Plugs into SolveOptions::MaxStep; the line search then starts
/// at most at MaxStepFraction (0.8) of it. On the sphere (InjectiveStepSphere,
/// 3D points), the orientation a . (b x c) along the step is a cubic: its
/// first positive root per triangle (smallestPositiveCubicRoot).
///
/// \code
///   using namespace meshad::runtime::solve;
///   InjectiveStep2D<double> Flip(dTris, NumTriangles);  // X: (u, v) per vertex
///   SolveOptions<double> O;
///   O.MaxStep = Flip;   // double(const double *X, const double *D)
///   newton(P, dUV, O);
///   O.MaxStep = InjectiveStepSphere<double>(dTris, NumTriangles); // X: (x, y, z)
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_INJECTIVITY_H
#define MESHAD_RUNTIME_SOLVE_INJECTIVITY_H

#include "meshad/runtime/solve/DeviceVector.h"

#include <cmath>
#include <memory>

namespace meshad {
namespace runtime {
namespace solve {

/// The smallest positive root of a t^2 + b t + c (+infinity when none).
template <class T>
__host__ __device__ inline T smallestPositiveRoot(T A, T B, T C) {
  T Inf = T(HUGE_VAL);
  // Nearly linear: |a| t^2 negligible against |b| t + |c| for t up to 1e8.
  if (fabs(A) <= T(1e-14) * (fabs(B) + fabs(C))) {
    T R = B != T(0) ? -C / B : T(-1);
    return R > T(0) ? R : Inf;
  }
  T Disc = B * B - T(4) * A * C;
  if (Disc < T(0))
    return Inf;
  T Q = T(-0.5) * (B + (B < T(0) ? -sqrt(Disc) : sqrt(Disc)));
  T R1 = Q / A, R2 = Q != T(0) ? C / Q : T(-1);
  T Best = R1 > T(0) ? R1 : Inf;
  return R2 > T(0) && R2 < Best ? R2 : Best;
}

/// c3 t^3 + c2 t^2 + c1 t + c0 (Horner).
template <class T>
__host__ __device__ inline T cubicAt(T C3, T C2, T C1, T C0, T X) {
  return ((C3 * X + C2) * X + C1) * X + C0;
}

/// The largest t such that c3 t^3 + c2 t^2 + c1 t + c0 > 0 on [0, t)
/// (+infinity when it stays positive; 0 when c0 <= 0): the cubic is
/// monotonic between its critical points (the roots of its derivative), so
/// the first piece whose end is not positive holds the root, found by
/// bisection; the result is the bisection's positive end (conservative).
template <class T>
__host__ __device__ inline T smallestPositiveCubicRoot(T C3, T C2, T C1,
                                                       T C0) {
  if (!(C0 > T(0)))
    return T(0);
  // The critical points: 3 c3 t^2 + 2 c2 t + c1 = 0, positive ones, sorted.
  T Ends[3];
  int NumEnds = 0;
  T A = T(3) * C3, B = T(2) * C2;
  T Disc = B * B - T(4) * A * C1;
  if (A != T(0) && Disc >= T(0)) {
    T Q = T(-0.5) * (B + (B < T(0) ? -sqrt(Disc) : sqrt(Disc)));
    T R1 = Q / A, R2 = Q != T(0) ? C1 / Q : R1;
    if (R1 > R2) {
      T Swap = R1;
      R1 = R2;
      R2 = Swap;
    }
    if (R1 > T(0))
      Ends[NumEnds++] = R1;
    if (R2 > T(0) && R2 != R1)
      Ends[NumEnds++] = R2;
  } else if (A == T(0) && B != T(0) && -C1 / B > T(0)) {
    Ends[NumEnds++] = -C1 / B;
  }
  T Lo = T(0), Hi = T(-1);
  for (int I = 0; I < NumEnds && Hi < T(0); ++I) {
    if (cubicAt(C3, C2, C1, C0, Ends[I]) <= T(0))
      Hi = Ends[I];
    else
      Lo = Ends[I];
  }
  if (Hi < T(0)) { // the last piece: monotonic up to infinity
    T Leading = C3 != T(0) ? C3 : C2 != T(0) ? C2 : C1;
    if (!(Leading < T(0)))
      return T(HUGE_VAL);
    Hi = Lo > T(1) ? Lo : T(1);
    while (cubicAt(C3, C2, C1, C0, Hi) > T(0)) {
      Lo = Hi;
      Hi *= T(2);
      if (!(Hi < T(HUGE_VAL)))
        return T(HUGE_VAL);
    }
  }
  for (int I = 0; I < 200; ++I) {
    T Mid = T(0.5) * (Lo + Hi);
    if (!(Mid > Lo && Mid < Hi))
      break;
    if (cubicAt(C3, C2, C1, C0, Mid) > T(0))
      Lo = Mid;
    else
      Hi = Mid;
  }
  return Lo;
}

namespace detail {

/// det(a + t da, b + t db, c + t dc) = c3 t^3 + c2 t^2 + c1 t + c0 of one
/// triangle of 3D points (their orientation seen from the origin), and the
/// largest step that keeps it positive.
template <class T>
__host__ __device__ inline T sphereTriangleMaxStep(const T *A, const T *B,
                                                   const T *C, const T *DA,
                                                   const T *DB, const T *DC) {
  auto Cross = [](const T *U, const T *V, T *W) {
    W[0] = U[1] * V[2] - U[2] * V[1];
    W[1] = U[2] * V[0] - U[0] * V[2];
    W[2] = U[0] * V[1] - U[1] * V[0];
  };
  auto Dot = [](const T *U, const T *V) {
    return U[0] * V[0] + U[1] * V[1] + U[2] * V[2];
  };
  T BC[3], DBC[3], BDC[3], DBDC[3];
  Cross(B, C, BC);
  Cross(DB, C, DBC);
  Cross(B, DC, BDC);
  Cross(DB, DC, DBDC);
  T Mixed[3] = {DBC[0] + BDC[0], DBC[1] + BDC[1], DBC[2] + BDC[2]};
  return smallestPositiveCubicRoot(Dot(DA, DBDC), Dot(DA, Mixed) + Dot(A, DBDC),
                                   Dot(DA, BC) + Dot(A, Mixed), Dot(A, BC));
}

template <class T>
__global__ void sphereMaxStepKernel(int NumTriangles, const int *Tris,
                                    const T *X, const T *D, T *Out) {
  MESHAD_SOLVE_GRID_STRIDE(Item, NumTriangles) {
    const int *Tr = Tris + 3 * Item;
    Out[Item] = sphereTriangleMaxStep(X + 3 * Tr[0], X + 3 * Tr[1],
                                      X + 3 * Tr[2], D + 3 * Tr[0],
                                      D + 3 * Tr[1], D + 3 * Tr[2]);
  }
}

template <class T>
__global__ void triangleMaxStepKernel(int NumTriangles, const int *Tris,
                                      const T *X, const T *D, T *Out) {
  MESHAD_SOLVE_GRID_STRIDE(Item, NumTriangles) {
    int Tr = static_cast<int>(Item);
    int A = Tris[3 * Tr], B = Tris[3 * Tr + 1], C = Tris[3 * Tr + 2];
    T E1x = X[2 * B] - X[2 * A], E1y = X[2 * B + 1] - X[2 * A + 1];
    T E2x = X[2 * C] - X[2 * A], E2y = X[2 * C + 1] - X[2 * A + 1];
    T F1x = D[2 * B] - D[2 * A], F1y = D[2 * B + 1] - D[2 * A + 1];
    T F2x = D[2 * C] - D[2 * A], F2y = D[2 * C + 1] - D[2 * A + 1];
    T Qa = F1x * F2y - F1y * F2x;
    T Qb = E1x * F2y - E1y * F2x + F1x * E2y - F1y * E2x;
    T Qc = E1x * E2y - E1y * E2x;
    Out[Tr] = smallestPositiveRoot(Qa, Qb, Qc);
  }
}

} // namespace detail

/// The largest step along D that keeps every triangle's orientation (2D,
/// X[2 v + k]); a callable for SolveOptions::MaxStep.
template <class T> class InjectiveStep2D {
public:
  InjectiveStep2D(const int *DeviceTris, int NumTriangles)
      : Tris(DeviceTris), NumTriangles(NumTriangles) {}
  /// The smallest positive root over the triangles (+infinity when the
  /// direction flips none at any step).
  double operator()(const T *X, const T *D) const {
    if (NumTriangles == 0)
      return HUGE_VAL;
    if (Steps->size() < NumTriangles)
      Steps->resize(NumTriangles);
    MESHAD_LAUNCH(detail::triangleMaxStepKernel<T>,
                  detail::shapeFor(NumTriangles).Blocks,
                  detail::shapeFor(NumTriangles).Threads)(NumTriangles, Tris, X, D, Steps->data());
    return minimum(NumTriangles, Steps->data());
  }

private:
  const int *Tris;
  int NumTriangles;
  std::shared_ptr<DeviceBuffer<T>> Steps =
      std::make_shared<DeviceBuffer<T>>();
};

/// The largest step along D that keeps every triangle of 3D points (X[3 v +
/// k], near the unit sphere) oriented counter-clockwise as seen from
/// outside: a . (b x c) > 0, so also for the corners projected onto the
/// sphere (p / |p| keeps the sign), along the straight path or the path
/// re-normalised onto the sphere. Per triangle the smallest positive root of
/// the cubic det(a + t da, b + t db, c + t dc), then a min-reduction; a
/// callable for SolveOptions::MaxStep.
template <class T> class InjectiveStepSphere {
public:
  InjectiveStepSphere(const int *DeviceTris, int NumTriangles)
      : Tris(DeviceTris), NumTriangles(NumTriangles) {}
  /// The smallest root over the triangles (+infinity when none flips; 0
  /// when one is flipped or degenerate at X already).
  double operator()(const T *X, const T *D) const {
    if (NumTriangles == 0)
      return HUGE_VAL;
    if (Steps->size() < NumTriangles)
      Steps->resize(NumTriangles);
    MESHAD_LAUNCH(detail::sphereMaxStepKernel<T>,
                  detail::shapeFor(NumTriangles).Blocks,
                  detail::shapeFor(NumTriangles).Threads)
    (NumTriangles, Tris, X, D, Steps->data());
    return minimum(NumTriangles, Steps->data());
  }

private:
  const int *Tris;
  int NumTriangles;
  std::shared_ptr<DeviceBuffer<T>> Steps =
      std::make_shared<DeviceBuffer<T>>();
};

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_INJECTIVITY_H
