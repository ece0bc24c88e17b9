//===- meshad/cpu/Atomics.h - CUDA atomics on the CPU -----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// CUDA's atomic functions, returning the old value. The fibers of a launch
/// share one OS thread, where a plain read-modify-write would do; the
/// __atomic builtins keep launches running in parallel OS threads on the
/// same memory exact too. Part of meshad/cpu/CudaOnCpu.h.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CPU_ATOMICS_H
#define MESHAD_CPU_ATOMICS_H

// A system header for the meshad plugin: the emulated CUDA API (atomicAdd,
// make_float3...) stays an intrinsic instead of user code to differentiate.
#if defined(__clang__)
#pragma clang system_header
#endif

namespace meshad::cpu::detail {

/// Replaces *\p Addr by \p Op(*Addr) atomically; returns the old value.
template <class T, class F> T atomicUpdate(T *Addr, F Op) {
  T Old;
  __atomic_load(Addr, &Old, __ATOMIC_RELAXED);
  T New = Op(Old);
  while (!__atomic_compare_exchange(Addr, &Old, &New, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED))
    New = Op(Old);
  return Old;
}

} // namespace meshad::cpu::detail

/// atomicAdd, atomicSub, atomicAnd, atomicOr, atomicXor, atomicExch of an
/// integer type.
#define MESHAD_CPU_INTEGER_ATOMICS(T)                                          \
  inline T atomicAdd(T *Addr, T V) {                                           \
    return __atomic_fetch_add(Addr, V, __ATOMIC_SEQ_CST);                      \
  }                                                                            \
  inline T atomicAnd(T *Addr, T V) {                                           \
    return __atomic_fetch_and(Addr, V, __ATOMIC_SEQ_CST);                      \
  }                                                                            \
  inline T atomicOr(T *Addr, T V) {                                            \
    return __atomic_fetch_or(Addr, V, __ATOMIC_SEQ_CST);                       \
  }                                                                            \
  inline T atomicXor(T *Addr, T V) {                                           \
    return __atomic_fetch_xor(Addr, V, __ATOMIC_SEQ_CST);                      \
  }                                                                            \
  inline T atomicExch(T *Addr, T V) {                                          \
    return __atomic_exchange_n(Addr, V, __ATOMIC_SEQ_CST);                     \
  }                                                                            \
  inline T atomicCAS(T *Addr, T Compare, T V) {                                \
    __atomic_compare_exchange_n(Addr, &Compare, V, false, __ATOMIC_SEQ_CST,    \
                                __ATOMIC_SEQ_CST);                             \
    return Compare;                                                            \
  }

/// atomicMin, atomicMax.
#define MESHAD_CPU_ORDER_ATOMICS(T)                                            \
  inline T atomicMin(T *Addr, T V) {                                           \
    return meshad::cpu::detail::atomicUpdate(                                  \
        Addr, [V](T Old) { return V < Old ? V : Old; });                       \
  }                                                                            \
  inline T atomicMax(T *Addr, T V) {                                           \
    return meshad::cpu::detail::atomicUpdate(                                  \
        Addr, [V](T Old) { return V > Old ? V : Old; });                       \
  }

MESHAD_CPU_INTEGER_ATOMICS(int)
MESHAD_CPU_INTEGER_ATOMICS(unsigned int)
MESHAD_CPU_INTEGER_ATOMICS(unsigned long long)
MESHAD_CPU_ORDER_ATOMICS(int)
MESHAD_CPU_ORDER_ATOMICS(unsigned int)
MESHAD_CPU_ORDER_ATOMICS(long long)
MESHAD_CPU_ORDER_ATOMICS(unsigned long long)

#undef MESHAD_CPU_INTEGER_ATOMICS
#undef MESHAD_CPU_ORDER_ATOMICS

inline int atomicSub(int *Addr, int V) {
  return __atomic_fetch_sub(Addr, V, __ATOMIC_SEQ_CST);
}
inline unsigned int atomicSub(unsigned int *Addr, unsigned int V) {
  return __atomic_fetch_sub(Addr, V, __ATOMIC_SEQ_CST);
}
inline unsigned short atomicCAS(unsigned short *Addr, unsigned short Compare,
                                unsigned short V) {
  __atomic_compare_exchange_n(Addr, &Compare, V, false, __ATOMIC_SEQ_CST,
                              __ATOMIC_SEQ_CST);
  return Compare;
}

/// ((old >= V) ? 0 : (old + 1))
inline unsigned int atomicInc(unsigned int *Addr, unsigned int V) {
  return meshad::cpu::detail::atomicUpdate(
      Addr, [V](unsigned int Old) { return Old >= V ? 0u : Old + 1; });
}
/// (((old == 0) || (old > V)) ? V : (old - 1))
inline unsigned int atomicDec(unsigned int *Addr, unsigned int V) {
  return meshad::cpu::detail::atomicUpdate(Addr, [V](unsigned int Old) {
    return Old == 0 || Old > V ? V : Old - 1;
  });
}

inline float atomicAdd(float *Addr, float V) {
  return meshad::cpu::detail::atomicUpdate(Addr,
                                           [V](float Old) { return Old + V; });
}
inline double atomicAdd(double *Addr, double V) {
  return meshad::cpu::detail::atomicUpdate(Addr,
                                           [V](double Old) { return Old + V; });
}
inline float atomicExch(float *Addr, float V) {
  float Old;
  __atomic_exchange(Addr, &V, &Old, __ATOMIC_SEQ_CST);
  return Old;
}

#endif // MESHAD_CPU_ATOMICS_H
