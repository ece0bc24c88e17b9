//===- Simplify/SimplifyUtils.cpp - What the simplifier's rules share -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Simplify/SimplifyUtils.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "IR/Traversal.h"

#include <cstring>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::simplify;
using llvm::cast;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

static bool sameList(const std::vector<const Expr *> &A,
                     const std::vector<const Expr *> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (!sameExpr(A[I], B[I]))
      return false;
  return true;
}

static bool sameLeaf(const Expr *A, const Expr *B) {
  switch (A->getKind()) {
  case Expr::Kind::FloatLit: {
    double X = cast<FloatLitExpr>(A)->getValue();
    double Y = cast<FloatLitExpr>(B)->getValue();
    return std::memcmp(&X, &Y, sizeof X) == 0;
  }
  case Expr::Kind::IntLit:
    return cast<IntLitExpr>(A)->getValue() == cast<IntLitExpr>(B)->getValue();
  case Expr::Kind::BoolLit:
    return cast<BoolLitExpr>(A)->getValue() ==
           cast<BoolLitExpr>(B)->getValue();
  case Expr::Kind::VarRef:
    return cast<VarRefExpr>(A)->getVar() == cast<VarRefExpr>(B)->getVar();
  case Expr::Kind::Builtin: {
    const auto *X = cast<BuiltinExpr>(A), *Y = cast<BuiltinExpr>(B);
    return X->getBuiltin() == Y->getBuiltin() && X->getDim() == Y->getDim();
  }
  default:
    return false;
  }
}

bool simplify::sameExpr(const Expr *A, const Expr *B) {
  if (A == B)
    return true;
  if (!A || !B || A->getKind() != B->getKind() || A->getType() != B->getType())
    return false;
  switch (A->getKind()) {
  case Expr::Kind::Unary:
    if (cast<UnaryExpr>(A)->getOp() != cast<UnaryExpr>(B)->getOp())
      return false;
    break;
  case Expr::Kind::Binary:
    if (cast<BinaryExpr>(A)->getOp() != cast<BinaryExpr>(B)->getOp())
      return false;
    break;
  case Expr::Kind::Call: {
    const auto *X = cast<CallExpr>(A), *Y = cast<CallExpr>(B);
    if (X->getCalleeKind() != Y->getCalleeKind() ||
        X->getUserCallee() != Y->getUserCallee() ||
        X->getName() != Y->getName() || X->getMathId() != Y->getMathId())
      return false;
    break;
  }
  case Expr::Kind::Member: {
    const auto *X = cast<MemberExpr>(A), *Y = cast<MemberExpr>(B);
    if (X->getField() != Y->getField() || X->isArrow() != Y->isArrow())
      return false;
    break;
  }
  case Expr::Kind::Index:
  case Expr::Kind::Conditional:
  case Expr::Kind::Cast:
  case Expr::Kind::InitList:
    break;
  default:
    return sameLeaf(A, B);
  }
  auto OA = operands(A), OB = operands(B);
  return sameList({OA.begin(), OA.end()}, {OB.begin(), OB.end()});
}

bool simplify::evaluatedOnce(const Stmt *S) {
  switch (S->getKind()) {
  case Stmt::Kind::Decl:
  case Stmt::Kind::Assign:
  case Stmt::Kind::ExprStmt:
  case Stmt::Kind::Return:
  case Stmt::Kind::If:
    return true;
  default:
    return false;
  }
}

bool simplify::isLiteralValue(const Expr *E, double V) {
  while (const auto *C = dyn_cast_or_null<CastExpr>(E)) {
    if (!isScalarArithmetic(C->getType()))
      return false;
    E = C->getSub();
  }
  if (const auto *F = dyn_cast_or_null<FloatLitExpr>(E))
    return F->getValue() == V;
  if (const auto *I = dyn_cast_or_null<IntLitExpr>(E))
    return static_cast<double>(I->getValue()) == V;
  return false;
}

bool simplify::isScalarArithmetic(const Type *T) {
  return T && (T->isFloatingScalar() || T->getKind() == Type::Kind::Int);
}

