//===- GPU/ExclusiveAdds.cpp - Adds that need no load ---------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/ExclusiveAdds.h"

#include "IR/Clone.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

namespace {

/// `A[i] += v` or `A[i] -= v` with A a parameter: A, else null.
const Var *addedArray(const Stmt *S) {
  const auto *A = dyn_cast<AssignStmt>(S);
  if (!A || (A->getOp() != AssignOp::AddAssign &&
             A->getOp() != AssignOp::SubAssign))
    return nullptr;
  const auto *I = dyn_cast<IndexExpr>(A->getLHS());
  const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
  return Base && Base->getVar()->isParam() ? Base->getVar() : nullptr;
}

/// The floating-point adjoint parameters of \p F (numbers \p FirstAdjoint
/// on) that are used only as the arrays of `A[i] += v` statements.
llvm::SmallPtrSet<const Var *, 4> onlyAddedTo(const Function &F,
                                              unsigned FirstAdjoint) {
  llvm::SmallPtrSet<const Var *, 4> Adjoints;
  for (unsigned I = FirstAdjoint; I < F.getNumParams(); ++I)
    Adjoints.insert(F.getParam(I));
  llvm::DenseMap<const Var *, unsigned> Adds, Uses;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const Var *A = addedArray(S))
      ++Adds[A];
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        if (const auto *R = dyn_cast<VarRefExpr>(X))
          ++Uses[R->getVar()];
      });
  });
  llvm::SmallPtrSet<const Var *, 4> Result;
  for (auto &[V, N] : Adds) {
    const Type *Ty = V->getType();
    if (Adjoints.count(V) && Ty->isPointer() &&
        Ty->getElement()->isFloatingScalar() &&
        !Ty->getElement()->isConst() && Uses.lookup(V) == N)
      Result.insert(V);
  }
  return Result;
}

/// True when \p F waits at a block barrier: __syncthreads, or a runtime
/// helper that ends with one (block reductions, shared-memory tiles).
bool hasBlockBarrier(const Function &F) {
  bool Found = false;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const IntrinsicInfo *I = lookupIntrinsic(dyn_cast<CallExpr>(X));
        Found |= I && I->isBlockBarrier();
      });
  });
  return Found;
}

/// True when \p F stores to memory other than its own locals.
bool storesToMemory(const Function &F) {
  bool Found = false;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    const auto *A = dyn_cast<AssignStmt>(S);
    if (A && !llvm::isa<VarRefExpr>(A->getLHS())) {
      const auto *I = dyn_cast<IndexExpr>(A->getLHS());
      const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
      // A local array of the thread is still its own.
      Found |= !Base || Base->getVar()->getStorage() != Var::Storage::Local ||
               Base->getVar()->getType()->isPointer();
    }
  });
  return Found;
}

/// Drops the launch-shape check at the top of \p F.
void dropLaunchCheck(Function &F) {
  std::vector<const Stmt *> Kept;
  for (const Stmt *S : F.getBody()->getBody()) {
    const auto *ES = dyn_cast<ExprStmt>(S);
    const auto *C = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
    if (C && llvm::StringRef(C->getName()).starts_with("meshad::requireLaunch"))
      continue;
    Kept.push_back(S);
  }
  F.getBody()->setBody(std::move(Kept));
}

} // namespace

unsigned meshad::useExclusiveAdds(IRBuilder &B, Function &F,
                                  unsigned FirstAdjoint) {
  if (!F.isKernel() || !F.getBody())
    return 0;
  // A reduction still in flight holds up a later barrier (measured: the
  // broadcast gradient, whose block reduction ends with __syncthreads, ran
  // 2.2x slower with them on an H200).
  if (hasBlockBarrier(F))
    return 0;
  llvm::SmallPtrSet<const Var *, 4> Arrays = onlyAddedTo(F, FirstAdjoint);
  if (Arrays.empty())
    return 0;
  Module &M = B.getModule();
  unsigned Rewritten = 0;
  IRCloner C(M);
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    const Var *A = addedArray(S);
    if (!A || !Arrays.count(A))
      return std::nullopt;
    const auto *Add = cast<AssignStmt>(S);
    const Type *Ty = Add->getLHS()->getType()->getUnqualified();
    const Expr *V = Add->getOp() == AssignOp::AddAssign ? Add->getRHS()
                                                        : B.neg(Add->getRHS());
    ++Rewritten;
    auto *Call = M.create<CallExpr>(
        M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
        "meshad::exclusiveAdd", -1,
        std::vector<const Expr *>{B.addrOf(Add->getLHS()), B.cast(Ty, V)});
    Stmt *Out = M.create<ExprStmt>(Call);
    Out->setLoc(S->getLoc());
    return Out;
  });
  F.setBody(C.cloneBlock(F.getBody()));
  // The launch-shape check guards plain stores; atomics are right for any
  // launch (only their order, and so the last bits, would then vary).
  if (!storesToMemory(F))
    dropLaunchCheck(F);
  return Rewritten;
}
