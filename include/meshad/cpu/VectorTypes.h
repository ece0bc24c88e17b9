//===- meshad/cpu/VectorTypes.h - CUDA vector types on the CPU --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// CUDA's built-in vector types (float3, int2, uint3, ...) as plain
/// aggregates with the field names and alignments of vector_types.h, their
/// make_<type><N> functions, and dim3. Part of meshad/cpu/CudaOnCpu.h.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CPU_VECTORTYPES_H
#define MESHAD_CPU_VECTORTYPES_H

// A system header for the meshad plugin: the emulated CUDA API (atomicAdd,
// make_float3...) stays an intrinsic instead of user code to differentiate.
#if defined(__clang__)
#pragma clang system_header
#endif

/// Declares NAME1..NAME4 of element type T; NAME2 and NAME4 aligned to A2
/// and A4 bytes as CUDA does.
#define MESHAD_CPU_VECTOR_TYPES(T, NAME, A2, A4)                               \
  struct NAME##1 {                                                             \
    T x;                                                                       \
  };                                                                           \
  struct alignas(A2) NAME##2 {                                                 \
    T x, y;                                                                    \
  };                                                                           \
  struct NAME##3 {                                                             \
    T x, y, z;                                                                 \
  };                                                                           \
  struct alignas(A4) NAME##4 {                                                 \
    T x, y, z, w;                                                              \
  };                                                                           \
  inline constexpr NAME##1 make_##NAME##1(T X) { return {X}; }                 \
  inline constexpr NAME##2 make_##NAME##2(T X, T Y) { return {X, Y}; }         \
  inline constexpr NAME##3 make_##NAME##3(T X, T Y, T Z) { return {X, Y, Z}; } \
  inline constexpr NAME##4 make_##NAME##4(T X, T Y, T Z, T W) {                \
    return {X, Y, Z, W};                                                       \
  }

MESHAD_CPU_VECTOR_TYPES(signed char, char, 2, 4)
MESHAD_CPU_VECTOR_TYPES(unsigned char, uchar, 2, 4)
MESHAD_CPU_VECTOR_TYPES(short, short, 4, 8)
MESHAD_CPU_VECTOR_TYPES(unsigned short, ushort, 4, 8)
MESHAD_CPU_VECTOR_TYPES(int, int, 8, 16)
MESHAD_CPU_VECTOR_TYPES(unsigned int, uint, 8, 16)
MESHAD_CPU_VECTOR_TYPES(long, long, 2 * sizeof(long), 16)
MESHAD_CPU_VECTOR_TYPES(unsigned long, ulong, 2 * sizeof(long), 16)
MESHAD_CPU_VECTOR_TYPES(long long, longlong, 16, 16)
MESHAD_CPU_VECTOR_TYPES(unsigned long long, ulonglong, 16, 16)
MESHAD_CPU_VECTOR_TYPES(float, float, 8, 16)
MESHAD_CPU_VECTOR_TYPES(double, double, 16, 16)

#undef MESHAD_CPU_VECTOR_TYPES

/// A launch dimension: unset components are 1.
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int X = 1, unsigned int Y = 1, unsigned int Z = 1)
      : x(X), y(Y), z(Z) {}
  constexpr dim3(uint3 V) : x(V.x), y(V.y), z(V.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

#endif // MESHAD_CPU_VECTORTYPES_H
