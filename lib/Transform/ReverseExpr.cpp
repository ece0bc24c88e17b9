//===- Transform/ReverseExpr.cpp - Adjoints of expressions ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// adjoint(E, DE) adds DE times the partial derivative of E to the adjoint of
/// everything E reads; the primal values it needs are current because the
/// reverse sweep restores them first. Math partials come from the rule
/// table; user calls go through their pullbacks; every store to an adjoint
/// goes through the accumulation policy.
///
//===----------------------------------------------------------------------===//

#include "IR/Intrinsics.h"
#include "Rules/DerivativeRules.h"
#include "Transform/ReverseFunction.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

const Expr *ReverseFunction::cheap(const Expr *E, BlockStmt *Out) {
  if (!E || IRBuilder::isCheap(E))
    return E;
  Var *T = M.createVar(freshName("_r"), E->getType()->getUnqualified(),
                       Var::Storage::Local, VarRoles::Temporary);
  Out->append(B.decl(T, E));
  return B.ref(T);
}

void ReverseFunction::accumulate(const Expr *LValue, const Expr *Value,
                                 BlockStmt *Rev) {
  const Expr *AL = adjointLValue(LValue);
  if (!AL || !Value)
    return;
  const Var *Root = ActivityAnalysis::getRootVar(AL);
  if (AL->getType()->isPair()) {
    // The adjoint of a pair is the pair of adjoints: added member by member.
    Value = cheap(Value, Rev);
    for (unsigned I = 0; I < 2; ++I)
      accumulate(B.pairMember(LValue, I), B.pairMember(Value, I), Rev);
    return;
  }
  if (AL->getType()->isVector()) // Added component by component.
    Value = cheap(Value, Rev);
  Value = B.cast(AL->getType()->getUnqualified(), Value);
  if (Unlowered) {
    AssignStmt *Acc = B.accumulate(AL, Value);
    Acc->setLoc(LValue->getLoc()); // Remarks of the lowering point here.
    Rev->append(Acc);
    return;
  }
  Policy.emit(B, AL, Root, Value, Rev, LValue->getLoc());
}

void ReverseFunction::adjoint(const Expr *E, const Expr *DE, BlockStmt *Rev) {
  if (!DE || !isActive(E) || !E->getType()->isDifferentiableValue())
    return;
  switch (E->getKind()) {
  case Expr::Kind::VarRef:
  case Expr::Kind::Index:
  case Expr::Kind::Member:
    return accumulate(E, DE, Rev);
  case Expr::Kind::Unary: {
    const auto *U = cast<UnaryExpr>(E);
    if (U->getOp() == UnaryOp::Neg)
      return adjoint(U->getSub(), B.neg(DE), Rev);
    if (U->getOp() == UnaryOp::Plus)
      return adjoint(U->getSub(), DE, Rev);
    if (U->getOp() == UnaryOp::Deref)
      return accumulate(E, DE, Rev);
    return;
  }
  case Expr::Kind::Binary:
    return adjointBinary(cast<BinaryExpr>(E), DE, Rev);
  case Expr::Kind::Conditional: {
    const auto *C = cast<ConditionalExpr>(E);
    DE = cheap(DE, Rev);
    BlockStmt *T = B.block(), *F = B.block();
    adjoint(C->getTrue(), DE, T);
    adjoint(C->getFalse(), DE, F);
    Rev->append(M.create<IfStmt>(C->getCond(), T,
                                 F->getBody().empty() ? nullptr : F));
    return;
  }
  case Expr::Kind::Cast: {
    const Expr *Sub = cast<CastExpr>(E)->getSub();
    return adjoint(Sub, B.cast(Sub->getType()->getUnqualified(), DE), Rev);
  }
  case Expr::Kind::Call:
    return adjointCall(cast<CallExpr>(E), DE, Rev);
  case Expr::Kind::InitList:
    return adjointPair(cast<InitListExpr>(E), DE, Rev);
  default:
    return;
  }
}

void ReverseFunction::adjointPair(const InitListExpr *E, const Expr *DE,
                                  BlockStmt *Rev) {
  if (!E->getType()->isPair() || E->getElements().size() != 2)
    return error(E->getLoc(), "cannot differentiate this initializer list "
                              "in reverse mode");
  // {value, pushforward}: each member takes the same member of the seed.
  DE = cheap(DE, Rev);
  for (unsigned I = 0; I < 2; ++I)
    adjoint(E->getElements()[I], B.pairMember(DE, I), Rev);
}