const Var *simplify::storedVar(const Expr *LHS) {
  if (const auto *R = dyn_cast<VarRefExpr>(LHS))
    return R->getVar();
  if (const auto *Mb = dyn_cast<MemberExpr>(LHS))
    return Mb->isArrow() ? nullptr : storedVar(Mb->getBase());
  if (const auto *I = dyn_cast<IndexExpr>(LHS))
    return I->getBase()->getType()->isArray() ? storedVar(I->getBase())
                                              : nullptr;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Facts
//===----------------------------------------------------------------------===//

VarFacts::VarFacts(const Function &F) {
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S)) {
      ++Decls[D->getVar()];
      if (D->getVar()->getType()->isArray())
        Escaping.insert(D->getVar());
    }
    if (const auto *A = dyn_cast<AssignStmt>(S))
      if (const Var *V = storedVar(A->getLHS()))
        ++Writes[V];
    if (const auto *L = dyn_cast<LaunchStmt>(S))
      for (const Expr *Arg : L->getArgs())
        if (const auto *R = dyn_cast<VarRefExpr>(Arg))
          Escaping.insert(R->getVar());
    for (const Expr *E : ownExprs(S))
      countExpr(E);
  });
}

void VarFacts::countExpr(const Expr *E) {
  forEachExpr(E, [&](const Expr *X) {
    if (const auto *R = dyn_cast<VarRefExpr>(X))
      ++Reads[R->getVar()];
    if (const auto *U = dyn_cast<UnaryExpr>(X))
      if (U->getOp() == UnaryOp::AddrOf)
        if (const Var *V = storedVar(U->getSub()))
          Escaping.insert(V);
    if (const auto *C = dyn_cast<CallExpr>(X)) {
      // Math functions and lowered functions (meshad lowers `const T &`
      // as a value and rejects other references) take scalars by value.
      if (C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic)
        return;
      // CUDA's atomics take their operands after the address by value.
      bool Atomic = llvm::StringRef(C->getName()).starts_with("atomic");
      for (unsigned I = 0; I < C->getNumArgs(); ++I)
        if (const Var *V = storedVar(C->getArg(I)))
          if (!Atomic || I == 0)
            Escaping.insert(V);
    }
  });
}

bool VarFacts::isPlainLocal(const Var *V) const {
  return V->getStorage() == Var::Storage::Local &&
         isScalarArithmetic(V->getType()->getUnqualified()) && !escapes(V);
}

/// True when \p V may change through memory (a pointer, another thread).
static bool inMemory(const Var *V, const VarFacts &Facts) {
  return Facts.escapes(V) || V->getType()->isArray() ||
         !(V->getStorage() == Var::Storage::Local ||
           V->getStorage() == Var::Storage::Param);
}

ReadSet simplify::readsOf(const Expr *E, const VarFacts &Facts) {
  ReadSet R;
  // A call with effects may read anything; math calls read their operands.
  R.Memory = !isPureExpr(E);
  forEachExpr(E, [&](const Expr *X) {
    const auto *U = dyn_cast<UnaryExpr>(X);
    const auto *Mb = dyn_cast<MemberExpr>(X);
    R.Memory |= isa<IndexExpr>(X) || (U && U->getOp() == UnaryOp::Deref) ||
                (Mb && Mb->isArrow());
    if (const auto *Ref = dyn_cast<VarRefExpr>(X)) {
      R.Vars.insert(Ref->getVar());
      R.Memory |= inMemory(Ref->getVar(), Facts);
    }
  });
  return R;
}

WriteSet simplify::writesOf(const Stmt *S, const VarFacts &Facts) {
  WriteSet W;
  for (const Expr *E : ownExprs(S))
    if (!isPureExpr(E))
      W.Everything = true;
  switch (S->getKind()) {
  case Stmt::Kind::Decl:
    W.Vars.insert(cast<DeclStmt>(S)->getVar());
    return W;
  case Stmt::Kind::Assign: {
    const Var *V = storedVar(cast<AssignStmt>(S)->getLHS());
    if (V)
      W.Vars.insert(V);
    // A store through a pointer, or to a variable memory can reach.
    W.Memory = !V || inMemory(V, Facts);
    return W;
  }
  case Stmt::Kind::ExprStmt:
  case Stmt::Kind::Comment:
  case Stmt::Kind::Marker:
    return W;
  default:
    W.Everything = true;
    return W;
  }
}

bool simplify::interferes(const WriteSet &W, const ReadSet &R) {
  if (W.Everything || (W.Memory && R.Memory))
    return true;
  for (const Var *V : W.Vars)
    if (R.Vars.count(V))
      return true;
  return false;
}
