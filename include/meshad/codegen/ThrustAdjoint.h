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

#include <type_traits>

namespace meshad::thrust_ad {

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
/// d op(x, y) / dx, / dy (binary).
template <class Op> struct IsMaximum : std::false_type {};
template <class U> struct IsMaximum<::thrust::maximum<U>> : std::true_type {};

template <class Op> struct Partials;
template <class U> struct Partials<::thrust::square<U>> {
  template <class T> __host__ __device__ static T dx(T X) { return 2 * X; }
};
template <class U> struct Partials<::thrust::negate<U>> {
  template <class T> __host__ __device__ static T dx(T) { return T(-1); }
};
template <class U> struct Partials<::thrust::plus<U>> {
  template <class T> __host__ __device__ static T dx(T, T) { return T(1); }
  template <class T> __host__ __device__ static T dy(T, T) { return T(1); }
};
template <class U> struct Partials<::thrust::minus<U>> {
  template <class T> __host__ __device__ static T dx(T, T) { return T(1); }
  template <class T> __host__ __device__ static T dy(T, T) { return T(-1); }
};
template <class U> struct Partials<::thrust::multiplies<U>> {
  template <class T> __host__ __device__ static T dx(T, T Y) { return Y; }
  template <class T> __host__ __device__ static T dy(T X, T) { return X; }
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

} // namespace meshad::thrust_ad

#endif // MESHAD_CODEGEN_THRUSTADJOINT_H
