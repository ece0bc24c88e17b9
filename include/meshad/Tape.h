//===- meshad/Tape.h - Per-thread tapes for reverse mode ---------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reverse-mode derivatives store the values that a loop overwrites and that
/// the reverse sweep needs on a tape: a stack private to one thread. On the
/// device it lives in registers/local memory with a fixed capacity (no global
/// heap); overflowing it traps with a message naming the fix. On the host it
/// grows on the heap past its inline buffer.
///
/// \code
///   meshad::Tape<double> T;
///   meshad::push(T, x);   // forward sweep, before x is overwritten
///   x = meshad::pop(T);   // reverse sweep, restores x
/// \endcode
///
/// The device capacity is MESHAD_TAPE_CAPACITY elements per tape (default
/// 64); define it before including meshad headers to change it.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TAPE_H
#define MESHAD_TAPE_H

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef MESHAD_TAPE_CAPACITY
#define MESHAD_TAPE_CAPACITY 64
#endif

#if defined(__CUDACC__)
#define MESHAD_TAPE_HD __host__ __device__
#else
#define MESHAD_TAPE_HD
#endif

namespace meshad {

/// A LIFO of T private to one thread.
template <class T> class Tape {
public:
  MESHAD_TAPE_HD Tape() {}
  MESHAD_TAPE_HD ~Tape() {
#if !defined(__CUDA_ARCH__)
    if (Heap)
      std::free(Heap);
#endif
  }
  Tape(const Tape &) = delete;
  Tape &operator=(const Tape &) = delete;

  MESHAD_TAPE_HD void push(const T &V) {
    if (Size < MESHAD_TAPE_CAPACITY) {
      Inline[Size++] = V;
      return;
    }
#if defined(__CUDA_ARCH__)
    printf("meshad: tape overflow (more than %d values in one thread); "
           "define MESHAD_TAPE_CAPACITY larger\n",
           MESHAD_TAPE_CAPACITY);
    __trap();
#else
    unsigned Extra = Size - MESHAD_TAPE_CAPACITY;
    if (Extra == HeapCapacity) {
      HeapCapacity = HeapCapacity ? 2 * HeapCapacity : 256;
      T *New = static_cast<T *>(std::malloc(HeapCapacity * sizeof(T)));
      if (!New) {
        std::fprintf(stderr, "meshad: out of memory growing a tape\n");
        std::abort();
      }
      if (Heap) {
        std::memcpy(static_cast<void *>(New), Heap, Extra * sizeof(T));
        std::free(Heap);
      }
      Heap = New;
    }
    Heap[Extra] = V;
    ++Size;
#endif
  }

  MESHAD_TAPE_HD T pop() {
    --Size;
#if !defined(__CUDA_ARCH__)
    if (Size >= MESHAD_TAPE_CAPACITY)
      return Heap[Size - MESHAD_TAPE_CAPACITY];
#endif
    return Inline[Size];
  }

  MESHAD_TAPE_HD unsigned size() const { return Size; }

private:
  T Inline[MESHAD_TAPE_CAPACITY];
  unsigned Size = 0;
#if !defined(__CUDA_ARCH__)
  T *Heap = nullptr;
  unsigned HeapCapacity = 0;
#endif
};

/// Forward sweep: saves \p V.
template <class T, class U> MESHAD_TAPE_HD void push(Tape<T> &Tp, const U &V) {
  Tp.push(static_cast<T>(V));
}

/// Reverse sweep: the most recently saved value.
template <class T> MESHAD_TAPE_HD T pop(Tape<T> &Tp) { return Tp.pop(); }

} // namespace meshad

#endif // MESHAD_TAPE_H
