//===- GPU/BlockUniformity.cpp - Values the same in every thread ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/BlockUniformity.h"
#include "Analysis/IRWalk.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

/// The variable \p E names, or null.
static const Var *refVar(const Expr *E) {
  const auto *R = llvm::dyn_cast_or_null<VarRefExpr>(E);
  return R ? R->getVar() : nullptr;
}

/// The variable at the root of the store target \p LHS (`a[i].x` -> a).
static const Var *storeRoot(const Expr *LHS) {
  while (true) {
    if (const auto *I = dyn_cast<IndexExpr>(LHS))
      LHS = I->getBase();
    else if (const auto *M = dyn_cast<MemberExpr>(LHS))
      LHS = M->getBase();
    else if (const auto *U = dyn_cast<UnaryExpr>(LHS);
             U && U->getOp() == UnaryOp::Deref)
      LHS = U->getSub();
    else if (const auto *C = dyn_cast<CastExpr>(LHS))
      LHS = C->getSub();
    else
      return refVar(LHS);
  }
}

BlockUniformity::BlockUniformity(const Function &F) {
  VarSet Stored;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *A = dyn_cast<AssignStmt>(S))
      if (const Var *Root = storeRoot(A->getLHS()))
        if (!llvm::isa<VarRefExpr>(A->getLHS()))
          Stored.insert(Root);
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *U = dyn_cast<UnaryExpr>(X);
        if (U && U->getOp() == UnaryOp::AddrOf)
          if (const Var *V = storeRoot(U->getSub()))
            AddressTaken.insert(V);
      });
  });
  for (const Var *P : F.getParams()) {
    const Type *Ty = P->getType();
    if (Ty->isPointer() && Ty->getElement()->isConst() && !Stored.count(P))
      ReadOnly.insert(P);
  }
  findGlobal(F);
}

void BlockUniformity::findGlobal(const Function &F) {
  // Each scalar variable's definitions: one right-hand side, or several
  // (null: any other assignment, an update, a store through it).
  llvm::DenseMap<const Var *, const Expr *> Def;
  llvm::DenseMap<const Var *, unsigned> Count;
  auto Note = [&](const Var *V, const Expr *RHS) {
    ++Count[V];
    Def[V] = RHS;
  };
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S)) {
      if (D->getInit())
        Note(D->getVar(), D->getInit());
    } else if (const auto *A = dyn_cast<AssignStmt>(S)) {
      if (const Var *V = refVar(A->getLHS()))
        Note(V, A->getOp() == AssignOp::Assign ? A->getRHS() : nullptr);
    }
  });
  for (const Var *P : F.getParams())
    if (!Count.count(P) && !AddressTaken.count(P))
      Global.insert(P);
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (auto &[V, RHS] : Def) {
      if (Count[V] != 1 || !RHS || Global.count(V) || AddressTaken.count(V) ||
          V->isParam() || V->isShared() || V->isGlobal() ||
          V->getType()->isArray())
        continue;
      if (isUniform(RHS, Global)) {
        Global.insert(V);
        Changed = true;
      }
    }
  }
}

bool BlockUniformity::isReadOnly(const Expr *Base) const {
  const Var *V = refVar(irwalk::stripCasts(Base));
  return V && ReadOnly.count(V);
}

const Expr *BlockUniformity::firstNonUniform(const Expr *E,
                                             const VarSet &Env) const {
  switch (E->getKind()) {
  case Expr::Kind::FloatLit:
  case Expr::Kind::IntLit:
  case Expr::Kind::BoolLit:
    return nullptr;
  case Expr::Kind::Builtin:
    return cast<BuiltinExpr>(E)->getBuiltin() ==
                   BuiltinExpr::Builtin::ThreadIdx
               ? E
               : nullptr;
  case Expr::Kind::VarRef: {
    const Var *V = cast<VarRefExpr>(E)->getVar();
    return Env.count(V) || Global.count(V) ? nullptr : E;
  }
  case Expr::Kind::Index: {
    const auto *I = cast<IndexExpr>(E);
    if (!isReadOnly(I->getBase()))
      return E;
    return firstNonUniform(I->getIndex(), Env);
  }
  case Expr::Kind::Unary: {
    const auto *U = cast<UnaryExpr>(E);
    if (U->getOp() == UnaryOp::AddrOf) {
      // &p[i]: uniform with p a parameter and i uniform; &local is not.
      const auto *I = dyn_cast<IndexExpr>(U->getSub());
      const Var *Base = I ? refVar(irwalk::stripCasts(I->getBase())) : nullptr;
      if (!Base || !Base->isParam() || !Global.count(Base))
        return E;
      return firstNonUniform(I->getIndex(), Env);
    }
    if (U->getOp() == UnaryOp::Deref && !isReadOnly(U->getSub()))
      return E;
    return firstNonUniform(U->getSub(), Env);
  }
  case Expr::Kind::Call: {
    const auto *C = cast<CallExpr>(E);
    bool Pure = C->getCalleeKind() == CallExpr::CalleeKind::Math ||
                (C->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
                 isPureIntrinsicName(C->getName()));
    if (!Pure)
      return E;
    break;
  }
  case Expr::Kind::Member:
    // p->x loads through p.
    if (cast<MemberExpr>(E)->isArrow() &&
        !isReadOnly(cast<MemberExpr>(E)->getBase()))
      return E;
    break;
  case Expr::Kind::Binary:
  case Expr::Kind::Conditional:
  case Expr::Kind::Cast:
    break;
  default:
    return E;
  }
  for (const Expr *Op : operands(E))
    if (const Expr *Bad = firstNonUniform(Op, Env))
      return Bad;
  return nullptr;
}
