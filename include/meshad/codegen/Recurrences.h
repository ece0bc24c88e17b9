//===- meshad/codegen/Recurrences.h - Checks of undone recurrences -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reverse mode undoes a multiplicative update in a loop, `T *= f`, by its
/// inverse, `T /= f`, instead of saving T on a tape, when the factor is
/// proven nonzero (AD/Analysis/InvertibleUpdates). That gives back the old
/// value to rounding only while the new value stays a normal number: a
/// product that underflows to a subnormal or zero, or overflows, loses the
/// old value. The forward sweep therefore checks every such update; a value
/// that leaves the normal range stops the program with a message (a trap on
/// the GPU) instead of giving a wrong derivative.
///
/// \code
///   meshad::checkUndoable(T, nextT);   // forward sweep, before T = nextT
///   T = nextT;
///   ...
///   T /= 1 - alpha;                    // reverse sweep
/// \endcode
///
/// Under meshad::AfterPrimal the gradient does not run the forward sweep
/// again: it reads the final T back from what the primal stored, and the
/// reverse sweep checks each value before it undoes an update instead
/// (`meshad::checkRestored(T); T /= 1 - alpha;`): the forward sweep's value
/// at that point was not a normal number exactly when this one is not.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RECURRENCES_H
#define MESHAD_RECURRENCES_H

#include <cstdio>
#include <cstdlib>

#if defined(__CUDACC__)
#define MESHAD_RECURRENCE_HD __host__ __device__
#else
#define MESHAD_RECURRENCE_HD
#endif

namespace meshad {
namespace detail {

MESHAD_RECURRENCE_HD inline bool isNormalNumber(double V) {
  double A = V < 0 ? -V : V;
  return A >= 2.2250738585072014e-308 && A <= 1.7976931348623157e+308;
}
MESHAD_RECURRENCE_HD inline bool isNormalNumber(float V) {
  float A = V < 0 ? -V : V;
  return A >= 1.17549435e-38f && A <= 3.40282347e+38f;
}

} // namespace detail

/// Stops the program when the update of a recurrence from \p Old to \p New
/// cannot be undone by its inverse: New is not a normal number (zero from
/// zero excepted).
template <class T>
MESHAD_RECURRENCE_HD inline void checkUndoable(T Old, T New) {
  if ((Old == T(0) && New == T(0)) || detail::isNormalNumber(New))
    return;
  const char *Message =
      "meshad: a recurrence that the reverse sweep undoes by its inverse "
      "(T *= f, then T /= f) left the normal numbers (underflow, overflow "
      "or not a number); the derivative would be wrong\n";
#if defined(__CUDA_ARCH__)
  printf("%s", Message);
  __trap();
#else
  std::fprintf(stderr, "%s", Message);
  std::abort();
#endif
}

/// Stops the program when \p Value, a recurrence's value that the reverse
/// sweep is about to undo, is not a normal number (the primal's update that
/// gave it could not be undone; AD/Reverse/ForwardFromOutputs).
template <class T> MESHAD_RECURRENCE_HD inline void checkRestored(T Value) {
  if (!detail::isNormalNumber(Value))
    checkUndoable(T(1), Value);
}

} // namespace meshad

#endif // MESHAD_RECURRENCES_H
