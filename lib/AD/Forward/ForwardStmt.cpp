//===- AD/Forward/ForwardStmt.cpp - Forward mode of statements ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Each statement becomes its tangent update followed by the primal
/// statement, so the tangent sees the primal values from before the update.
/// Statements that touch no active variable are copied unchanged.
///
//===----------------------------------------------------------------------===//

#include "IR/DynamicShared.h"
#include "IR/Intrinsics.h"
#include "Rules/DerivativeRules.h"
#include "Rules/PartialProducts.h"
#include "Rules/ThrustRecipes.h"
#include "AD/Forward/ForwardFunction.h"
#include "AD/LoopIncrements.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

void ForwardFunction::deriveBlock(const BlockStmt *In, BlockStmt *Out) {
  for (const Stmt *S : In->getBody())
    deriveStmt(S, Out);
}

const BlockStmt *ForwardFunction::deriveSubBlock(const BlockStmt *In) {
  if (!In)
    return nullptr;
  BlockStmt *Out = B.block();
  Out->setLoc(In->getLoc());
  deriveBlock(In, Out);
  return Out;
}

void ForwardFunction::deriveStmt(const Stmt *S, BlockStmt *Out) {
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    Out->append(deriveSubBlock(cast<BlockStmt>(S)));
    return;
  case Stmt::Kind::Decl:
    return deriveDecl(cast<DeclStmt>(S), Out);
  case Stmt::Kind::Assign:
    return deriveAssign(cast<AssignStmt>(S), Out);
  case Stmt::Kind::ExprStmt:
    return deriveExprStmt(cast<ExprStmt>(S), Out);
  case Stmt::Kind::Return:
    return deriveReturn(cast<ReturnStmt>(S), Out);
  case Stmt::Kind::If: {
    const auto *I = cast<IfStmt>(S);
    auto *New = M.create<IfStmt>(I->getCond(), deriveSubBlock(I->getThen()),
                                 deriveSubBlock(I->getElse()));
    New->setLoc(I->getLoc());
    Out->append(New);
    return;
  }
  case Stmt::Kind::For:
  case Stmt::Kind::While:
  case Stmt::Kind::Do:
    Out->append(deriveLoop(S));
    return;
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
  case Stmt::Kind::Comment:
  case Stmt::Kind::Marker: // Forward over a gradient keeps its regions.
    Out->append(S);
    return;
  case Stmt::Kind::Launch:
    for (const Expr *A : cast<LaunchStmt>(S)->getArgs())
      if (isActive(A)) {
        error(S->getLoc(), "forward mode of host code that launches kernels "
                           "is not supported yet; use meshad::gradient, or "
                           "differentiate the kernel itself");
        return;
      }
    Out->append(S);
    return;
  }
}

void ForwardFunction::deriveDecl(const DeclStmt *D, BlockStmt *Out) {
  Var *V = D->getVar();
  if (!Activity->isActive(V)) {
    // The value carries no derivative, but a call may still write tangents
    // through its arguments.
    const Expr *Init = derivePrimalCall(D->getInit(), Out);
    Out->append(Init == D->getInit() ? D : B.decl(V, Init));
    return;
  }
  Dual Init;
  if (D->getInit()) {
    // A partial that reads the initializer's result (d exp = r) reads V,
    // declared before its tangent.
    if (V->getType()->isFloatingScalar() && !V->isShared()) {
      KeptInit = D->getInit();
      KeptVar = B.ref(V);
    }
    Init = derive(D->getInit(), Out);
    KeptInit = KeptVar = nullptr;
  }
  bool PrimalFirst = KeptVarUsed;
  KeptVarUsed = false;
  if (isDynamicShared(*V) && D->getInit())
    Init.T = sharedShadow(D); // a gradient's adjoint of its dynamic buffer
  if (!checkShadow(V, D->getInit(), Init.T, D->getLoc()))
    return;
  Var *T = tangentVar(V);
  const Expr *TInit = nullptr;
  // A tape or a Thrust range's saved copy (or snapshot) starts empty.
  llvm::StringRef Spelling(V->getType()->getSpelling());
  if (!V->isShared() && !V->getType()->isTape() &&
      !Spelling.starts_with("meshad::thrust_ad::Saved<") &&
      Spelling != "meshad::thrust_ad::Snapshot")
    TInit = Init.T ? Init.T : B.zero(T->getType());
  else if (isDynamicShared(*V) && !(TInit = sharedShadow(D)))
    return;
  DeclStmt *TD = B.decl(T, TInit);
  TD->setLoc(D->getLoc());
  const Stmt *Primal = Init.P == D->getInit() ? D : B.decl(V, Init.P);
  if (PrimalFirst)
    Out->append(Primal);
  Out->append(TD);
  if (!PrimalFirst)
    Out->append(Primal);
}

