//===- Simplify/Simplifier.h - Simplifying generated functions ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The transformers build derivative code statement by statement, so it
/// carries tangents that are constant 0 or 1, `x * 1` and `0 + x`, math
/// calls evaluated twice, one `+=` per partial and temporaries read once.
/// The Simplifier runs on every generated function before it is emitted and
/// repeats a small pipeline of sound rules (lib/Simplify/Passes.h) until
/// none changes anything:
///
///   1. propagateConstants  0/1 tangents and seeds never written again
///   2. foldAlgebra         x*0, x*1, x+0, 0-x, -(-x), a*b + b*a -> 2*a*b
///   3. removeDeadLocals    locals nothing reads (Simplify/DeadLocals)
///   4. mergeAdds           v += a; v += b;  ->  v += a + b;
///   5. propagateCopies     single-use temporaries inlined
///   6. shareMathCalls      exp(y) twice in straight-line code: once
///
/// Only the function's own body changes (it is copied first, so blocks
/// another function shares are left alone).
///
/// \code
///   Simplifier S(M);
///   for (const DerivedFunction &D : Derived.entries())
///     S.run(*D.Derived);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_SIMPLIFY_SIMPLIFIER_H
#define MESHAD_SIMPLIFY_SIMPLIFIER_H

#include "IR/IR.h"

namespace meshad {

class Simplifier {
public:
  explicit Simplifier(ir::Module &M) : M(M) {}

  /// Simplifies \p F in place. Returns the number of rounds that changed
  /// something.
  unsigned run(ir::Function &F);

private:
  ir::Module &M;
};

} // namespace meshad

#endif // MESHAD_SIMPLIFY_SIMPLIFIER_H
