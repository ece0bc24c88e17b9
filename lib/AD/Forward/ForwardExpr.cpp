//===- AD/Forward/ForwardExpr.cpp - Forward mode of expressions -----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// derive() maps an expression to its primal (possibly rewritten to use
/// hoisted temporaries) and its tangent (null when structurally zero).
/// Arithmetic operators and math functions take their partials from the rule
/// table (deriveByRule); user functions are called through their
/// pushforwards. The tangent of a pointer is the pointer
/// to its tangent memory (its "shadow").
///
//===----------------------------------------------------------------------===//

#include "IR/Intrinsics.h"
#include "Rules/DerivativeRules.h"
#include "Rules/PartialProducts.h"
#include "AD/Forward/ForwardFunction.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

const Expr *ForwardFunction::hoist(const Expr *E, BlockStmt *Out) {
  if (!Out || IRBuilder::isCheap(E))
    return E;
  Var *T = M.createVar(freshTempName(), E->getType()->getUnqualified(),
                       Var::Storage::Local, VarRoles::Temporary);
  DeclStmt *D = B.decl(T, E);
  D->setLoc(E->getLoc());
  Out->append(D);
  return B.ref(T);
}

Dual ForwardFunction::derive(const Expr *E, BlockStmt *Out) {
  // Values that carry no derivative stay exactly as written (calls in them
  // included: their primal value is all that is needed).
  if (!E->getType()->isDifferentiable() && !E->getType()->isPointer())
    return {E, nullptr};
  if (!isActive(E) && !isa<CallExpr>(E))
    return {E, nullptr};
  switch (E->getKind()) {
  case Expr::Kind::VarRef:
    return deriveVarRef(cast<VarRefExpr>(E));
  case Expr::Kind::Unary:
    return deriveUnary(cast<UnaryExpr>(E), Out);
  case Expr::Kind::Binary:
    return deriveBinary(cast<BinaryExpr>(E), Out);
  case Expr::Kind::Conditional:
    return deriveConditional(cast<ConditionalExpr>(E));
  case Expr::Kind::Call:
    return deriveCall(cast<CallExpr>(E), Out);
  case Expr::Kind::Index:
    return deriveIndex(cast<IndexExpr>(E), Out);
  case Expr::Kind::Member:
    return deriveMember(cast<MemberExpr>(E), Out);
  case Expr::Kind::Cast:
    return deriveCast(cast<CastExpr>(E), Out);
  case Expr::Kind::InitList:
    return deriveInitList(cast<InitListExpr>(E), Out);
  default:
    return {E, nullptr};
  }
}

Dual ForwardFunction::deriveVarRef(const VarRefExpr *E) {
  Var *V = E->getVar();
  if (V->isGlobal() || !Activity->isActive(V))
    return {E, nullptr};
  if (const ParamSeed *S = seedOf(V))
    if (S->K == ParamSeed::Kind::UnitElement) {
      error(E->getLoc(),
            "array '" + V->getName() +
                "' is differentiated w.r.t. one element and cannot be "
                "passed on or aliased here; select the whole array (\"" +
                V->getName() + "\") with a direction instead");
      return {E, nullptr};
    }
  return {E, B.ref(tangentVar(V))};
}

Dual ForwardFunction::deriveUnary(const UnaryExpr *E, BlockStmt *Out) {
  switch (E->getOp()) {
  case UnaryOp::Neg:
  case UnaryOp::Plus:
    return deriveByRule(E, RuleTable::get().lookupOperator(E->getOp()),
                        {derive(E->getSub(), Out)}, Out);
  case UnaryOp::Deref: {
    Dual S = derive(E->getSub(), Out);
    const Expr *T = S.T ? B.unary(UnaryOp::Deref, S.T, E->getType()) : nullptr;
    return {E, T};
  }
  case UnaryOp::AddrOf: {
    const Expr *T = tangentLValue(E->getSub());
    return {E, T ? B.addrOf(T) : nullptr};
  }
  default:
    return {E, nullptr};
  }
}

