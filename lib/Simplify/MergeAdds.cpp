//===- Simplify/MergeAdds.cpp - One add per target ------------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reverse mode adds each partial to an adjoint in its own statement
/// (`_d_d += _r3 * d; _d_d += d * _r3;`). Two adjacent statements
///
///   - `v += a; v += b;` on a plain local v (a floating scalar local whose
///     address is never taken) become `v += a + b;`,
///   - two Accumulates to the syntactically same target become one
///     Accumulate of a + b (its GPU form, chosen later, then adds once),
///
/// when a and b are pure (no user call, atomic, tape or barrier: those are
/// never merged), of the target's type (a float sum added to a double would
/// lose precision), and b does not read what the first add
/// writes (v, or for a target in memory, any memory) nor does the first add
/// change what the target's address reads. The sum is the same up to the
/// rounding of the reassociation ((v + a) + b against v + (a + b)), as for
/// any merged adjoint accumulation.
///
//===----------------------------------------------------------------------===//

#include "IR/Builder.h"
#include "IR/Traversal.h"
#include "Simplify/Passes.h"
#include "Simplify/SimplifyUtils.h"

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::simplify;
using llvm::dyn_cast;

namespace {

/// What the add \p A writes (its target).
WriteSet targetWrite(const AssignStmt *A, const VarFacts &Facts) {
  WriteSet W;
  const Var *V = storedVar(A->getLHS());
  if (V)
    W.Vars.insert(V);
  W.Memory = !V || !Facts.isPlainLocal(V);
  return W;
}

/// True when \p Second may be folded into \p First.
bool canMerge(const AssignStmt *First, const AssignStmt *Second,
              const VarFacts &Facts) {
  if (First->getOp() != Second->getOp() || !isAdditive(First->getOp()))
    return false;
  const Expr *Target = First->getLHS();
  const Expr *A = First->getRHS(), *B = Second->getRHS();
  if (!sameExpr(Target, Second->getLHS()) || !isPureExpr(Target) ||
      !isPureExpr(A) || !isPureExpr(B) ||
      A->getType()->getUnqualified() != B->getType()->getUnqualified() ||
      A->getType()->getUnqualified() != Target->getType()->getUnqualified())
    return false;
  if (First->getOp() == AssignOp::AddAssign) {
    // Plain locals only: never memory another thread or a pointer reaches.
    const auto *R = dyn_cast<VarRefExpr>(Target);
    if (!R || !Facts.isPlainLocal(R->getVar()) ||
        !R->getVar()->getType()->isFloatingScalar())
      return false;
  }
  WriteSet W = targetWrite(First, Facts);
  if (interferes(W, readsOf(B, Facts)))
    return false;
  for (const Expr *Op : operands(Target))
    if (interferes(W, readsOf(Op, Facts)))
      return false;
  return true;
}

} // namespace

bool simplify::mergeAdds(Module &M, Function &F) {
  if (!F.getBody())
    return false;
  VarFacts Facts(F);
  IRBuilder Builder(M);
  bool Changed = false;
  for (BlockStmt *Block : blocksOf(F)) {
    std::vector<const Stmt *> Body = Block->getBody();
    bool BlockChanged = false;
    for (size_t I = 0; I + 1 < Body.size();) {
      const auto *First = dyn_cast<AssignStmt>(Body[I]);
      const auto *Second = dyn_cast<AssignStmt>(Body[I + 1]);
      if (!First || !Second || !canMerge(First, Second, Facts)) {
        ++I;
        continue;
      }
      const Expr *Sum = Builder.add(First->getRHS(), Second->getRHS());
      AssignStmt *Merged =
          Builder.assign(First->getLHS(), First->getOp(), Sum);
      Merged->setLoc(First->getLoc());
      Body[I] = Merged;
      Body.erase(Body.begin() + I + 1);
      BlockChanged = true;
    }
    if (BlockChanged)
      Block->setBody(std::move(Body));
    Changed |= BlockChanged;
  }
  return Changed;
}
