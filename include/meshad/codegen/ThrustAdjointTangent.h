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

#include <cuda/std/tuple>

namespace meshad::thrust_ad {

/// In place of the saved copy of a range whose tangent is zero.
struct NoTangent {};

/// The tangents of the values a user functor captures, those with one
/// (forward mode over its pullback), carried into device code by value.
template <class... C> ::cuda::std::tuple<C...> captureTangents(C... V) {
  return ::cuda::std::tuple<C...>(V...);
}

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

/// One element of forward mode over a user functor's pullback, for
/// Arity inputs: \p P is the pullback's pushforward wrapped in a lambda
/// over (x..., seed, _d_c..., _d_x..., the tangents of the captures that
/// have one, of x..., of the seed, of _d_c..., of _d_x...). The first-order
/// adjoints it also computes are dropped (the adjoint helper after it adds
/// them); the tangents of the inputs' adjoints are added to DD, element
/// I's tangents of the K captures' adjoints go to TParts[k * N + I].
template <class T, class Pf, class CT, std::size_t K, std::size_t Arity>
struct UserPullbackTangent {
  Pf P;
  CT Tc;
  T *DD[Arity];
  const T *X[Arity];
  const T *TX[Arity];
  const T *Seed, *DSeed;
  T SeedValue, DSeedValue;
  T *TParts;
  long N;
  template <std::size_t... As, std::size_t... Ks, std::size_t... Js>
  __host__ __device__ void call(long I, T *D, T *TD, T *Scratch,
                                std::index_sequence<As...>,
                                std::index_sequence<Ks...>,
                                std::index_sequence<Js...>) const {
    P(X[As][I]..., Seed ? Seed[I] : SeedValue, &Scratch[Ks]..., &D[As]...,
      ::cuda::std::get<Js>(Tc)..., (TX[As] ? TX[As][I] : T(0))...,
      DSeed ? DSeed[I] : DSeedValue, &TParts[Ks * N + I]..., &TD[As]...);
  }
  __host__ __device__ void operator()(long I) const {
    T D[Arity] = {}, TD[Arity] = {}, Scratch[K > 0 ? K : 1] = {};
    constexpr std::size_t Kt = ::cuda::std::tuple_size<CT>::value;
    call(I, D, TD, Scratch, std::make_index_sequence<Arity>(),
         std::make_index_sequence<K>(), std::make_index_sequence<Kt>());
    for (std::size_t A = 0; A < Arity; ++A)
      if (DD[A])
        DD[A][I] += TD[A];
  }
};

/// Runs \p Each (its TParts and N unset) for every element and adds the
/// sums of the captures' adjoints' tangents (null: none wanted).
template <class T, class F, class... R>
void userPullbackTangentEach(long N, F Each, R *...DDCaptures) {
  Saved<T> TParts(sizeof...(R) * N, T(0));
  Each.TParts = ::thrust::raw_pointer_cast(TParts.data());
  Each.N = N;
  forEachIndex(N, Each);
  addCaptureSums(N, TParts, DDCaptures...);
}

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

/// Forward mode over transformAdjointBy (a user functor \p P, its
/// pullback's pushforward): the output's adjoint (the seed) is read before
/// transformAdjointBy resets it; its tangent is reset here.
template <class T, class Pf, class CT, class DXs, class... R>
void transformAdjointTangentBy(long N, NoDeduce<T> *DDIn, NoDeduce<T> *DOut,
                               NoDeduce<T> *DDOut, Pf P, CT Tc,
                               const Saved<T> &X, const DXs &DX,
                               R *...DDCaptures) {
  Saved<T> DSeed;
  if (DDOut)
    DSeed = detail::takeSeed(N, DDOut);
  detail::userPullbackTangentEach<T>(
      N,
      detail::UserPullbackTangent<T, Pf, CT, sizeof...(R), 1>{
          P, Tc, {DDIn}, {detail::raw(X)}, {detail::rawTangent<T>(DX)}, DOut,
          DDOut ? detail::raw(DSeed) : nullptr, T(0), T(0), nullptr, 0},
      DDCaptures...);
}

/// Forward mode over binaryTransformAdjointBy.
template <class T, class Pf, class CT, class DAs, class DBs, class... R>
void binaryTransformAdjointTangentBy(long N, NoDeduce<T> *DDA,
                                     NoDeduce<T> *DDB, NoDeduce<T> *DOut,
                                     NoDeduce<T> *DDOut, Pf P, CT Tc,
                                     const Saved<T> &A, const DAs &TA,
                                     const Saved<T> &B, const DBs &TB,
                                     R *...DDCaptures) {
  Saved<T> DSeed;
  if (DDOut)
    DSeed = detail::takeSeed(N, DDOut);
  detail::userPullbackTangentEach<T>(
      N,
      detail::UserPullbackTangent<T, Pf, CT, sizeof...(R), 2>{
          P,
          Tc,
          {DDA, DDB},
          {detail::raw(A), detail::raw(B)},
          {detail::rawTangent<T>(TA), detail::rawTangent<T>(TB)},
          DOut,
          DDOut ? detail::raw(DSeed) : nullptr,
          T(0),
          T(0),
          nullptr,
          0},
      DDCaptures...);
}

/// Forward mode over transformReduceAdjointBy; returns the tangent of
/// init's adjoint.
template <class T, class Pf, class CT, class Plus, class DXs, class... R>
T transformReduceAdjointTangentBy(long N, T Seed, NoDeduce<T> DSeed,
                                  NoDeduce<T> *DDIn, Pf P, CT Tc, Plus,
                                  const Saved<T> &X, const DXs &DX,
                                  R *...DDCaptures) {
  detail::userPullbackTangentEach<T>(
      N,
      detail::UserPullbackTangent<T, Pf, CT, sizeof...(R), 1>{
          P, Tc, {DDIn}, {detail::raw(X)}, {detail::rawTangent<T>(DX)},
          nullptr, nullptr, Seed, DSeed, nullptr, 0},
      DDCaptures...);
  return DSeed;
}

namespace detail {
/// Calls \p P for index I with the K adjoints (the even views), the
/// captures' tangents \p Tc, then the adjoints' tangents (the odd views).
template <class Pf, class Views, class CT, std::size_t... Ks,
          std::size_t... Js>
__host__ __device__ void callWithTangents(const Pf &P, long I, const Views &V,
                                          const CT &Tc,
                                          std::index_sequence<Ks...>,
                                          std::index_sequence<Js...>) {
  P(I, slotAt(::cuda::std::get<2 * Ks>(V), I)..., ::cuda::std::get<Js>(Tc)...,
    slotAt(::cuda::std::get<2 * Ks + 1>(V), I)...);
}

/// Each adjoint and its tangent, as views for every index.
template <class Pf, class CT, class... D>
void forEachPairs(long N, long First, Pf P, CT Tc, D &&...Pairs) {
  auto Run = [&](auto... Views) {
    ::cuda::std::tuple<decltype(Views)...> V(Views...);
    constexpr std::size_t K = sizeof...(Views) / 2;
    constexpr std::size_t Kt = ::cuda::std::tuple_size<CT>::value;
    ::thrust::for_each(::thrust::device,
                       ::thrust::counting_iterator<long>(First),
                       ::thrust::counting_iterator<long>(First + N),
                       [=] MESHAD_THRUST_LAMBDA(long I) {
                         callWithTangents(P, I, V, Tc,
                                          std::make_index_sequence<K>(),
                                          std::make_index_sequence<Kt>());
                       });
  };
  Run(slotView(Pairs, First)...);
  (addSlots(Pairs), ...);
}

} // namespace detail

/// Forward mode over forEachAdjointBy (an HVP through a for_each): \p P is
/// the pushforward of the lambda's pullback, which does what the pullback
/// does and its tangent, so this replaces forEachAdjointBy; \p Pairs are
/// each capture's adjoint and the adjoint's tangent (sumInto() for a
/// captured number).
template <class Pf, class CT, class... D>
void forEachAdjointTangentBy(long N, long First, Pf P, CT Tc,
                             D &&...Pairs) {
  static_assert(sizeof...(D) % 2 == 0, "adjoints and tangents in pairs");
  detail::forEachPairs(N, First, P, Tc, Pairs...);
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