Dual ForwardFunction::deriveBinary(const BinaryExpr *E, BlockStmt *Out) {
  BinaryOp Op = E->getOp();
  if (!isArithmetic(Op))
    return {E, nullptr};
  Dual L = derive(E->getLHS(), Out);
  Dual R = derive(E->getRHS(), Out);
  if (E->getType()->isPointer()) {
    // Pointer arithmetic: the shadow moves by the same offset.
    bool PtrLeft = E->getLHS()->getType()->isIndexable();
    const Expr *Shadow = PtrLeft ? L.T : R.T;
    const Expr *T = nullptr;
    if (Shadow)
      T = PtrLeft ? B.binary(Op, Shadow, E->getRHS())
                  : B.binary(Op, E->getLHS(), Shadow);
    return {E, T};
  }
  return deriveByRule(E, RuleTable::get().lookupOperator(Op), {L, R}, Out);
}

/// \p E (a unary or binary operator or a math call) over the operands
/// \p Ops: E itself when they are E's own.
static const Expr *rebuild(Module &M, const Expr *E,
                           const std::vector<const Expr *> &Ops) {
  if (const auto *U = dyn_cast<UnaryExpr>(E))
    return Ops[0] == U->getSub()
               ? E
               : M.create<UnaryExpr>(E->getType(), U->getOp(), Ops[0]);
  if (const auto *Bin = dyn_cast<BinaryExpr>(E))
    return Ops[0] == Bin->getLHS() && Ops[1] == Bin->getRHS()
               ? E
               : M.create<BinaryExpr>(E->getType(), Bin->getOp(), Ops[0],
                                      Ops[1]);
  const auto *C = cast<CallExpr>(E);
  if (Ops == C->getArgs())
    return E;
  return M.create<CallExpr>(C->getType(), CallExpr::CalleeKind::Math,
                            C->getName(), C->getMathId(), Ops);
}

Dual ForwardFunction::deriveByRule(const Expr *E, int Id, std::vector<Dual> Ops,
                                   BlockStmt *Out) {
  const RuleTable &Rules = RuleTable::get();
  unsigned Active = 0;
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (Ops[I].T)
      Active |= 1u << I;
  std::vector<const Expr *> Ps;
  if (!Active || Id < 0) {
    for (const Dual &D : Ops)
      Ps.push_back(D.P);
    return {rebuild(M, E, Ps), nullptr};
  }
  // The primal result is at hand wherever it can be computed first (not
  // inside a branch of ?:): in a temporary, or the declared variable.
  bool Keep = Out && Rules.getReadsOf(Id, Active, true).Result > 0;
  RuleReads Reads = Rules.getReadsOf(Id, Active, Keep);
  for (unsigned I = 0; I < Ops.size(); ++I)
    Ps.push_back(Reads.readsArg(I, Keep) ? hoist(Ops[I].P, Out) : Ops[I].P);
  const Expr *P = rebuild(M, E, Ps);
  const Expr *Result = nullptr;
  if (Keep && E == KeptInit) {
    Result = KeptVar;
    KeptVarUsed = true;
  } else if (Keep) {
    P = Result = hoist(P, Out);
  }
  const Type *Ty = E->getType()->getUnqualified();
  const Expr *T = nullptr;
  for (unsigned I = 0; I < Ops.size(); ++I) {
    if (!Ops[I].T)
      continue;
    const Expr *Partial = Rules.buildPartial(M, Id, I, Ps, Ty, Result);
    T = addContributions(
        B, T,
        scaleByPartial(B, Ops[I].T, Partial,
                       seedPlace(Rules.getRule(Id), I, /*Reverse=*/false)));
  }
  return {P, T ? B.cast(Ty, T) : nullptr};
}

Dual ForwardFunction::deriveConditional(const ConditionalExpr *E) {
  // Branches are evaluated conditionally: nothing may be hoisted out of them.
  Dual TrueD = derive(E->getTrue(), nullptr);
  Dual FalseD = derive(E->getFalse(), nullptr);
  const Type *Ty = E->getType()->getUnqualified();
  const Expr *T = nullptr;
  if (TrueD.T || FalseD.T)
    T = B.select(E->getCond(), B.orZero(TrueD.T, Ty), B.orZero(FalseD.T, Ty),
                 Ty);
  bool Same = TrueD.P == E->getTrue() && FalseD.P == E->getFalse();
  const Expr *P = Same ? E : B.select(E->getCond(), TrueD.P, FalseD.P,
                                      E->getType());
  return {P, T};
}

