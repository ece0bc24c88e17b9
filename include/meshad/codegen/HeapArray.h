//===- meshad/codegen/HeapArray.h - Heap buffers of run-time size -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A heap buffer of a size known only at run time (`double *t = new
/// double[n]; ... delete[] t;` in a differentiated function, issue 13) is
/// lowered to these two calls, so that the modes allocate and release the
/// buffer's tangent or adjoint beside it: forward mode allocates `_d_t`
/// where `t` is allocated and releases it where `t` is; reverse mode
/// allocates the zeroed adjoint in the forward sweep and releases both at
/// the end of the reverse sweep (the `delete[]` of `t` waits there).
///
/// \code
///   double *t;
///   meshad::newArray(&t, n);    // t = new double[n]() (zeroed)
///   ...
///   meshad::deleteArray(t);     // delete[] t
/// \endcode
///
/// In host and device code (device code allocates on the device heap).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CODEGEN_HEAPARRAY_H
#define MESHAD_CODEGEN_HEAPARRAY_H

#ifndef MESHAD_HOST_DEVICE
#define MESHAD_HOST_DEVICE
#endif

#include <cstdio>

namespace meshad {

/// Points \p P at \p N zeroed elements of new memory (`new T[N]()`).
template <typename T>
MESHAD_HOST_DEVICE inline void newArray(T **P, long long N) {
  *P = new T[N > 0 ? N : 0]();
#ifdef __CUDA_ARCH__
  // Device `new` returns null when the heap (cudaLimitMallocHeapSize, 8 MB
  // by default) is exhausted; a gradient keeps each loop iteration's buffer
  // and its adjoint until the reverse sweep, so it may need more than the
  // primal. Stop with a message rather than an illegal address.
  if (!*P && N > 0) {
    printf("meshad: the device heap is exhausted (new of %lld elements); "
           "raise it with cudaDeviceSetLimit(cudaLimitMallocHeapSize, ...)\n",
           N);
    __trap();
  }
#endif
}

/// Releases a buffer of newArray (`delete[] P`).
template <typename T> MESHAD_HOST_DEVICE inline void deleteArray(T *P) {
  delete[] P;
}

} // namespace meshad

#endif // MESHAD_CODEGEN_HEAPARRAY_H
