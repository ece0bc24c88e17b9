//===- meshad/codegen/ThrustAdjointTangent.h - Thrust HVPs -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Hessian-vector products through Thrust calls: the helpers that forward
/// mode over a gradient calls beside the adjoint helpers of
/// meshad/codegen/ThrustAdjoint.h (the AdjointTangent column of
/// lib/Rules/ThrustRecipes.def). A linear adjoint's tangent is the same
/// helper on the tangents; the nonlinear ones (a functor of the table
/// with second partials) get the seed and each adjoint they read with its
/// tangent, the tangents of the adjoints they add to, each saved input and
/// the saved copy of its tangent (`NoTangent()` where the range
/// has none; an empty copy reads as zero). They run before the adjoint
/// helper they go with, which resets the adjoints they read.
///
/// Generated code reads, for `q = thrust::transform_reduce(thrust::device,
/// x, x + n, thrust::square<double>(), 0.0, thrust::plus<double>())`:
/// \code
///   meshad::thrust_ad::save(_t0, x, n);                  // forward sweep
///   meshad::thrust_ad::save(_d2_t0, _d2_x, n);
///   ...
///   meshad::thrust_ad::transformReduceAdjointTangent(    // reverse sweep
///       n, _d_q, _d2_d_q, _d2_d_x, thrust::square<double>(),
///       thrust::plus<double>(), _t0, _d2_t0);
///   meshad::thrust_ad::transformReduceAdjoint(n, _d_q, _d_x, ...);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CODEGEN_THRUSTADJOINTTANGENT_H
#define MESHAD_CODEGEN_THRUSTADJOINTTANGENT_H

#include <meshad/codegen/ThrustAdjoint.h>

namespace meshad::thrust_ad {

/// In place of the saved copy of a range whose tangent is zero.
struct NoTangent {};

namespace detail {

template <class T> const T *rawTangent(const Saved<T> &D) {
  return D.empty() ? nullptr : raw(D);
}
template <class T> const T *rawTangent(NoTangent) { return nullptr; }

/// d/dt of `D[i] += Seed[i] * op'(X[i])`: the seed's tangent times op',
/// plus the seed times op'' times the input's tangent.
template <class Op, class T> struct UnaryPullbackTangent {
  T *DD;
  const T *Seed, *DSeed, *X, *DX;
  __host__ __device__ void operator()(long I) const {
    T V = DSeed ? DSeed[I] * Partials<Op>::dx(X[I]) : T(0);
    if (Seed && DX)
      V += Seed[I] * Partials<Op>::dxx(X[I]) * DX[I];
    DD[I] += V;
  }
};

/// The same for `D[i] += Seed * op'(X[i])` (transform_reduce).
template <class Op, class T> struct ReducePullbackTangent {
  T *DD;
  T Seed, DSeed;
  const T *X, *DX;
  __host__ __device__ void operator()(long I) const {
    T V = DSeed * Partials<Op>::dx(X[I]);
    if (DX)
      V += Seed * Partials<Op>::dxx(X[I]) * DX[I];
    DD[I] += V;
  }
};

/// The same for a binary functor's two adjoints.
template <class Op, class T> struct BinaryPullbackTangent {
  T *DDA, *DDB;
  const T *Seed, *DSeed, *A, *DA, *B, *DB;
  __host__ __device__ void operator()(long I) const {
    T X = A[I], Y = B[I];
    T S = Seed ? Seed[I] : T(0), DS = DSeed ? DSeed[I] : T(0);
    T TX = DA ? DA[I] : T(0), TY = DB ? DB[I] : T(0);
    auto D2 = Partials<Op>::d2(X, Y);
    if (DDA)
      DDA[I] += DS * Partials<Op>::dx(X, Y) + S * (D2.dxx() * TX + D2.dxy() * TY);
    if (DDB)
      DDB[I] += DS * Partials<Op>::dy(X, Y) + S * (D2.dxy() * TX + D2.dyy() * TY);
  }
};

/// Applies a sort's recorded permutation to a range: D[i] = D[Perm[i]].
template <class T> void permute(const Saved<int> &Perm, T *D) {
  if (!D)
    return;
  long N = Perm.size();
  Saved<T> Before(N);
  ::thrust::copy(::thrust::device, D, D + N, Before.begin());
  ::thrust::gather(::thrust::device, Perm.begin(), Perm.end(), Before.begin(),
                   D);
}

} // namespace detail

/// Forward mode over transformReduceAdjoint; returns the tangent of init's
/// adjoint.
template <class T, class Op, class Plus, class DXs>
T transformReduceAdjointTangent(long N, T Seed, NoDeduce<T> DSeed,
                                NoDeduce<T> *DDIn, Op, Plus,
                                const Saved<T> &X, const DXs &DX) {
  if (DDIn)
    detail::forEachIndex(N, detail::ReducePullbackTangent<Op, T>{
                                DDIn, Seed, DSeed, detail::raw(X),
                                detail::rawTangent<T>(DX)});
  return DSeed;
}

/// Forward mode over transformAdjoint (unary op): the output's adjoint
/// (the seed) is read before transformAdjoint resets it; its tangent is
/// reset here.
template <class T, class Op, class DXs>
void transformAdjointTangent(long N, NoDeduce<T> *DDIn, NoDeduce<T> *DOut,
                             NoDeduce<T> *DDOut, Op,
                             const Saved<T> &X, const DXs &DX) {
  Saved<T> DSeed;
  if (DDOut)
    DSeed = detail::takeSeed(N, DDOut);
  if (DDIn)
    detail::forEachIndex(N, detail::UnaryPullbackTangent<Op, T>{
                                DDIn, DOut, DDOut ? detail::raw(DSeed) : nullptr,
                                detail::raw(X), detail::rawTangent<T>(DX)});
}

/// Forward mode over transformAdjoint (binary op).
template <class T, class Op, class DAs, class DBs>
void transformAdjointTangent(long N, NoDeduce<T> *DDA, NoDeduce<T> *DDB,
                             NoDeduce<T> *DOut, NoDeduce<T> *DDOut, Op,
                             const Saved<T> &A, const DAs &TA,
                             const Saved<T> &B, const DBs &TB) {
  Saved<T> DSeed;
  if (DDOut)
    DSeed = detail::takeSeed(N, DDOut);
  if (DDA || DDB)
    detail::forEachIndex(N, detail::BinaryPullbackTangent<Op, T>{
                                DDA, DDB, DOut,
                                DDOut ? detail::raw(DSeed) : nullptr,
                                detail::raw(A), detail::rawTangent<T>(TA),
                                detail::raw(B), detail::rawTangent<T>(TB)});
}

/// Forward mode over sortByKeyRecording: the tangents of the keys and the
/// values (null where none) permuted as the sort permuted them.
template <class K, class V>
void permuteTangents(const Saved<int> &Perm, K *DKeys, V *DValues) {
  detail::permute(Perm, DKeys);
  detail::permute(Perm, DValues);
}

} // namespace meshad::thrust_ad

#endif // MESHAD_CODEGEN_THRUSTADJOINTTANGENT_H
