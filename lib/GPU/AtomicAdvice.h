//===- GPU/AtomicAdvice.h - How to make an atomic adjoint store go --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The way out that an atomic adjoint store's remark suggests: the
/// assertion, option or rewrite that would make the store atomic-free, from
/// what the ownership analysis found about the array (a table of cases,
/// AtomicAdvice.cpp).
///
/// \code
///   std::string Tip = atomicAdvice(Result, "x");
///   // "declare 'x' MESHAD_THREAD_EXCLUSIVE if no two threads ..."
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_ATOMICADVICE_H
#define MESHAD_GPU_ATOMICADVICE_H

#include "GPU/Ownership.h"

#include <string>

namespace meshad {

/// The suggestion for a shared array \p Name classified as \p R ("" when
/// there is none: asserted classes, non-shared ones).
std::string atomicAdvice(const OwnershipResult &R, const std::string &Name);

} // namespace meshad

#endif // MESHAD_GPU_ATOMICADVICE_H
