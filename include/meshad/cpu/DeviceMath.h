//===- meshad/cpu/DeviceMath.h - CUDA device math on the CPU ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The CUDA math functions and intrinsics that the host C library lacks:
/// rsqrt, rcbrt, sinpi/cospi, normcdf, exp10 and sincos overloads, the fast
/// float intrinsics (__expf, __sinf, ...: computed with the accurate
/// functions here), the round-to-nearest arithmetic intrinsics, bit casts
/// and bit counts, and CUDA's min/max functions. <math.h> brings the float
/// overloads (sin(float) is float, as in CUDA) into the global namespace.
/// Part of meshad/cpu/CudaOnCpu.h.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CPU_DEVICEMATH_H
#define MESHAD_CPU_DEVICEMATH_H

// A system header for the meshad plugin: the emulated CUDA API (atomicAdd,
// make_float3...) stays an intrinsic instead of user code to differentiate.
#if defined(__clang__)
#pragma clang system_header
#endif

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <math.h>

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

inline double rsqrt(double X) { return 1.0 / std::sqrt(X); }
inline float rsqrt(float X) { return 1.0f / std::sqrt(X); }
inline float rsqrtf(float X) { return 1.0f / std::sqrt(X); }
inline double rcbrt(double X) { return 1.0 / std::cbrt(X); }
inline float rcbrt(float X) { return 1.0f / std::cbrt(X); }
inline float rcbrtf(float X) { return 1.0f / std::cbrt(X); }

// glibc declares exp10 and sincos as GNU extensions (which g++ and clang++
// enable); elsewhere define them.
#if !defined(__USE_GNU)
inline double exp10(double X) { return std::pow(10.0, X); }
inline float exp10f(float X) { return std::pow(10.0f, X); }
inline void sincos(double X, double *S, double *C) {
  *S = std::sin(X);
  *C = std::cos(X);
}
inline void sincosf(float X, float *S, float *C) {
  *S = std::sin(X);
  *C = std::cos(X);
}
#endif
inline float exp10(float X) { return exp10f(X); }
inline void sincos(float X, float *S, float *C) { sincosf(X, S, C); }

namespace meshad::cpu::detail {

constexpr double Pi = 3.141592653589793238462643383279502884;

/// sin(pi X), exactly 0 and +-1 at multiples of 1/2.
inline double sinPi(double X) {
  if (!std::isfinite(X))
    return X - X;
  double R = std::remainder(X, 2.0), A = std::fabs(R), V;
  if (A <= 0.25)
    V = std::sin(Pi * A);
  else if (A <= 0.75)
    V = std::cos(Pi * (0.5 - A));
  else
    V = std::sin(Pi * (1.0 - A));
  return std::copysign(V, R);
}

/// cos(pi X), exactly 0 and +-1 at multiples of 1/2.
inline double cosPi(double X) {
  if (!std::isfinite(X))
    return X - X;
  double A = std::fabs(std::remainder(X, 2.0));
  if (A <= 0.25)
    return std::cos(Pi * A);
  if (A <= 0.75)
    return std::sin(Pi * (0.5 - A));
  return -std::cos(Pi * (1.0 - A));
}

inline double normCdf(double X) {
  return 0.5 * std::erfc(-X * 0.70710678118654752440);
}

} // namespace meshad::cpu::detail

inline double sinpi(double X) { return meshad::cpu::detail::sinPi(X); }
inline float sinpi(float X) { return float(meshad::cpu::detail::sinPi(X)); }
inline float sinpif(float X) { return float(meshad::cpu::detail::sinPi(X)); }
inline double cospi(double X) { return meshad::cpu::detail::cosPi(X); }
inline float cospi(float X) { return float(meshad::cpu::detail::cosPi(X)); }
inline float cospif(float X) { return float(meshad::cpu::detail::cosPi(X)); }
inline void sincospi(double X, double *S, double *C) {
  *S = sinpi(X);
  *C = cospi(X);
}
inline void sincospif(float X, float *S, float *C) {
  *S = sinpif(X);
  *C = cospif(X);
}
inline double normcdf(double X) { return meshad::cpu::detail::normCdf(X); }
inline float normcdf(float X) { return float(meshad::cpu::detail::normCdf(X)); }
inline float normcdff(float X) {
  return float(meshad::cpu::detail::normCdf(X));
}

//===----------------------------------------------------------------------===//
// Intrinsics
//===----------------------------------------------------------------------===//

// The fast approximate float intrinsics, computed accurately.
inline float __expf(float X) { return std::exp(X); }
inline float __exp10f(float X) { return exp10f(X); }
inline float __logf(float X) { return std::log(X); }
inline float __log2f(float X) { return std::log2(X); }
inline float __log10f(float X) { return std::log10(X); }
inline float __powf(float X, float Y) { return std::pow(X, Y); }
inline float __sinf(float X) { return std::sin(X); }
inline float __cosf(float X) { return std::cos(X); }
inline float __tanf(float X) { return std::tan(X); }
inline void __sincosf(float X, float *S, float *C) { sincosf(X, S, C); }
inline float __fdividef(float X, float Y) { return X / Y; }
inline float fdividef(float X, float Y) { return X / Y; }
inline double fdivide(double X, double Y) { return X / Y; }
/// Clamps to [0, 1]; NaN gives 0.
inline float __saturatef(float X) {
  return X >= 1.0f ? 1.0f : (X > 0.0f ? X : 0.0f);
}