Dual ForwardFunction::deriveIndex(const IndexExpr *E, BlockStmt *Out) {
  if (const auto *Base = dyn_cast<VarRefExpr>(E->getBase()))
    if (const ParamSeed *S = seedOf(Base->getVar()))
      if (S->K == ParamSeed::Kind::UnitElement) {
        // d p[i] / d p[K] = (i == K).
        const Type *Ty = E->getType()->getUnqualified();
        if (const auto *Lit = dyn_cast<IntLitExpr>(E->getIndex()))
          return {E, Lit->getValue() == (long long)S->Element
                         ? B.floatLit(Ty, 1.0)
                         : nullptr};
        const Expr *Cond = B.binary(BinaryOp::Eq, E->getIndex(),
                                    B.intLit(S->Element));
        return {E, B.select(Cond, B.floatLit(Ty, 1.0), B.floatLit(Ty, 0.0),
                            Ty)};
      }
  Dual Base = derive(E->getBase(), Out);
  if (!Base.T)
    return {E, nullptr};
  return {E, B.index(Base.T, E->getIndex())};
}

Dual ForwardFunction::deriveMember(const MemberExpr *E, BlockStmt *Out) {
  const Type *BaseTy = E->getBase()->getType();
  if (BaseTy->isPointer())
    BaseTy = BaseTy->getElement();
  if (BaseTy->getKind() == Type::Kind::Opaque) {
    // A member of a struct whose shadow (a struct of the same type) holds
    // the tangents of its members.
    const Var *Root = ActivityAnalysis::getRootVar(E->getBase());
    if (!Root || !Activity->isActive(Root))
      return {E, nullptr};
    const Expr *TB = tangentLValue(E->getBase());
    if (!TB)
      return {E, nullptr};
    return {E, B.member(TB, E->getField(), E->getType(), E->isArrow())};
  }
  // A member of a vector or of a pair: the same member of the tangent.
  if (!BaseTy->isVector() && !BaseTy->isPair())
    return {E, nullptr};
  Dual Base = derive(E->getBase(), Out);
  if (!Base.T)
    return {Base.P == E->getBase() ? E : B.member(Base.P, E->getField(),
                                                  E->getType(), E->isArrow()),
            nullptr};
  const Expr *P = Base.P == E->getBase()
                      ? E
                      : B.member(Base.P, E->getField(), E->getType(),
                                 E->isArrow());
  return {P, B.member(Base.T, E->getField(), E->getType(), E->isArrow())};
}

Dual ForwardFunction::deriveCast(const CastExpr *E, BlockStmt *Out) {
  Dual S = derive(E->getSub(), Out);
  const Expr *P = S.P == E->getSub() ? E : B.cast(E->getType(), S.P);
  bool Keeps = E->getType()->isDifferentiable() || E->getType()->isPointer();
  if (!S.T || !Keeps)
    return {P, nullptr};
  return {P, M.create<CastExpr>(E->getType(), S.T)};
}

Dual ForwardFunction::deriveInitList(const InitListExpr *E, BlockStmt *Out) {
  std::vector<const Expr *> Ps, Ts;
  bool Any = false;
  const Type *Elem = E->getType()->getElement();
  for (const Expr *El : E->getElements()) {
    Dual D = derive(El, Out);
    Ps.push_back(D.P);
    Any |= D.T != nullptr;
    Ts.push_back(D.T ? D.T : B.zero(Elem ? Elem : El->getType()));
  }
  const Expr *P = M.create<InitListExpr>(E->getType(), Ps);
  return {P, Any ? M.create<InitListExpr>(E->getType(), Ts) : nullptr};
}

Dual ForwardFunction::deriveCall(const CallExpr *C, BlockStmt *Out) {
  switch (C->getCalleeKind()) {
  case CallExpr::CalleeKind::Math:
    return deriveMathCall(C, Out);
  case CallExpr::CalleeKind::User:
    return deriveUserCall(C, Out, /*AsStmt=*/false);
  case CallExpr::CalleeKind::Intrinsic:
    return deriveIntrinsicCall(C, Out);
  }
  return {C, nullptr};
}

Dual ForwardFunction::deriveMathCall(const CallExpr *C, BlockStmt *Out) {
  std::vector<Dual> Args;
  for (const Expr *A : C->getArgs())
    Args.push_back(derive(A, Out));
  return deriveByRule(C, C->getMathId(), std::move(Args), Out);
}