const Expr *ForwardFunction::sharedShadow(const DeclStmt *D) {
  if (Primal->getDerivativeOrder() == 0 && !D->getInit())
    return dynamicSharedShadow(M, D->getVar()->getType());
  // Forward over a gradient (an HVP): the primal buffer's tangent in slot 2
  // of 4, the adjoint's (slot 1, spreadSharedShadows) in slot 3.
  if (Primal->getDerivativeOrder() == 1 && !D->getInit())
    return dynamicSharedShadow(M, D->getVar()->getType(), 2, 4);
  if (Primal->getDerivativeOrder() == 1 &&
      sharedShadowSlots(D->getInit()) == 2)
    return dynamicSharedShadow(M, D->getVar()->getType(), 3, 4);
  if (!SharedShadowRejected)
    error(D->getLoc().isValid() ? D->getLoc() : Primal->getLoc(),
          SharedShadowSecondOrder);
  SharedShadowRejected = true;
  return nullptr;
}

/// True for a null pointer constant (its shadow is null too).
static bool isNullPointer(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  const auto *L = dyn_cast<IntLitExpr>(E);
  return L && L->getValue() == 0;
}

bool ForwardFunction::checkShadow(const Var *V, const Expr *Value,
                                  const Expr *Shadow,
                                  clang::SourceLocation Loc) {
  if (!V->getType()->isPointer() || !Value || Shadow || isNullPointer(Value))
    return true;
  // An alias of an array differentiated w.r.t. one element: deriveVarRef
  // said so at the array's use (Failed), which is the whole story.
  if (const Var *Root = ActivityAnalysis::getRootVar(Value); Root && Failed)
    if (const ParamSeed *S = seedOf(Root);
        S && S->K == ParamSeed::Kind::UnitElement)
      return false;
  error(Loc, "cannot find the tangent memory of pointer '" + V->getName() +
                 "': it is not derived from a differentiated parameter or "
                 "local array (dynamic shared memory and pointers returned "
                 "by calls are not supported in forward mode yet)");
  return false;
}

/// Appends \p S, a tangent update, at the location of the primal store
/// (remarks of the GPU lowering point there).
static void appendAt(BlockStmt *Out, Stmt *S, clang::SourceLocation Loc) {
  S->setLoc(Loc);
  Out->append(S);
}

void ForwardFunction::deriveAssign(const AssignStmt *A, BlockStmt *Out) {
  const Var *Root = ActivityAnalysis::getRootVar(A->getLHS());
  AssignOp Op = A->getOp();
  const Type *LTy = A->getLHS()->getType();
  bool Carries = LTy->isDifferentiable() || LTy->isPointer();
  bool Active = Root && Activity->isActive(Root);
  if (Active && LTy->isPointer() && Op != AssignOp::Assign) {
    // Pointer arithmetic (p += k, ++p): the tangent pointer moves alike.
    if (const Expr *TL = tangentLValue(A->getLHS()))
      appendAt(Out, B.assign(TL, Op, A->getRHS()), A->getLoc());
    Out->append(A);
    return;
  }
  if (!Active || Op == AssignOp::Inc || Op == AssignOp::Dec || !Carries) {
    const Expr *RHS = derivePrimalCall(A->getRHS(), Out);
    Out->append(RHS == A->getRHS() ? A : B.assign(A->getLHS(), Op, RHS));
    return;
  }
  Dual R = derive(A->getRHS(), Out);
  if (llvm::isa<VarRefExpr>(A->getLHS()) &&
      !checkShadow(Root, A->getRHS(), R.T, A->getLoc()))
    return;
  const Expr *TL = tangentLValue(A->getLHS());
  if (!TL)
    return;
  const Expr *L = A->getLHS();
  const Expr *TNew = nullptr;
  if (Op == AssignOp::Assign)
    TNew = B.orZero(R.T, TL->getType());
  else if (RuleTable::get().lookupOperator(Op) >= 0)
    TNew = compoundTangent(A, R, TL, Out);
  if (TNew)
    appendAt(Out, B.assign(TL, AssignOp::Assign, TNew), A->getLoc());
  auto *Primal = R.P == A->getRHS() ? A : B.assign(L, Op, R.P);
  Out->append(Primal);
}

