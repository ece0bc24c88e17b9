//===- meshad/codegen/ThrustAdjoint.h - Thrust adjoints -------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The helpers that reverse mode calls for the Thrust primitives of host
/// code (the recipes of lib/Rules/ThrustRecipes.def): each takes the count
/// of the range, the seed of a reduction's result, then the adjoint
/// pointers (null when an argument carries no derivative), the index maps
/// and inputs the forward sweep saved, and returns the adjoint of the
/// scalar argument (init, fill value) where there is one. An output range's
/// adjoint is the seed on entry and zero on exit (the call overwrote it);
/// input adjoints accumulate. Everything runs on the device through
/// `thrust::device` (the CPP system under the CPU emulation).
///
/// Generated code reads, for `s = thrust::reduce(thrust::device, x, x + n,
/// 0.0)` and `thrust::gather(thrust::device, m, m + n, x, y)`:
/// \code
///   meshad::thrust_ad::Saved<int> _t0;
///   meshad::thrust_ad::save(_t0, m, n);          // forward sweep
///   thrust::gather(thrust::device, m, m + n, x, y);
///   ...
///   meshad::thrust_ad::gatherAdjoint(n, _t0, _d_x, _d_y);  // reverse sweep
///   meshad::thrust_ad::reduceAdjoint(n, _d_s, _d_x);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CODEGEN_THRUSTADJOINT_H
#define MESHAD_CODEGEN_THRUSTADJOINT_H

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>

#include <meshad/codegen/CudaAdjoint.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

/// The execution space of the lambdas that generated code passes to these
/// helpers (`[=] MESHAD_THRUST_LAMBDA (double x, ...) { ... }`): none under
/// the CPU emulation, whose qualifiers cannot stand there.
#if defined(__CUDACC__)
#define MESHAD_THRUST_LAMBDA __host__ __device__
#else
#define MESHAD_THRUST_LAMBDA
#endif