Dual ForwardFunction::deriveIntrinsicCall(const CallExpr *C, BlockStmt *Out) {
  if (thrustRecipe(C)) // A reduction: its tangent is another reduction.
    return {C, thrustTangent(C, Out)};
  if (isThrustRuntimeCall(C)) // A helper of a gradient's Thrust calls.
    return {C, thrustRuntimeTangent(C)};
  std::vector<Dual> Args;
  bool AnyTangent = false;
  for (const Expr *A : C->getArgs()) {
    Args.push_back(derive(A, Out));
    AnyTangent |= Args.back().T != nullptr;
  }
  if (!AnyTangent)
    return {C, nullptr};
  // meshad::pop(T): the tangent comes off the tangent tape, pushed beside
  // the value (ForwardFunction::deriveExprStmt). Reverse mode writes pops
  // only as the whole right-hand side of a store, so each is evaluated once.
  if (isIntrinsicDeriv(C, IntrinsicDeriv::TapePop) && Args.size() == 1 &&
      Args[0].T)
    return {C, M.create<CallExpr>(C->getType(), CallExpr::CalleeKind::Intrinsic,
                                  C->getName(), -1,
                                  std::vector<const Expr *>{Args[0].T})};
  // make_float3(a, b, c) and friends are linear in their arguments.
  if (isIntrinsicDeriv(C, IntrinsicDeriv::Linear)) {
    std::vector<const Expr *> Ps, Ts;
    for (unsigned I = 0; I < Args.size(); ++I) {
      Ps.push_back(Args[I].P);
      Ts.push_back(B.orZero(Args[I].T, C->getArg(I)->getType()));
    }
    auto Make = [&](std::vector<const Expr *> As) {
      return M.create<CallExpr>(C->getType(), CallExpr::CalleeKind::Intrinsic,
                                C->getName(), -1, std::move(As));
    };
    return {Make(Ps), Make(Ts)};
  }
  error(C->getLoc(), "cannot differentiate the call of '" + C->getName() +
                         "': it has no derivative rule and no visible "
                         "definition");
  return {C, nullptr};
}

bool ForwardFunction::deriveCallArgs(const CallExpr *C, BlockStmt *Out,
                                     std::vector<Dual> &Args,
                                     std::vector<bool> &Active) {
  Function *Callee = C->getUserCallee();
  for (unsigned I = 0; I < C->getNumArgs(); ++I) {
    Args.push_back(derive(C->getArg(I), Out));
    bool Differentiable = I < Callee->getNumParams() &&
                          Callee->getParam(I)->getType()->isDifferentiable();
    Active.push_back(Differentiable && Args.back().T != nullptr);
    const Var *Root = ActivityAnalysis::getRootVar(C->getArg(I));
    if (!Differentiable && I < Callee->getNumParams() && Root &&
        Activity->isActive(Root) &&
        Callee->getParam(I)->getType()->getKind() == Type::Kind::Opaque) {
      error(C->getLoc(), structArgMessage(*Callee, I));
      return false;
    }
  }
  return true;
}

void ForwardFunction::forceLocalTangents(const CallExpr *C,
                                         std::vector<Dual> &Args,
                                         std::vector<bool> &Active,
                                         BlockStmt *Out) {
  std::vector<bool> Forced = localArraysCarryingDerivatives(C, Active);
  for (unsigned I = 0; I < Forced.size(); ++I) {
    if (!Forced[I])
      continue;
    const Var *Array = cast<VarRefExpr>(C->getArg(I))->getVar();
    Var *T = M.createVar(Names.derivative(Array->getName()),
                         Array->getType()->getUnqualified(),
                         Var::Storage::Local, VarRoles::Tangent);
    Out->append(B.decl(T, B.zero(T->getType())));
    Args[I].T = B.ref(T);
    Active[I] = true;
  }
}

