//===- meshad/codegen/Tape.h - Per-thread tapes for reverse mode ---------*- C++ -*-===//
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
/// grows on the heap past its inline buffer; under the CPU emulation, kernel
/// code keeps the device's capacity (an overflow aborts with the message).
///
/// \code
///   meshad::Tape<double> T;
///   meshad::push(T, x);   // forward sweep, before x is overwritten
///   x = meshad::pop(T);   // reverse sweep, restores x
/// \endcode
///
/// The device capacity is MESHAD_TAPE_CAPACITY elements per tape (default
/// 64); define it before including meshad headers to change it. Where reverse
/// mode knows a bound on what a tape of device code holds (the loops around
/// its push have constant trip counts), it declares the tape with exactly
/// that capacity, `meshad::Tape<double, 12>`: no more local memory than the
/// values need, and no trap when the bound exceeds the default.
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
template <class T, unsigned Capacity = MESHAD_TAPE_CAPACITY> class Tape {
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
    if (Size < Capacity) {
      Inline[Size++] = V;
      return;
    }
#if defined(__CUDA_ARCH__)
    printf("meshad: tape overflow (more than %d values in one thread); "
           "define MESHAD_TAPE_CAPACITY larger\n",
           Capacity);
    __trap();
#else
#if defined(MESHAD_CPU_CUDA)
    // The CPU emulation runs kernels as host code: a tape of kernel code keeps
    // the device's capacity there too, so CI stops where a GPU would trap.
    if (cpu::detail::runner().running()) {
      std::fprintf(stderr,
                   "meshad: tape overflow (more than %u values in one thread "
                   "of a kernel); define MESHAD_TAPE_CAPACITY larger\n",
                   Capacity);
      std::abort();
    }
#endif
    unsigned Extra = Size - Capacity;
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
    if (Size >= Capacity)
      return Heap[Size - Capacity];
#endif
    return Inline[Size];
  }

  MESHAD_TAPE_HD unsigned size() const { return Size; }

  /// The I-th value pushed (I < size()).
  MESHAD_TAPE_HD T &at(unsigned I) {
#if !defined(__CUDA_ARCH__)
    if (I >= Capacity)
      return Heap[I - Capacity];
#endif
    return Inline[I];
  }
  /// Drops the values pushed after the first \p N.
  MESHAD_TAPE_HD void truncate(unsigned N) { Size = N < Size ? N : Size; }

private:
  T Inline[Capacity];
  unsigned Size = 0;
#if !defined(__CUDA_ARCH__)
  T *Heap = nullptr;
  unsigned HeapCapacity = 0;
#endif
};

/// Forward sweep: saves \p V.
template <class T, unsigned N, class U>
MESHAD_TAPE_HD void push(Tape<T, N> &Tp, const U &V) {
  Tp.push(static_cast<T>(V));
}

/// Reverse sweep: the most recently saved value.
template <class T, unsigned N> MESHAD_TAPE_HD T pop(Tape<T, N> &Tp) {
  return Tp.pop();
}

/// What a callee overwrote through the pointers it was given, so that the
/// caller's reverse sweep can put that memory back as it was before the
/// call: a pullback runs its callee again from there. Generated "recording"
/// variants of callees (`f_record(args..., &log)`) log each store's address
/// and old bytes; the caller marks the log before the call.
///
/// \code
///   meshad::UndoLog L;
///   unsigned M = meshad::undoMark(L);   // forward sweep, before the call
///   f_record(p, &L);                    // logs what f overwrites in p
///   ...
///   meshad::undoRestore(L, M);          // reverse sweep: p as before f
///   f_pullback(p, ...);                 // runs f again, then its adjoint
///   meshad::undoTo(L, M);               // p as before f again; log popped
/// \endcode
class UndoLog {
public:
  /// Saves the bytes at \p P before a store to it.
  template <class T> MESHAD_TAPE_HD void record(T *P) {
    static_assert(sizeof(T) <= sizeof(Entry::Old), "value too large to log");
    Entry E;
    E.Addr = static_cast<void *>(P);
    E.Bytes = sizeof(T);
    std::memcpy(E.Old, static_cast<const void *>(P), sizeof(T));
    Entries.push(E);
  }
  MESHAD_TAPE_HD unsigned mark() const { return Entries.size(); }
  /// Writes back the old bytes logged after \p Mark, newest first.
  MESHAD_TAPE_HD void restore(unsigned Mark) {
    for (unsigned I = Entries.size(); I > Mark; --I) {
      Entry &E = Entries.at(I - 1);
      std::memcpy(E.Addr, E.Old, E.Bytes);
    }
  }
  /// restore(Mark), then forgets what was logged after \p Mark.
  MESHAD_TAPE_HD void undo(unsigned Mark) {
    restore(Mark);
    Entries.truncate(Mark);
  }

private:
  struct Entry {
    void *Addr;
    unsigned Bytes;
    alignas(16) unsigned char Old[32];
  };
  Tape<Entry> Entries;
};

/// Recording callees: logs the bytes at \p P before a store to them.
template <class T> MESHAD_TAPE_HD void undoRecord(UndoLog *L, T *P) {
  L->record(P);
}
MESHAD_TAPE_HD inline unsigned undoMark(const UndoLog &L) { return L.mark(); }
MESHAD_TAPE_HD inline void undoRestore(UndoLog &L, unsigned Mark) {
  L.restore(Mark);
}
MESHAD_TAPE_HD inline void undoTo(UndoLog &L, unsigned Mark) { L.undo(Mark); }

} // namespace meshad

#endif // MESHAD_TAPE_H