namespace meshad::thrust_ad {

/// A pointer parameter that may be passed `nullptr` (no derivative there):
/// its type comes from the other arguments.
template <class T> struct NoDeduceT { using type = T; };
template <class T> using NoDeduce = typename NoDeduceT<T>::type;

/// A copy the forward sweep keeps for the reverse sweep (device memory).
template <class T> using Saved = ::thrust::device_vector<T>;

template <class T>
void save(Saved<T> &Out, const T *First, long N) {
  Out.resize(N);
  ::thrust::copy(::thrust::device, First, First + N, Out.begin());
}

/// Copies a saved range back (the reverse sweep of earlier statements reads
/// what a primitive overwrote).
template <class T> void restore(const Saved<T> &From, T *To) {
  ::thrust::copy(::thrust::device, From.begin(), From.end(), To);
}

namespace detail {

template <class T> __host__ __device__ inline void atomicAddTo(T *P, T V) {
#if defined(__CUDA_ARCH__) || defined(MESHAD_CPU_CUDA)
  atomicAdd(P, V);
#else
  *P += V;
#endif
}

template <class F> void forEachIndex(long N, F Body) {
  ::thrust::for_each(::thrust::device, ::thrust::counting_iterator<long>(0),
                     ::thrust::counting_iterator<long>(N), Body);
}

template <class T> Saved<T> takeSeed(long N, T *D) {
  Saved<T> Seed(N);
  ::thrust::copy(::thrust::device, D, D + N, Seed.begin());
  ::thrust::fill(::thrust::device, D, D + N, T(0));
  return Seed;
}

template <class T> struct AddConstant {
  T *D;
  T Value;
  __host__ __device__ void operator()(long I) const { D[I] += Value; }
};

template <class T> struct AddScaled {
  T *D;
  const T *Seed;
  T Scale;
  __host__ __device__ void operator()(long I) const { D[I] += Scale * Seed[I]; }
};

template <class T> void addInto(long N, T *D, const Saved<T> &Seed,
                                T Scale = T(1)) {
  if (D)
    forEachIndex(N, AddScaled<T>{D, ::thrust::raw_pointer_cast(Seed.data()),
                                 Scale});
}

/// Suffix sums of the seed: Out[i] = sum of D[j] for j >= i.
template <class T> Saved<T> suffixSums(long N, const T *D) {
  Saved<T> Out(N);
  ::thrust::inclusive_scan(::thrust::device,
                           ::thrust::make_reverse_iterator(D + N),
                           ::thrust::make_reverse_iterator(D), Out.rbegin());
  return Out;
}

/// The partials of the functors of the table: d op(x) / dx (unary) and
/// d op(x, y) / dx, / dy (binary), and the second partials that
/// Hessian-vector products read (dxx; dxx, dxy, dyy).
template <class Op> struct IsMaximum : std::false_type {};
template <class U> struct IsMaximum<::thrust::maximum<U>> : std::true_type {};

template <class Op> struct Partials;
template <class U> struct Partials<::thrust::square<U>> {
  template <class T> __host__ __device__ static T dx(T X) { return 2 * X; }
  template <class T> __host__ __device__ static T dxx(T) { return T(2); }
};
template <class U> struct Partials<::thrust::negate<U>> {
  template <class T> __host__ __device__ static T dx(T) { return T(-1); }
  template <class T> __host__ __device__ static T dxx(T) { return T(0); }
};
/// The second partials of a binary functor that is linear in each argument.
template <class T> struct Bilinear {
  T Dxy;
  __host__ __device__ T dxx() const { return T(0); }
  __host__ __device__ T dxy() const { return Dxy; }
  __host__ __device__ T dyy() const { return T(0); }
};
template <class U> struct Partials<::thrust::plus<U>> {
  template <class T> __host__ __device__ static T dx(T, T) { return T(1); }
  template <class T> __host__ __device__ static T dy(T, T) { return T(1); }
  template <class T> __host__ __device__ static Bilinear<T> d2(T, T) {
    return {T(0)};
  }
};
template <class U> struct Partials<::thrust::minus<U>> {
  template <class T> __host__ __device__ static T dx(T, T) { return T(1); }
  template <class T> __host__ __device__ static T dy(T, T) { return T(-1); }
  template <class T> __host__ __device__ static Bilinear<T> d2(T, T) {
    return {T(0)};
  }
};
template <class U> struct Partials<::thrust::multiplies<U>> {
  template <class T> __host__ __device__ static T dx(T, T Y) { return Y; }
  template <class T> __host__ __device__ static T dy(T X, T) { return X; }
  template <class T> __host__ __device__ static Bilinear<T> d2(T, T) {
    return {T(1)};
  }
};

template <class Op, class T> struct UnaryPullback {
  T *D;
  const T *Seed, *X;
  __host__ __device__ void operator()(long I) const {
    D[I] += Seed[I] * Partials<Op>::dx(X[I]);
  }
};

template <class Op, class T> struct BinaryPullback {
  T *DA, *DB;
  const T *Seed, *A, *B;
  __host__ __device__ void operator()(long I) const {
    if (DA)
      DA[I] += Seed[I] * Partials<Op>::dx(A[I], B[I]);
    if (DB)
      DB[I] += Seed[I] * Partials<Op>::dy(A[I], B[I]);
  }
};

template <class Op, class T> struct ReducePullback {
  T *D;
  T Seed;
  const T *X;
  __host__ __device__ void operator()(long I) const {
    D[I] += Seed * Partials<Op>::dx(X[I]);
  }
};

template <class T, class I> struct GatherPullback {
  T *D;
  const T *Seed;
  const I *Map;
  __host__ __device__ void operator()(long K) const {
    atomicAddTo(&D[Map[K]], Seed[K]);
  }
};

template <class T, class I> struct ScatterSeed {
  T *D, *Seed;
  const I *Map;
  __host__ __device__ void operator()(long K) const { Seed[K] = D[Map[K]]; }
};

template <class T, class I> struct ZeroAt {
  T *D;
  const I *Map;
  __host__ __device__ void operator()(long K) const { D[Map[K]] = T(0); }
};

template <class T> const T *raw(const Saved<T> &V) {
  return ::thrust::raw_pointer_cast(V.data());
}

/// The derivative-carrying values of a user functor (a lambda's floating
/// captures, K of them), carried into device code by value.
template <class T, std::size_t K> struct Captured { T V[K > 0 ? K : 1]; };

template <class T, std::size_t K, class... P>
Captured<T, K> captured(P... Values) {
  return Captured<T, K>{{T(Values)...}};
}

/// One element of a user functor's pullback, generated by meshad and
/// wrapped in a lambda `(x, seed, _d_c..., _d_x)`: element I's parts of the
/// K captures' adjoints go to Parts[k * N + I], summed afterwards.
template <class T, class Pb, std::size_t K> struct UserPullback {
  Pb P;
  T *D;
  const T *Seed;
  T SeedValue;
  const T *X;
  T *Parts;
  long N;
  template <std::size_t... Ks>
  __host__ __device__ void call(long I, T *DX,
                                std::index_sequence<Ks...>) const {
    P(X[I], Seed ? Seed[I] : SeedValue, &Parts[Ks * N + I]..., DX);
  }
  __host__ __device__ void operator()(long I) const {
    T DX = T(0);
    call(I, &DX, std::make_index_sequence<K>());
    if (D)
      D[I] += DX;
  }
};

/// The same for a binary functor `(a, b, seed, _d_c..., _d_a, _d_b)`.
template <class T, class Pb, std::size_t K> struct BinaryUserPullback {
  Pb P;
  T *DA, *DB;
  const T *Seed, *A, *B;
  T *Parts;
  long N;
  template <std::size_t... Ks>
  __host__ __device__ void call(long I, T *D1, T *D2,
                                std::index_sequence<Ks...>) const {
    P(A[I], B[I], Seed[I], &Parts[Ks * N + I]..., D1, D2);
  }
  __host__ __device__ void operator()(long I) const {
    T D1 = T(0), D2 = T(0);
    call(I, &D1, &D2, std::make_index_sequence<K>());
    if (DA)
      DA[I] += D1;
    if (DB)
      DB[I] += D2;
  }
};

/// Adds the sums of the K rows of Parts (N each) to the captures' adjoints.
template <class T, class... R>
void addCaptureSums(long N, const Saved<T> &Parts, R *...DCaptures) {
  T *Outs[] = {DCaptures..., nullptr};
  for (std::size_t C = 0; C < sizeof...(R); ++C)
    if (Outs[C]) // Null: no derivative there (an HVP's capture).
      *Outs[C] += ::thrust::reduce(::thrust::device, Parts.begin() + C * N,
                                 Parts.begin() + (C + 1) * N, T(0));
}

template <class T, class Pb, class... R>
void userPullbackEach(long N, T *DIn, const T *Seed, T SeedValue, Pb P,
                      const T *X, R *...DCaptures) {
  constexpr std::size_t K = sizeof...(R);
  Saved<T> Parts(K * N, T(0));
  forEachIndex(
      N, UserPullback<T, Pb, K>{P, DIn, Seed, SeedValue, X,
                                ::thrust::raw_pointer_cast(Parts.data()), N});
  addCaptureSums(N, Parts, DCaptures...);
}

/// One element of a user functor's pushforward, wrapped in a lambda
/// `(x, _d_c..., _d_x)` that returns its ValueAndPushforward.
template <class T, class Pf, std::size_t K> struct UserTangent {
  Pf P;
  const T *X, *DX;
  Captured<T, K> DC;
  template <std::size_t... Ks>
  __host__ __device__ T call(long I, std::index_sequence<Ks...>) const {
    return P(X[I], DC.V[Ks]..., DX ? DX[I] : T(0)).pushforward;
  }
  __host__ __device__ T operator()(long I) const {
    return call(I, std::make_index_sequence<K>());
  }
};

/// The same for a binary functor `(a, b, _d_c..., _d_a, _d_b)`.
template <class T, class Pf, std::size_t K> struct BinaryUserTangent {
  Pf P;
  const T *A, *DA, *B, *DB;
  Captured<T, K> DC;
  template <std::size_t... Ks>
  __host__ __device__ T call(long I, std::index_sequence<Ks...>) const {
    return P(A[I], B[I], DC.V[Ks]..., DA ? DA[I] : T(0), DB ? DB[I] : T(0))
        .pushforward;
  }
  __host__ __device__ T operator()(long I) const {
    return call(I, std::make_index_sequence<K>());
  }
};

template <class T, class F> struct StoreEach {
  T *D;
  F Fn;
  __host__ __device__ void operator()(long I) const { D[I] = Fn(I); }
};

template <class T, class F> T sumEach(long N, F Fn) {
  return ::thrust::transform_reduce(
      ::thrust::device, ::thrust::counting_iterator<long>(0),
      ::thrust::counting_iterator<long>(N), Fn, T(0), ::thrust::plus<T>());
}

/// d op(x) dx of a functor of the table, element-wise.
template <class Op, class T> struct UnaryTangent {
  const T *X, *DX;
  __host__ __device__ T operator()(long I) const {
    return DX ? Partials<Op>::dx(X[I]) * DX[I] : T(0);
  }
};

template <class Op, class T> struct BinaryTangent {
  const T *A, *DA, *B, *DB;
  __host__ __device__ T operator()(long I) const {
    return (DA ? Partials<Op>::dx(A[I], B[I]) * DA[I] : T(0)) +
           (DB ? Partials<Op>::dy(A[I], B[I]) * DB[I] : T(0));
  }
};

} // namespace detail

/// thrust::reduce(first, last, init): every input gets the seed; returns
/// init's adjoint.
template <class T> T reduceAdjoint(long N, T Seed, T *DIn) {
  if (DIn)
    detail::forEachIndex(N, detail::AddConstant<T>{DIn, Seed});
  return Seed;
}

/// thrust::reduce(first, last, init, maximum or minimum) with a constant
/// init: the seed goes to the first element equal to the result, none when
/// init is strictly greater (maximum) or smaller (minimum) than every
/// element.
template <class T, class Op>
void extremumReduceAdjoint(long N, T Seed, T *DIn, T Init, Op,
                           const Saved<T> &X) {
  if (!DIn || N == 0)
    return;
  constexpr bool Max = detail::IsMaximum<Op>::value;
  auto It = Max ? ::thrust::max_element(::thrust::device, X.begin(), X.end())
                : ::thrust::min_element(::thrust::device, X.begin(), X.end());
  T Best = *It;
  if (Max ? Init > Best : Init < Best)
    return;
  ::thrust::device_ptr<T> D(DIn);
  long K = It - X.begin();
  D[K] = D[K] + Seed;
}

/// thrust::transform_reduce(first, last, op, init, plus).
template <class T, class Op, class Plus>
T transformReduceAdjoint(long N, T Seed, T *DIn, Op, Plus,
                         const Saved<T> &X) {
  if (DIn)
    detail::forEachIndex(
        N, detail::ReducePullback<Op, T>{DIn, Seed, detail::raw(X)});
  return Seed;
}

/// thrust::inclusive_scan(first, last, out): the input's adjoint gets the
/// suffix sums of the output's.
template <class T> void inclusiveScanAdjoint(long N, T *DIn, T *DOut) {
  if (!DOut)
    return;
  Saved<T> Sums = detail::suffixSums(N, DOut);
  ::thrust::fill(::thrust::device, DOut, DOut + N, T(0));
  detail::addInto(N, DIn, Sums);
}

/// thrust::exclusive_scan(first, last, out[, init]): input i gets the sum
/// of the output's adjoint after i; returns init's adjoint (the whole sum).
template <class T> T exclusiveScanAdjoint(long N, T *DIn, T *DOut) {
  if (!DOut || N == 0)
    return T(0);
  Saved<T> Sums = detail::suffixSums(N, DOut);
  T Total = Sums[0];
  ::thrust::fill(::thrust::device, DOut, DOut + N, T(0));
  if (DIn)
    detail::forEachIndex(N - 1, detail::AddScaled<T>{DIn, detail::raw(Sums) + 1,
                                                     T(1)});
  return Total;
}

/// thrust::copy(first, last, out).
template <class T> void copyAdjoint(long N, T *DIn, T *DOut) {
  if (!DOut)
    return;
  Saved<T> Seed = detail::takeSeed(N, DOut);
  detail::addInto(N, DIn, Seed);
}

/// thrust::fill(first, last, value), thrust::sequence(first, last, init):
/// the range is overwritten; returns the value's adjoint (the sum).
template <class T> T fillAdjoint(long N, T *DOut) {
  if (!DOut)
    return T(0);
  T Sum = ::thrust::reduce(::thrust::device, DOut, DOut + N, T(0));
  ::thrust::fill(::thrust::device, DOut, DOut + N, T(0));
  return Sum;
}

/// thrust::sequence(first, last): the range is overwritten by constants.
template <class T> void zeroAdjoint(long N, T *DOut) {
  if (DOut)
    ::thrust::fill(::thrust::device, DOut, DOut + N, T(0));
}

/// thrust::transform(first, last, out, op), op unary.
template <class T, class Op>
void transformAdjoint(long N, T *DIn, T *DOut, Op, const Saved<T> &X) {
  if (!DOut)
    return;
  Saved<T> Seed = detail::takeSeed(N, DOut);
  if (DIn)
    detail::forEachIndex(N, detail::UnaryPullback<Op, T>{DIn, detail::raw(Seed),
                                                         detail::raw(X)});
}

/// thrust::transform(first1, last1, first2, out, op), op binary.
template <class T, class Op>
void transformAdjoint(long N, T *DA, T *DB, T *DOut, Op, const Saved<T> &A,
                      const Saved<T> &B) {
  if (!DOut)
    return;
  Saved<T> Seed = detail::takeSeed(N, DOut);
  detail::forEachIndex(N, detail::BinaryPullback<Op, T>{
                              DA, DB, detail::raw(Seed), detail::raw(A),
                              detail::raw(B)});
}

/// thrust::gather(map, map_last, in, out): out[k] = in[map[k]].
template <class T, class I>
void gatherAdjoint(long N, const Saved<I> &Map, T *DIn, T *DOut) {
  if (!DOut)
    return;
  Saved<T> Seed = detail::takeSeed(N, DOut);
  if (DIn)
    detail::forEachIndex(N, detail::GatherPullback<T, I>{
                                DIn, detail::raw(Seed), detail::raw(Map)});
}

/// thrust::scatter(in, in_last, map, out): out[map[k]] = in[k] (map
/// without repeats, as Thrust requires for a defined result).
template <class T, class I>
void scatterAdjoint(long N, T *DIn, const Saved<I> &Map, T *DOut) {
  if (!DOut)
    return;
  Saved<T> Seed(N);
  T *S = ::thrust::raw_pointer_cast(Seed.data());
  detail::forEachIndex(N, detail::ScatterSeed<T, I>{DOut, S, detail::raw(Map)});
  detail::forEachIndex(N, detail::ZeroAt<T, I>{DOut, detail::raw(Map)});
  detail::addInto(N, DIn, Seed);
}

/// thrust::sort_by_key(keys, keys_last, values), recording the permutation:
/// afterwards keys[i] and values[i] are those at Perm[i] before. Stable, so
/// equal keys keep their order.
template <class K, class V>
void sortByKeyRecording(Saved<int> &Perm, K *Keys, K *KeysLast, V *Values) {
  long N = KeysLast - Keys;
  Perm.resize(N);
  ::thrust::sequence(::thrust::device, Perm.begin(), Perm.end());
  ::thrust::stable_sort_by_key(::thrust::device, Keys, KeysLast, Perm.begin());
  Saved<V> Before(N);
  ::thrust::copy(::thrust::device, Values, Values + N, Before.begin());
  ::thrust::gather(::thrust::device, Perm.begin(), Perm.end(), Before.begin(),
                   Values);
}

/// The adjoint of a sort: each adjoint goes back where its value came from.
template <class K, class V>
void sortByKeyAdjoint(long N, K *DKeys, V *DValues, const Saved<int> &Perm) {
  auto Unpermute = [&](auto *D) {
    if (!D)
      return;
    using T = std::remove_pointer_t<decltype(D)>;
    Saved<T> Seed(N);
    ::thrust::copy(::thrust::device, D, D + N, Seed.begin());
    ::thrust::scatter(::thrust::device, Seed.begin(), Seed.end(), Perm.begin(),
                      D);
  };
  Unpermute(DKeys);
  Unpermute(DValues);
}

//===----------------------------------------------------------------------===//
// User functors and lambdas (the recipes with a `u` argument): meshad
// generates the operator()'s pullback or pushforward and passes it wrapped
// in a lambda over the element's values; the floating values a lambda
// captures come last (their adjoints' addresses, or their tangents).
//===----------------------------------------------------------------------===//

/// thrust::transform(first, last, out, f), f a user functor: the input's
/// adjoint gets f's pullback of the output's; the captures' adjoints the
/// sum over the elements.
template <class T, class Pb, class... R>
void transformAdjointBy(long N, NoDeduce<T> *DIn, NoDeduce<T> *DOut, Pb P,
                        const Saved<T> &X, R *...DCaptures) {
  if (!DOut)
    return;
  Saved<T> Seed = detail::takeSeed(N, DOut);
  detail::userPullbackEach(N, DIn, detail::raw(Seed), T(0), P, detail::raw(X),
                           DCaptures...);
}

/// thrust::transform_reduce(first, last, f, init, plus), f a user functor;
/// returns init's adjoint.
template <class T, class Pb, class Plus, class... R>
T transformReduceAdjointBy(long N, T Seed, NoDeduce<T> *DIn, Pb P, Plus,
                           const Saved<T> &X, R *...DCaptures) {
  detail::userPullbackEach(N, DIn, static_cast<const T *>(nullptr), Seed, P,
                           detail::raw(X), DCaptures...);
  return Seed;
}

/// thrust::transform(first1, last1, first2, out, f), f a binary user
/// functor.
template <class T, class Pb, class... R>
void binaryTransformAdjointBy(long N, NoDeduce<T> *DA, NoDeduce<T> *DB,
                              NoDeduce<T> *DOut, Pb P, const Saved<T> &A,
                              const Saved<T> &B, R *...DCaptures) {
  if (!DOut)
    return;
  constexpr std::size_t K = sizeof...(R);
  Saved<T> Seed = detail::takeSeed(N, DOut);
  Saved<T> Parts(K * N, T(0));
  detail::forEachIndex(
      N, detail::BinaryUserPullback<T, Pb, K>{
             P, DA, DB, detail::raw(Seed), detail::raw(A), detail::raw(B),
             ::thrust::raw_pointer_cast(Parts.data()), N});
  detail::addCaptureSums(N, Parts, DCaptures...);
}

/// Forward mode of thrust::transform(first1, last1, first2, out, f), f a
/// binary user functor.
template <class T, class Pf, class... C>
void binaryTransformTangentBy(long N, const T *A, const NoDeduce<T> *DA,
                              const T *B, const NoDeduce<T> *DB, T *DOut,
                              Pf P, C... CaptureTangents) {
  constexpr std::size_t K = sizeof...(C);
  detail::forEachIndex(
      N, detail::StoreEach<T, detail::BinaryUserTangent<T, Pf, K>>{
             DOut,
             {P, A, DA, B, DB, detail::captured<T, K>(CaptureTangents...)}});
}

/// Forward mode of thrust::transform(first, last, out, f), f a user
/// functor: out's tangent from f's pushforward (DX null: x carries none).
template <class T, class Pf, class... C>
void transformTangentBy(long N, const T *X, const NoDeduce<T> *DX, T *DOut,
                        Pf P, C... CaptureTangents) {
  constexpr std::size_t K = sizeof...(C);
  detail::forEachIndex(
      N, detail::StoreEach<T, detail::UserTangent<T, Pf, K>>{
             DOut, {P, X, DX, detail::captured<T, K>(CaptureTangents...)}});
}

/// Forward mode of thrust::transform_reduce(first, last, f, init, plus), f a
/// user functor: the result's tangent.
template <class T, class Pf, class Plus, class... C>
T transformReduceTangentBy(long N, const T *X, const NoDeduce<T> *DX, Pf P,
                           T DInit, Plus, C... CaptureTangents) {
  constexpr std::size_t K = sizeof...(C);
  return DInit +
         detail::sumEach<T>(
             N, detail::UserTangent<T, Pf, K>{
                    P, X, DX, detail::captured<T, K>(CaptureTangents...)});
}

//===----------------------------------------------------------------------===//
// thrust::for_each over counting iterators with a lambda that writes
// through the pointers it captures (the recipe `eNLu`)
//===----------------------------------------------------------------------===//

/// A copy of the whole device allocation that holds a captured buffer,
/// taken by the forward sweep before a for_each and put back (any number of
/// times) by restore(): the lambda's pullback reads the buffers as the call
/// found them.
class Snapshot {
public:
  Snapshot() = default;
  Snapshot(const Snapshot &) = delete;
  Snapshot &operator=(const Snapshot &) = delete;
  ~Snapshot() { cudaFree(Data); }