/// `TL Op= C` for a tangent update that adds \p C: an Accumulate stays one
/// (the tangent of an accumulation accumulates), a negated C is subtracted.
static AssignStmt *addToTangent(IRBuilder &B, const Expr *TL, AssignOp Op,
                                const Expr *C) {
  if (Op == AssignOp::Accumulate)
    return B.accumulate(TL, C);
  const auto *U = dyn_cast<UnaryExpr>(C);
  if (U && U->getOp() == UnaryOp::Neg)
    return B.assign(TL, AssignOp::SubAssign, U->getSub());
  return B.assign(TL, AssignOp::AddAssign, C);
}

const Expr *ForwardFunction::compoundTangent(const AssignStmt *A, Dual &R,
                                             const Expr *TL, BlockStmt *Out) {
  // x Op= y, with x the target's value before the store (the tangent is
  // updated first).
  const RuleTable &Rules = RuleTable::get();
  int Id = Rules.lookupOperator(A->getOp());
  unsigned Active = 1u | (R.T ? 2u : 0u);
  if (Rules.getReadsOf(Id, Active, false).Args[1] > 0)
    R.P = hoist(R.P, Out);
  std::vector<const Expr *> Ops = {A->getLHS(), R.P};
  const Type *Ty = A->getLHS()->getType()->getUnqualified();
  auto Contribution = [&](unsigned I, const Expr *Seed) {
    return scaleByPartial(B, Seed, Rules.buildPartial(M, Id, I, Ops, Ty),
                          seedPlace(Rules.getRule(Id), I, false));
  };
  const Expr *CY = Contribution(1, R.T);
  if (Rules.isUnitPartial(Id, 0)) {
    // The target's tangent stays; the right-hand side's is added to it.
    if (CY)
      appendAt(Out, addToTangent(B, TL, A->getOp(), CY), A->getLoc());
    return nullptr;
  }
  const Expr *CX = Contribution(0, TL);
  const auto *Bin = llvm::dyn_cast_or_null<BinaryExpr>(CX);
  if (!CY && Bin && Bin->getLHS() == TL &&
      (Bin->getOp() == BinaryOp::Mul || Bin->getOp() == BinaryOp::Div)) {
    // _d_x *= y, _d_x /= y.
    AssignOp Scale = Bin->getOp() == BinaryOp::Mul ? AssignOp::MulAssign
                                                   : AssignOp::DivAssign;
    appendAt(Out, B.assign(TL, Scale, Bin->getRHS()), A->getLoc());
    return nullptr;
  }
  return addContributions(B, CX, CY);
}

const Expr *ForwardFunction::derivePrimalCall(const Expr *E, BlockStmt *Out) {
  const auto *C = llvm::dyn_cast_or_null<CallExpr>(E);
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::User)
    return E;
  return deriveUserCall(C, Out, /*AsStmt=*/false).P;
}

/// Calls made only for their effect that carry no derivative.
static bool isEffectOnlyIntrinsic(const std::string &Name) {
  const IntrinsicInfo *I = lookupIntrinsic(Name);
  return I && I->Deriv == IntrinsicDeriv::None;
}