void ReverseFunction::adjointBinary(const BinaryExpr *E, const Expr *DE,
                                    BlockStmt *Rev) {
  const Expr *L = E->getLHS(), *R = E->getRHS();
  bool LA = isActive(L), RA = isActive(R);
  // DE is repeated when both operands receive a share of it.
  if (LA && RA)
    DE = cheap(DE, Rev);
  switch (E->getOp()) {
  case BinaryOp::Add:
    adjoint(L, DE, Rev);
    adjoint(R, DE, Rev);
    return;
  case BinaryOp::Sub:
    adjoint(L, DE, Rev);
    adjoint(R, B.neg(DE), Rev);
    return;
  case BinaryOp::Mul:
    adjoint(L, B.mul(DE, R), Rev);
    adjoint(R, B.mul(L, DE), Rev);
    return;
  case BinaryOp::Div: {
    const Expr *RV = RA ? cheap(R, Rev) : R;
    adjoint(L, B.div(DE, RV), Rev);
    if (RA)
      adjoint(R, B.neg(B.div(B.mul(DE, L), B.mul(RV, RV))), Rev);
    return;
  }
  default:
    return;
  }
}

void ReverseFunction::adjointCall(const CallExpr *C, const Expr *DE,
                                  BlockStmt *Rev) {
  switch (C->getCalleeKind()) {
  case CallExpr::CalleeKind::User:
    return pullbackCall(C, DE, Rev);
  case CallExpr::CalleeKind::Math: {
    std::vector<const Expr *> Args;
    unsigned NumActive = 0;
    for (const Expr *A : C->getArgs()) {
      Args.push_back(cheap(A, Rev));
      NumActive += isActive(A);
    }
    if (NumActive > 1)
      DE = cheap(DE, Rev);
    const Type *Ty = C->getType()->getUnqualified();
    for (unsigned I = 0; I < Args.size(); ++I) {
      if (!isActive(C->getArg(I)))
        continue;
      const Expr *Partial =
          RuleTable::get().buildPartial(M, C->getMathId(), I, Args, Ty);
      if (Partial)
        adjoint(C->getArg(I), B.mul(DE, Partial), Rev);
    }
    return;
  }
  case CallExpr::CalleeKind::Intrinsic:
    break;
  }
  const std::string &Name = C->getName();
  if (isIntrinsicDeriv(C, IntrinsicDeriv::Linear)) {
    static const char *Fields[] = {"x", "y", "z", "w"};
    DE = cheap(DE, Rev);
    for (unsigned I = 0; I < C->getNumArgs() && I < 4; ++I)
      adjoint(C->getArg(I),
              B.member(DE, Fields[I], C->getArg(I)->getType()), Rev);
    return;
  }
  error(C->getLoc(), "cannot differentiate the call of '" + Name +
                         "' in reverse mode: it has no derivative rule and "
                         "no visible definition");
}

void ReverseFunction::pullbackCall(const CallExpr *C, const Expr *SeedValue,
                                   BlockStmt *Rev) {
  ir::Function *Callee = C->getUserCallee();
  std::vector<bool> Active, Private;
  bool Any = false;
  for (unsigned I = 0; I < C->getNumArgs(); ++I) {
    const Expr *Arg = C->getArg(I);
    bool A = I < Callee->getNumParams() &&
             Callee->getParam(I)->getType()->isDifferentiable() &&
             isActive(Arg);
    Active.push_back(A);
    // A local array's adjoint is a local array too: private to the thread.
    const Var *Root = ActivityAnalysis::getRootVar(Arg);
    Private.push_back(A && Arg->getType()->isIndexable() && Root &&
                      Root->getStorage() == Var::Storage::Local &&
                      Root->getType()->isArray());
    Any |= A;
  }
  if (!Any)
    return;
  ir::Function *PB =
      Owner.derivePullback(Callee, Active, Private, C->getLoc());
  if (!PB) {
    Failed = true;
    return;
  }
  Derived.addCall(Result, PB);
  std::vector<const Expr *> Args(C->getArgs());
  if (Callee->getReturnType()->isDifferentiableValue())
    Args.push_back(SeedValue ? SeedValue
                             : B.zero(Callee->getReturnType()->getUnqualified()));
  // Scalar adjoints come back through locals, then flow into the arguments.
  std::vector<std::pair<unsigned, Var *>> Results;
  for (unsigned I = 0; I < C->getNumArgs(); ++I) {
    if (!Active[I])
      continue;
    const Expr *Arg = C->getArg(I);
    if (Arg->getType()->isIndexable()) {
      Args.push_back(adjointPointer(Arg));
      continue;
    }
    const Type *Ty = Callee->getParam(I)->getType()->getUnqualified();
    Var *R = M.createVar(freshName("_r"), Ty, Var::Storage::Local,
                         VarRoles::Temporary);
    Rev->append(B.decl(R, B.zero(Ty)));
    Args.push_back(B.addrOf(B.ref(R)));
    Results.push_back({I, R});
  }
  auto *Call = M.create<CallExpr>(M.getTypes().getVoid(), PB, Args);
  Call->setLoc(C->getLoc());
  auto *S = M.create<ExprStmt>(Call);
  S->setLoc(C->getLoc());
  Rev->append(S);
  if (BlockStmt *Again = RestoreAfter.lookup(C))
    for (const Stmt *St : Again->getBody())
      Rev->append(St);
  for (auto &[I, R] : Results)
    adjoint(C->getArg(I), B.ref(R), Rev);
}

