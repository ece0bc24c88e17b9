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
/// at most at MaxStepFraction (0.8) of it.
///
/// \code
///   using namespace meshad::runtime::solve;
///   InjectiveStep2D<double> Flip(dTris, NumTriangles);  // X: (u, v) per vertex
///   SolveOptions<double> O;
///   O.MaxStep = Flip;   // double(const double *X, const double *D)
///   newton(P, dUV, O);
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

namespace detail {

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

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_INJECTIVITY_H