void ForwardFunction::deriveExprStmt(const ExprStmt *S, BlockStmt *Out) {
  const auto *C = dyn_cast<CallExpr>(S->getExpr());
  if (!C) {
    Out->append(S);
    return;
  }
  if (C->getCalleeKind() == CallExpr::CalleeKind::User) {
    deriveUserCall(C, Out, /*AsStmt=*/true);
    return;
  }
  if (isThrustRuntimeCall(C))
    return deriveThrustRuntimeStmt(S, C, Out);
  if (deriveCudaRuntimeStmt(S, C, Out))
    return;
  if (thrustRecipe(C))
    return deriveThrustStmt(S, C, Out);
  if (isIntrinsicDeriv(C, IntrinsicDeriv::Allocation))
    return deriveAllocation(S, Out);
  bool AnyActive = false;
  for (const Expr *A : C->getArgs())
    AnyActive |= isActive(A);
  if (!AnyActive || isEffectOnlyIntrinsic(C->getName())) {
    Out->append(S);
    return;
  }
  if (isIntrinsicDeriv(C, IntrinsicDeriv::TapePush))
    return deriveTapePush(S, Out);
  if (llvm::StringRef(C->getName()).starts_with("meshad::undo")) {
    // The undo log of a recording primal (reverse mode, AD/Reverse/
    // RecordingPrimal) has no tangent log yet.
    error(C->getLoc(), "meshad::hvp through a callee that passes memory it "
                       "was given (a pointer or reference parameter) on to "
                       "another callee that writes it is not supported yet; "
                       "write the inner update in the outer callee, or "
                       "return the value");
    return;
  }
  if (!isIntrinsicDeriv(C, IntrinsicDeriv::LinearAtomic)) {
    error(C->getLoc(), "cannot differentiate the call of '" + C->getName() +
                           "': it has no derivative rule and no visible "
                           "definition");
    return;
  }
  deriveAtomicAdd(S, C, Out);
}

void ForwardFunction::deriveThrustStmt(const ExprStmt *S, const CallExpr *C,
                                       BlockStmt *Out) {
  const Expr *T = thrustTangent(C, Out);
  // A tangent helper reads the primal values the call may overwrite.
  const auto *TC = llvm::dyn_cast_or_null<CallExpr>(T);
  bool Before = TC && llvm::StringRef(TC->getName()).starts_with("meshad::");
  // A helper that computes the values too replaces the call.
  bool Replaces = TC && (thrustRecipe(C)->tangentReplaces() ||
                         thrustRecipe(C)->tangentRecords());
  if (!Before)
    Out->append(S);
  if (T) {
    auto *TS = M.create<ExprStmt>(T);
    TS->setLoc(S->getLoc());
    Out->append(TS);
  }
  if (Before && !Replaces)
    Out->append(S);
}

void ForwardFunction::deriveAtomicAdd(const ExprStmt *S, const CallExpr *C,
                                      BlockStmt *Out) {
  // atomicAdd(p, v): the tangent memory accumulates the tangent of v.
  const IntrinsicInfo *Info = lookupIntrinsic(C);
  Dual Ptr = derive(C->getArg(Info->AddrArg), Out);
  Dual Val = derive(C->getArg(Info->ValueArg), Out);
  auto AtomicAdd = [&](const Expr *P, const Expr *V) {
    auto *Call =
        M.create<CallExpr>(C->getType(), CallExpr::CalleeKind::Intrinsic,
                           C->getName(), -1, std::vector<const Expr *>{P, V});
    auto *St = M.create<ExprStmt>(Call);
    St->setLoc(S->getLoc());
    Out->append(St);
  };
  if (Ptr.T && Val.T)
    AtomicAdd(Ptr.T, Val.T);
  AtomicAdd(Ptr.P, Val.P);
}