  void take(const void *P) {
    if (!::meshad::cuda::detail::allocationRange(P, Base, Bytes))
      fail("a buffer that a lambda passed to thrust::for_each captures is "
           "not device memory from cudaMalloc");
    cudaFree(Data);
    Data = nullptr;
    if (cudaMalloc((void **)&Data, Bytes) != cudaSuccess ||
        cudaMemcpy(Data, Base, Bytes, cudaMemcpyDeviceToDevice) != cudaSuccess)
      fail("copying a device buffer failed");
  }
  void putBack() const {
    if (Data &&
        cudaMemcpy(Base, Data, Bytes, cudaMemcpyDeviceToDevice) != cudaSuccess)
      fail("restoring a device buffer failed");
  }

private:
  [[noreturn]] static void fail(const char *Why) {
    std::fprintf(stderr, "meshad: %s\n", Why);
    std::abort();
  }
  char *Base = nullptr;
  char *Data = nullptr;
  size_t Bytes = 0;
};

/// Copies the allocation that holds \p P.
inline void snapshot(Snapshot &S, const void *P) { S.take(P); }
/// Puts the allocation that holds \p P back as snapshot() found it.
inline void restore(const Snapshot &S, const void *) { S.putBack(); }

/// The snapshots of one captured buffer taken by a for_each inside loops,
/// one per iteration; the reverse sweep, which runs the iterations
/// backwards, puts the top back around the adjoint and pops it.
class SnapshotStack {
public:
  void push(const void *P) {
    Stack.push_back(std::make_unique<Snapshot>());
    Stack.back()->take(P);
  }
  void putBackTop() const { Stack.back()->putBack(); }
  void pop() { Stack.pop_back(); }

private:
  std::vector<std::unique_ptr<Snapshot>> Stack;
};

inline void snapshotPush(SnapshotStack &S, const void *P) { S.push(P); }
inline void restoreTop(const SnapshotStack &S, const void *) {
  S.putBackTop();
}
inline void restorePop(SnapshotStack &S, const void *) {
  S.putBackTop();
  S.pop();
}

/// The adjoint of a number that a for_each lambda captures: each index's
/// pullback adds into its own slot, and the slots' sum is added to *Out.
template <class T> struct SumInto {
  T *Out;
  Saved<T> Slots;
};
template <class T> SumInto<T> sumInto(T *Out, long N) {
  return SumInto<T>{Out, Saved<T>(N, T(0))};
}

namespace detail {
/// What one index's pullback gets for an adjoint argument of
/// forEachAdjointBy: a captured pointer's adjoint as is, a captured
/// number's slot.
template <class T> struct SlotOf {
  T *Base;
  long First;
  __host__ __device__ T *at(long I) const { return Base + (I - First); }
};
template <class T> T *slotView(T *P, long) { return P; }
template <class T> SlotOf<T> slotView(SumInto<T> &S, long First) {
  return SlotOf<T>{::thrust::raw_pointer_cast(S.Slots.data()), First};
}
template <class T> __host__ __device__ T *slotAt(T *P, long) { return P; }
template <class T> __host__ __device__ T *slotAt(SlotOf<T> S, long I) {
  return S.at(I);
}
template <class T> void addSlots(T *) {}
template <class T> void addSlots(SumInto<T> &S) {
  *S.Out += ::thrust::reduce(::thrust::device, S.Slots.begin(), S.Slots.end(),
                             T(0));
}
} // namespace detail

/// thrust::for_each(counting_iterator(First), counting_iterator(First + N),
/// f): the pullback of f for every index (\p P, wrapped in a lambda over
/// the index and the adjoints of the captures, \p Adjoints: the captured
/// pointers' adjoints, where the adds are atomic on the device as in any
/// __device__ function's pullback, and sumInto() for captured numbers).
template <class Pb, class... D>
void forEachAdjointBy(long N, long First, Pb P, D &&...Adjoints) {
  auto Run = [&](auto... Views) {
    ::thrust::for_each(
        ::thrust::device, ::thrust::counting_iterator<long>(First),
        ::thrust::counting_iterator<long>(First + N),
        [=] MESHAD_THRUST_LAMBDA(long I) { P(I, detail::slotAt(Views, I)...); });
  };
  Run(detail::slotView(Adjoints, First)...);
  (detail::addSlots(Adjoints), ...);
}

/// Forward mode of the for_each above: f's pushforward for every index
/// (the values and their tangents), given the captures' tangents.
template <class Pf, class... T>
void forEachTangentBy(long N, long First, Pf P, T... Tangents) {
  ::thrust::for_each(::thrust::device,
                     ::thrust::counting_iterator<long>(First),
                     ::thrust::counting_iterator<long>(First + N),
                     [=] MESHAD_THRUST_LAMBDA(long I) { P(I, Tangents...); });
}

//===----------------------------------------------------------------------===//
// Forward mode of the nonlinear recipes (the TangentHelper column)
//===----------------------------------------------------------------------===//

/// thrust::transform(first, last, out, op), op of the table (square...).
template <class T, class Op>
void transformTangent(long N, const T *X, const NoDeduce<T> *DX, T *DOut, Op) {
  detail::forEachIndex(
      N, detail::StoreEach<T, detail::UnaryTangent<Op, T>>{DOut, {X, DX}});
}

/// thrust::transform(first1, last1, first2, out, op), op binary.
template <class T, class Op>
void transformTangent(long N, const T *A, const NoDeduce<T> *DA, const T *B,
                      const NoDeduce<T> *DB, T *DOut, Op) {
  detail::forEachIndex(N, detail::StoreEach<T, detail::BinaryTangent<Op, T>>{
                              DOut, {A, DA, B, DB}});
}

/// thrust::transform_reduce(first, last, op, init, plus): the result's
/// tangent.
template <class T, class Op, class Plus>
T transformReduceTangent(long N, const T *X, const NoDeduce<T> *DX, Op, T DInit,
                         Plus) {
  return DInit + detail::sumEach<T>(N, detail::UnaryTangent<Op, T>{X, DX});
}

/// thrust::reduce(first, last, init, maximum or minimum), init constant:
/// the tangent of the first element equal to the result (as the adjoint
/// seeds it), zero when init wins.
template <class T, class Op>
T extremumReduceTangent(long N, const T *X, const NoDeduce<T> *DX, T Init, Op) {
  if (!DX || N == 0)
    return T(0);
  constexpr bool Max = detail::IsMaximum<Op>::value;
  const T *It = Max ? ::thrust::max_element(::thrust::device, X, X + N)
                    : ::thrust::min_element(::thrust::device, X, X + N);
  ::thrust::device_ptr<const T> XP(X), DP(DX);
  long K = It - X;
  T Best = XP[K];
  if (Max ? Init > Best : Init < Best)
    return T(0);
  return DP[K];
}

} // namespace meshad::thrust_ad

#include <meshad/codegen/ThrustAdjointTangent.h>

#endif // MESHAD_CODEGEN_THRUSTADJOINT_H
