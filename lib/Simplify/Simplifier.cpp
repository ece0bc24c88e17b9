//===- Simplify/Simplifier.cpp - Simplifying generated functions ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Simplify/Simplifier.h"
#include "IR/Clone.h"
#include "IR/NameScope.h"
#include "Simplify/Passes.h"
#include "Simplify/DeadLocals.h"

using namespace meshad;
using namespace meshad::ir;

/// Rounds after which the pipeline stops even if a rule still fires (each
/// rule shrinks the code, so this is a guard, not a limit that is reached).
static constexpr unsigned MaxRounds = 16;

unsigned Simplifier::run(Function &F) {
  if (!F.getBody())
    return 0;
  // Blocks are mutable and may be shared: rewrite a private copy.
  F.setBody(IRCloner(M).cloneBlock(F.getBody()));
  NameScope Names;
  Names.addFunction(F);
  unsigned Rounds = 0;
  while (Rounds < MaxRounds) {
    bool Changed = simplify::propagateConstants(M, F);
    Changed |= simplify::foldAlgebra(M, F);
    Changed |= removeDeadLocals(F) > 0;
    Changed |= simplify::mergeAdds(M, F);
    Changed |= simplify::propagateCopies(M, F);
    Changed |= simplify::foldAlgebra(M, F);
    Changed |= simplify::shareMathCalls(M, F, Names);
    if (!Changed)
      break;
    ++Rounds;
  }
  return Rounds;
}