void ForwardFunction::deriveAllocation(const ExprStmt *S, BlockStmt *Out) {
  const auto *C = cast<CallExpr>(S->getExpr());
  Out->append(S);
  if (!isActive(C->getArg(0)))
    return;
  Dual Buffer = derive(C->getArg(0), Out);
  if (!Buffer.T)
    return;
  std::vector<const Expr *> Args(C->getArgs().begin(), C->getArgs().end());
  Args[0] = Buffer.T;
  auto *St = M.create<ExprStmt>(
      M.create<CallExpr>(C->getType(), CallExpr::CalleeKind::Intrinsic,
                         C->getName(), -1, std::move(Args)));
  St->setLoc(S->getLoc());
  Out->append(St);
}

void ForwardFunction::deriveTapePush(const ExprStmt *S, BlockStmt *Out) {
  const auto *C = cast<CallExpr>(S->getExpr());
  Dual Tape = derive(C->getArg(0), Out);
  Dual Val = derive(C->getArg(1), Out);
  auto Push = [&](const Expr *T, const Expr *V) {
    auto *St = M.create<ExprStmt>(M.create<CallExpr>(
        C->getType(), CallExpr::CalleeKind::Intrinsic, "meshad::push", -1,
        std::vector<const Expr *>{T, V}));
    St->setLoc(S->getLoc());
    Out->append(St);
  };
  // The tangent tape gets an entry for every value pushed, zero or not, so
  // that its pops stay in step with the primal tape's.
  if (Tape.T)
    Push(Tape.T, B.orZero(Val.T, C->getArg(1)->getType()->getUnqualified()));
  Push(Tape.P, Val.P);
}

void ForwardFunction::deriveReturn(const ReturnStmt *R, BlockStmt *Out) {
  const Expr *V = R->getValue();
  if (!V || !V->getType()->isDifferentiableValue()) {
    if (Kind == Flavor::Request && V)
      Out->append(M.create<ReturnStmt>(nullptr));
    else
      Out->append(R);
    return;
  }
  Dual D = derive(V, Out);
  const Type *RetTy = Primal->getReturnType();
  const Expr *T = D.T ? B.cast(RetTy->getUnqualified(), D.T)
                      : B.zero(RetTy->getUnqualified());
  const Expr *Value = T;
  if (Kind == Flavor::Pushforward)
    Value = M.create<InitListExpr>(Result->getReturnType(),
                                   std::vector<const Expr *>{D.P, T});
  auto *New = M.create<ReturnStmt>(Value);
  New->setLoc(R->getLoc());
  Out->append(New);
}

bool ForwardFunction::needsTangent(const Stmt *LoopPart) {
  if (!LoopPart)
    return false;
  if (const auto *D = dyn_cast<DeclStmt>(LoopPart))
    return Activity->isActive(D->getVar());
  if (const auto *A = dyn_cast<AssignStmt>(LoopPart))
    return Activity->isActive(ActivityAnalysis::getRootVar(A->getLHS())) &&
           A->getOp() != AssignOp::Inc && A->getOp() != AssignOp::Dec;
  return false;
}

const Stmt *ForwardFunction::deriveLoop(const Stmt *S) {
  Stmt *New = nullptr;
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    // A tangent update needs a statement of its own: an active increment
    // moves into the body, an active initializer before the loop.
    if (needsTangent(F->getInc()) || hasNonIntegerIncrement(*F))
      F = moveIncrementIntoBody(M, F);
    if (needsTangent(F->getInit())) {
      BlockStmt *Scope = B.block();
      deriveStmt(F->getInit(), Scope);
      auto *Loop = M.create<ForStmt>(nullptr, F->getCond(), F->getInc(),
                                     F->getBody());
      Loop->setLoc(F->getLoc());
      Scope->append(deriveLoop(Loop));
      return Scope;
    }
    New = M.create<ForStmt>(F->getInit(), F->getCond(), F->getInc(),
                            deriveSubBlock(F->getBody()));
  } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
    New = M.create<WhileStmt>(W->getCond(), deriveSubBlock(W->getBody()));
  } else {
    const auto *D = cast<DoStmt>(S);
    New = M.create<DoStmt>(deriveSubBlock(D->getBody()), D->getCond());
  }
  New->setLoc(S->getLoc());
  return New;
}
