//===- AD/Reverse/ReverseExpr.cpp - Adjoints of expressions ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// adjoint(E, DE) adds DE times the partial derivative of E to the adjoint of
/// everything E reads; the primal values it needs are current because the
/// reverse sweep restores them first. The partials of arithmetic operators,
/// compound assignments and math functions come from the rule table; user
/// calls go through their pullbacks; every store to an adjoint is an
/// Accumulate, whose GPU form the lowering chooses.
///
//===----------------------------------------------------------------------===//

#include "IR/Intrinsics.h"
#include "Rules/DerivativeRules.h"
#include "Rules/PartialProducts.h"
#include "AD/Reverse/ReverseFunction.h"

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
  // Its form is chosen by the lowering (lower-accumulations).
  AssignStmt *Acc = B.accumulate(AL, Value);
  Acc->setLoc(LValue->getLoc()); // Remarks of the lowering point here.
  Acc->setPrimalAccess(LValue);   // AccumulationFacts' PrimalAccessOf.
  Rev->append(Acc);
}

void ReverseFunction::adjoint(const Expr *E, const Expr *DE, BlockStmt *Rev,
                              const Expr *Result) {
  if (!DE || !isActive(E) || !E->getType()->isDifferentiableValue())
    return;
  const Type *Ty = E->getType()->getUnqualified();
  switch (E->getKind()) {
  case Expr::Kind::VarRef:
  case Expr::Kind::Index:
  case Expr::Kind::Member:
    return accumulate(E, DE, Rev);
  case Expr::Kind::Unary: {
    const auto *U = cast<UnaryExpr>(E);
    if (U->getOp() == UnaryOp::Deref)
      return accumulate(E, DE, Rev);
    int Id = RuleTable::get().lookupOperator(U->getOp());
    if (Id >= 0)
      adjointByRule(Id, {U->getSub()}, Ty, DE, Rev, Result);
    return;
  }
  case Expr::Kind::Binary: {
    int Id = RuleTable::get().lookupOperator(cast<BinaryExpr>(E)->getOp());
    if (Id >= 0) {
      const auto *Bin = cast<BinaryExpr>(E);
      adjointByRule(Id, {Bin->getLHS(), Bin->getRHS()}, Ty, DE, Rev, Result);
    }
    return;
  }
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
    return adjointCall(cast<CallExpr>(E), DE, Rev, Result);
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

void ReverseFunction::adjointByRule(int Id,
                                    const std::vector<const Expr *> &Ops,
                                    const Type *Ty, const Expr *DE,
                                    BlockStmt *Rev, const Expr *Result) {
  const RuleTable &Rules = RuleTable::get();
  unsigned Active = 0, NumActive = 0;
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (isActive(Ops[I])) {
      Active |= 1u << I;
      ++NumActive;
    }
  // What the partials read (ReverseNeeds marked the same): operands read
  // more than once, and a result recomputed more than once, are stored.
  RuleReads Reads = Rules.getReadsOf(Id, Active, Result != nullptr);
  bool Recompute = !Result && Reads.Result > 0;
  std::vector<const Expr *> Args;
  for (unsigned I = 0; I < Ops.size(); ++I) {
    unsigned Uses = Reads.Args[I] + (Recompute ? 1 : 0);
    Args.push_back(Uses > 1 ? cheap(Ops[I], Rev) : Ops[I]);
  }
  if (Recompute) {
    Result = Rules.buildResult(M, Id, Args, Ty);
    if (Reads.Result > 1)
      Result = cheap(Result, Rev);
  }
  // DE is repeated when several operands receive a share of it.
  if (NumActive > 1)
    DE = cheap(DE, Rev);
  for (unsigned I = 0; I < Ops.size(); ++I) {
    if (!(Active & (1u << I)))
      continue;
    const Expr *Partial = Rules.buildPartial(M, Id, I, Args, Ty, Result);
    adjoint(Ops[I],
            scaleByPartial(B, DE, Partial,
                           seedPlace(Rules.getRule(Id), I, /*Reverse=*/true)),
            Rev);
  }
}

void ReverseFunction::adjointCompound(const Expr *LHS, AssignOp Op,
                                      const Expr *RHS, const Expr *AL,
                                      const Expr *DE, BlockStmt *Rev) {
  // x Op= y, with x the target's value before the store (restored).
  const RuleTable &Rules = RuleTable::get();
  int Id = Rules.lookupOperator(Op);
  if (Id < 0)
    return;
  bool RHSActive = isActive(RHS);
  unsigned Active = 1u | (RHSActive ? 2u : 0u);
  RuleReads Reads = Rules.getReadsOf(Id, Active, false);
  std::vector<const Expr *> Args = {
      LHS, Reads.Args[1] > 1 ? cheap(RHS, Rev) : RHS};
  const Type *Ty = AL->getType()->getUnqualified();
  auto Contribution = [&](unsigned I) {
    return scaleByPartial(B, DE, Rules.buildPartial(M, Id, I, Args, Ty),
                          seedPlace(Rules.getRule(Id), I, /*Reverse=*/true));
  };
  if (!Rules.isUnitPartial(Id, 0))
    Rev->append(
        B.assign(AL, AssignOp::Assign, B.orZero(Contribution(0), Ty)));
  if (RHSActive)
    adjoint(RHS, Contribution(1), Rev);
}

void ReverseFunction::adjointCall(const CallExpr *C, const Expr *DE,
                                  BlockStmt *Rev, const Expr *Result) {
  switch (C->getCalleeKind()) {
  case CallExpr::CalleeKind::User:
    return pullbackCall(C, DE, Rev);
  case CallExpr::CalleeKind::Math:
    return adjointByRule(C->getMathId(), C->getArgs(),
                         C->getType()->getUnqualified(), DE, Rev, Result);
  case CallExpr::CalleeKind::Intrinsic:
    break;
  }
  const std::string &Name = C->getName();
  if (thrustRecipe(C))
    return thrustAdjoint(C, DE, Rev);
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

bool ReverseFunction::activeCallArgs(const CallExpr *C,
                                     std::vector<bool> &Active,
                                     std::vector<bool> &Private) {
  ir::Function *Callee = C->getUserCallee();
  for (unsigned I = 0; I < C->getNumArgs(); ++I) {
    const Expr *Arg = C->getArg(I);
    bool A = I < Callee->getNumParams() &&
             Callee->getParam(I)->getType()->isDifferentiable() &&
             isActive(Arg);
    const Var *ArgRoot = ActivityAnalysis::getRootVar(Arg);
    if (!A && I < Callee->getNumParams() && ArgRoot &&
        Activity->isActive(ArgRoot) &&
        Callee->getParam(I)->getType()->getKind() == Type::Kind::Opaque) {
      error(C->getLoc(), structArgMessage(*Callee, I));
      return false;
    }
    Active.push_back(A);
    // A local array's adjoint is a local array too: private to the thread.
    const Var *Root = ActivityAnalysis::getRootVar(Arg);
    Private.push_back(A && Arg->getType()->isIndexable() && Root &&
                      Root->getStorage() == Var::Storage::Local &&
                      Root->getType()->isArray());
  }
  return true;
}

std::vector<const Expr *> ReverseFunction::pullbackArgs(
    const CallExpr *C, const std::vector<bool> &Active,
    const std::vector<bool> &Forced, const Expr *SeedValue,
    std::vector<std::pair<unsigned, Var *>> &Results, BlockStmt *Rev) {
  ir::Function *Callee = C->getUserCallee();
  std::vector<const Expr *> Args(C->getArgs());
  if (Callee->getReturnType()->isDifferentiableValue())
    Args.push_back(SeedValue ? SeedValue
                             : B.zero(Callee->getReturnType()->getUnqualified()));
  for (unsigned I = 0; I < C->getNumArgs(); ++I) {
    if (!Active[I])
      continue;
    const Expr *Arg = C->getArg(I);
    if (Forced[I]) {
      Args.push_back(B.ref(adjointVar(cast<VarRefExpr>(Arg)->getVar())));
      continue;
    }
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
  return Args;
}

void ReverseFunction::pullbackCall(const CallExpr *C, const Expr *SeedValue,
                                   BlockStmt *Rev) {
  std::vector<bool> Active, Private;
  if (!activeCallArgs(C, Active, Private) || !llvm::is_contained(Active, true))
    return;
  std::vector<bool> Forced = localArraysCarryingDerivatives(C, Active);
  for (unsigned I = 0; I < Forced.size(); ++I)
    if (Forced[I])
      Active[I] = Private[I] = true;
  ir::Function *PB = Owner.derivePullback(C->getUserCallee(), Active, Private,
                                          C->getLoc());
  if (!PB) {
    Failed = true;
    return;
  }
  Derived.addCall(Result, PB);
  // Scalar adjoints come back through locals, then flow into the arguments.
  std::vector<std::pair<unsigned, Var *>> Results;
  std::vector<const Expr *> Args =
      pullbackArgs(C, Active, Forced, SeedValue, Results, Rev);
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
  case Expr::Kind::Conditional: { // `c ? x + 2 : x`: the same choice
    // (both branches alias one adjoint class in ActivityAnalysis).
    const auto *C = cast<ConditionalExpr>(P);
    const Expr *T = adjointPointer(C->getTrue());
    const Expr *F = adjointPointer(C->getFalse());
    if (!T || !F || T->getType() != F->getType())
      return nullptr;
    return M.create<ConditionalExpr>(T->getType(), C->getCond(), T, F);
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
    // Adjoint memory is written: `*_d_p` of a `const double *p` is a double.
    return P ? B.unary(UnaryOp::Deref, P, LValue->getType()->getUnqualified())
             : nullptr;
  }
  default:
    return nullptr;
  }
}