Dual ForwardFunction::deriveUserCall(const CallExpr *C, BlockStmt *Out,
                                     bool AsStmt) {
  Function *Callee = C->getUserCallee();
  std::vector<Dual> Args;
  std::vector<bool> Active;
  if (!deriveCallArgs(C, Out, Args, Active))
    return {C, nullptr};
  if (!llvm::is_contained(Active, true)) {
    if (AsStmt)
      Out->append(M.create<ExprStmt>(C));
    return {C, nullptr};
  }
  if (!Out) {
    error(C->getLoc(), "a call of '" + Callee->getName() +
                           "' with derivative-carrying arguments inside a "
                           "conditional expression is not supported; assign "
                           "its result to a variable first");
    return {C, nullptr};
  }
  forceLocalTangents(C, Args, Active, Out);
  Function *PF = Owner.derivePushforward(Callee, Active, C->getLoc());
  if (!PF) {
    Failed = true;
    return {C, nullptr};
  }
  Derived.addCall(Result, PF);
  std::vector<const Expr *> CallArgs;
  for (const Dual &A : Args)
    CallArgs.push_back(A.P);
  for (unsigned I = 0; I < Args.size(); ++I)
    if (Active[I])
      CallArgs.push_back(Args[I].T);
  const Expr *Call = M.create<CallExpr>(PF->getReturnType(), PF, CallArgs);
  if (AsStmt) {
    auto *S = M.create<ExprStmt>(Call);
    S->setLoc(C->getLoc());
    Out->append(S);
    return {C, nullptr};
  }
  Var *Tmp = M.createVar(freshTempName(), PF->getReturnType(),
                         Var::Storage::Local, VarRoles::Temporary);
  DeclStmt *D = B.decl(Tmp, Call);
  D->setLoc(C->getLoc());
  Out->append(D);
  if (!C->getType()->isDifferentiableValue())
    return {B.ref(Tmp), nullptr};
  return {B.pairMember(B.ref(Tmp), 0), B.pairMember(B.ref(Tmp), 1)};
}

const Expr *ForwardFunction::tangentVarLValue(const VarRefExpr *Ref) {
  Var *V = Ref->getVar();
  if (V->isGlobal()) {
    error(Ref->getLoc(), "writing a derivative-carrying value to global "
                         "variable '" + V->getName() +
                             "' is not supported");
    return nullptr;
  }
  if (const ParamSeed *S = seedOf(V))
    if (S->K == ParamSeed::Kind::UnitElement) {
      error(Ref->getLoc(), "cannot write to '" + V->getName() +
                               "', which is differentiated w.r.t. one "
                               "element; select the whole array instead");
      return nullptr;
    }
  return B.ref(tangentVar(V));
}

const Expr *ForwardFunction::tangentLValue(const Expr *LHS) {
  switch (LHS->getKind()) {
  case Expr::Kind::VarRef:
    return tangentVarLValue(cast<VarRefExpr>(LHS));
  case Expr::Kind::Index: {
    const auto *I = cast<IndexExpr>(LHS);
    const Expr *Base = tangentLValue(I->getBase());
    return Base ? B.index(Base, I->getIndex()) : nullptr;
  }
  case Expr::Kind::Member: {
    const auto *Mem = cast<MemberExpr>(LHS);
    const Expr *Base = tangentLValue(Mem->getBase());
    return Base ? B.member(Base, Mem->getField(), Mem->getType(),
                           Mem->isArrow())
                : nullptr;
  }
  case Expr::Kind::Unary: {
    const auto *U = cast<UnaryExpr>(LHS);
    if (U->getOp() == UnaryOp::Deref) {
      const Expr *Ptr = tangentLValue(U->getSub());
      return Ptr ? B.unary(UnaryOp::Deref, Ptr, LHS->getType()) : nullptr;
    }
    break;
  }
  case Expr::Kind::Cast: {
    // ((double *)a)[k]: a flat view of an array (reverse mode zeroes a
    // __shared__ adjoint array so); the tangent memory seen alike.
    const auto *C = cast<CastExpr>(LHS);
    if (!C->getType()->isPointer())
      break;
    const Expr *Sub = tangentLValue(C->getSub());
    return Sub ? M.create<CastExpr>(C->getType(), Sub) : nullptr;
  }
  case Expr::Kind::Binary: {
    // *(p + i) style pointer arithmetic.
    Dual D = derive(LHS, nullptr);
    if (D.T)
      return D.T;
    break;
  }
  default:
    break;
  }
  error(LHS->getLoc(), "cannot find the tangent of this expression");
  return nullptr;
}