// Round-to-nearest arithmetic: the host's default rounding.
inline float __fadd_rn(float X, float Y) { return X + Y; }
inline float __fsub_rn(float X, float Y) { return X - Y; }
inline float __fmul_rn(float X, float Y) { return X * Y; }
inline float __fdiv_rn(float X, float Y) { return X / Y; }
inline float __fmaf_rn(float X, float Y, float Z) { return std::fma(X, Y, Z); }
inline float __frcp_rn(float X) { return 1.0f / X; }
inline float __fsqrt_rn(float X) { return std::sqrt(X); }
inline float __frsqrt_rn(float X) { return 1.0f / std::sqrt(X); }
inline double __dadd_rn(double X, double Y) { return X + Y; }
inline double __dsub_rn(double X, double Y) { return X - Y; }
inline double __dmul_rn(double X, double Y) { return X * Y; }
inline double __ddiv_rn(double X, double Y) { return X / Y; }
inline double __fma_rn(double X, double Y, double Z) {
  return std::fma(X, Y, Z);
}
inline double __drcp_rn(double X) { return 1.0 / X; }
inline double __dsqrt_rn(double X) { return std::sqrt(X); }

namespace meshad::cpu::detail {
template <class To, class From> To bitCast(From V) {
  static_assert(sizeof(To) == sizeof(From));
  To R;
  std::memcpy(&R, &V, sizeof(R));
  return R;
}
} // namespace meshad::cpu::detail

inline int __float_as_int(float X) {
  return meshad::cpu::detail::bitCast<int>(X);
}
inline unsigned int __float_as_uint(float X) {
  return meshad::cpu::detail::bitCast<unsigned int>(X);
}
inline float __int_as_float(int X) {
  return meshad::cpu::detail::bitCast<float>(X);
}
inline float __uint_as_float(unsigned int X) {
  return meshad::cpu::detail::bitCast<float>(X);
}
inline long long __double_as_longlong(double X) {
  return meshad::cpu::detail::bitCast<long long>(X);
}
inline double __longlong_as_double(long long X) {
  return meshad::cpu::detail::bitCast<double>(X);
}

inline int __popc(unsigned int X) { return __builtin_popcount(X); }
inline int __popcll(unsigned long long X) { return __builtin_popcountll(X); }
inline int __clz(int X) { return X ? __builtin_clz(unsigned(X)) : 32; }
inline int __clzll(long long X) {
  return X ? __builtin_clzll((unsigned long long)X) : 64;
}
inline int __ffs(int X) { return __builtin_ffs(X); }
inline int __ffsll(long long X) { return __builtin_ffsll(X); }
inline unsigned int __brev(unsigned int X) {
  unsigned int R = 0;
  for (int I = 0; I < 32; ++I, X >>= 1)
    R = (R << 1) | (X & 1);
  return R;
}
inline int __mul24(int X, int Y) {
  return int((long long)(X << 8 >> 8) * (Y << 8 >> 8));
}
inline unsigned int __umul24(unsigned int X, unsigned int Y) {
  return (X & 0xffffffu) * (Y & 0xffffffu);
}
inline int __mulhi(int X, int Y) { return int(((long long)X * Y) >> 32); }
inline unsigned int __umulhi(unsigned int X, unsigned int Y) {
  return unsigned(((unsigned long long)X * Y) >> 32);
}

/// Read-only cache loads are plain loads.
template <class T> T __ldg(const T *P) { return *P; }
inline long long clock64() {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}
inline void __nanosleep(unsigned int) {}
[[noreturn]] inline void __trap() {
  meshad::cpu::detail::fatal("__trap() called in device code");
}

//===----------------------------------------------------------------------===//
// min and max, as CUDA declares them (std::min and std::max are unaffected:
// these non-templates win over them for equal argument types)
//===----------------------------------------------------------------------===//

#define MESHAD_CPU_MIN_MAX(R, A, B)                                            \
  inline R min(A X, B Y) {                                                     \
    return static_cast<R>(X) < static_cast<R>(Y) ? X : Y;                      \
  }                                                                            \
  inline R max(A X, B Y) {                                                     \
    return static_cast<R>(X) > static_cast<R>(Y) ? X : Y;                      \
  }

MESHAD_CPU_MIN_MAX(int, int, int)
MESHAD_CPU_MIN_MAX(unsigned int, unsigned int, unsigned int)
MESHAD_CPU_MIN_MAX(unsigned int, int, unsigned int)
MESHAD_CPU_MIN_MAX(unsigned int, unsigned int, int)
MESHAD_CPU_MIN_MAX(long, long, long)
MESHAD_CPU_MIN_MAX(unsigned long, unsigned long, unsigned long)
MESHAD_CPU_MIN_MAX(long long, long long, long long)
MESHAD_CPU_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
MESHAD_CPU_MIN_MAX(unsigned long long, long long, unsigned long long)
MESHAD_CPU_MIN_MAX(unsigned long long, unsigned long long, long long)

#undef MESHAD_CPU_MIN_MAX

// Floating min/max ignore a NaN operand, as fmin/fmax.
inline float min(float X, float Y) { return std::fmin(X, Y); }
inline float max(float X, float Y) { return std::fmax(X, Y); }
inline double min(double X, double Y) { return std::fmin(X, Y); }
inline double max(double X, double Y) { return std::fmax(X, Y); }
inline double min(float X, double Y) { return std::fmin(double(X), Y); }
inline double max(float X, double Y) { return std::fmax(double(X), Y); }
inline double min(double X, float Y) { return std::fmin(X, double(Y)); }
inline double max(double X, float Y) { return std::fmax(X, double(Y)); }

#endif // MESHAD_CPU_DEVICEMATH_H