const Expr *ReverseFunction::adjointPointer(const Expr *P) {
  switch (P->getKind()) {
  case Expr::Kind::VarRef: {
    Var *V = cast<VarRefExpr>(P)->getVar();
    if (V->isGlobal() || !Activity->isActive(V))
      return nullptr;
    return B.ref(adjointVar(V));
  }
  case Expr::Kind::Binary: {
    const auto *Bin = cast<BinaryExpr>(P);
    bool Left = Bin->getLHS()->getType()->isIndexable();
    const Expr *Base = adjointPointer(Left ? Bin->getLHS() : Bin->getRHS());
    if (!Base)
      return nullptr;
    return Left ? B.binary(Bin->getOp(), Base, Bin->getRHS())
                : B.binary(Bin->getOp(), Bin->getLHS(), Base);
  }
  case Expr::Kind::Unary: {
    const auto *U = cast<UnaryExpr>(P);
    if (U->getOp() != UnaryOp::AddrOf)
      return nullptr;
    const Expr *Target = adjointLValue(U->getSub());
    return Target ? B.addrOf(Target) : nullptr;
  }
  case Expr::Kind::Cast: {
    const Expr *Sub = adjointPointer(cast<CastExpr>(P)->getSub());
    return Sub ? M.create<CastExpr>(P->getType(), Sub) : nullptr;
  }
  case Expr::Kind::Index: {
    const auto *I = cast<IndexExpr>(P);
    const Expr *Base = adjointPointer(I->getBase());
    return Base ? B.index(Base, I->getIndex()) : nullptr;
  }
  case Expr::Kind::Member:
    // A pointer member of a struct: the same member of its shadow, a struct
    // of the same type (whose pointer to const cannot take adjoints).
    if (P->getType()->isPointer() && P->getType()->getElement()->isConst())
      return nullptr;
    return adjointLValue(P);
  default:
    return nullptr;
  }
}

const Expr *ReverseFunction::adjointLValue(const Expr *LValue) {
  switch (LValue->getKind()) {
  case Expr::Kind::VarRef: {
    Var *V = cast<VarRefExpr>(LValue)->getVar();
    if (V->isGlobal() || !Activity->isActive(V))
      return nullptr;
    Var *A = adjointVar(V);
    // A scalar parameter's adjoint is reached through its pointer.
    if (A->isParam() && !V->getType()->isIndexable())
      return B.unary(UnaryOp::Deref, B.ref(A), V->getType()->getUnqualified());
    return B.ref(A);
  }
  case Expr::Kind::Index: {
    const auto *I = cast<IndexExpr>(LValue);
    const Expr *Base = adjointPointer(I->getBase());
    return Base ? B.index(Base, I->getIndex()) : nullptr;
  }
  case Expr::Kind::Member: {
    const auto *Mem = cast<MemberExpr>(LValue);
    const Expr *Base = Mem->isArrow() ? adjointPointer(Mem->getBase())
                                      : adjointLValue(Mem->getBase());
    return Base ? B.member(Base, Mem->getField(), Mem->getType(),
                           Mem->isArrow())
                : nullptr;
  }
  case Expr::Kind::Unary: {
    const auto *U = cast<UnaryExpr>(LValue);
    if (U->getOp() != UnaryOp::Deref)
      return nullptr;
    const Expr *P = adjointPointer(U->getSub());
    return P ? B.unary(UnaryOp::Deref, P, LValue->getType()) : nullptr;
  }
  default:
    return nullptr;
  }
}
