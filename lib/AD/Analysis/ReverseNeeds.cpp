//===- AD/Analysis/ReverseNeeds.cpp - What the reverse sweep reads --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Analysis/ReverseNeeds.h"
#include "AD/Analysis/Recomputation.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"
#include "Rules/DerivativeRules.h"

#include "llvm/ADT/StringRef.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

ReverseNeeds::ReverseNeeds(const BlockStmt &Body,
                           const ActivityAnalysis &Activity)
    : Activity(Activity) {
  findResultHolders(Body);
  visitBlock(&Body);
}

void ReverseNeeds::markAll(const Expr *E) { visitExpr(E, true); }

/// The rule of the floating-point operation at the top of \p E, or -1.
static int ruleOf(const Expr *E) {
  if (!E || !E->getType()->isDifferentiable())
    return -1;
  if (const auto *U = dyn_cast<UnaryExpr>(E))
    return RuleTable::get().lookupOperator(U->getOp());
  if (const auto *B = dyn_cast<BinaryExpr>(E))
    return RuleTable::get().lookupOperator(B->getOp());
  if (const auto *C = dyn_cast<CallExpr>(E))
    if (C->getCalleeKind() == CallExpr::CalleeKind::Math)
      return C->getMathId();
  return -1;
}

/// True when \p E reads the variable \p V.
static bool readsVar(const Expr *E, const Var *V) {
  bool Reads = false;
  forEachExpr(E, [&](const Expr *X) {
    if (const auto *R = dyn_cast<VarRefExpr>(X))
      Reads |= R->getVar() == V;
  });
  return Reads;
}

void ReverseNeeds::findResultHolders(const BlockStmt &Body) {
  Recomputation Defs(Body);
  const RuleTable &Rules = RuleTable::get();
  llvm::DenseMap<const Expr *, unsigned> Uses;
  forEachStmt(&Body, [&](const Stmt *S) {
    Var *V = nullptr;
    const Expr *RHS = nullptr;
    if (const auto *D = dyn_cast<DeclStmt>(S)) {
      V = D->getVar();
      RHS = D->getInit();
    } else if (const auto *A = dyn_cast<AssignStmt>(S)) {
      const auto *R = dyn_cast<VarRefExpr>(A->getLHS());
      V = R && A->getOp() == AssignOp::Assign ? R->getVar() : nullptr;
      RHS = A->getRHS();
    }
    if (!RHS || ++Uses[RHS] > 1 || !V)
      return;
    int Id = ruleOf(RHS);
    if (Id < 0 || V->getStorage() != Var::Storage::Local ||
        !V->getType()->isFloatingScalar() ||
        Rules.getReadsOf(Id, ~0u, true).Result == 0 ||
        !Defs.isDefinedOnceOutsideLoops(V) || readsVar(RHS, V))
      return;
    Holders[RHS] = V;
  });
  // A right-hand side shared by two statements holds in neither.
  for (const auto &[RHS, N] : Uses)
    if (N > 1)
      Holders.erase(RHS);
}

void ReverseNeeds::visitRule(const Expr *E, int Id,
                             llvm::ArrayRef<const Expr *> Ops, bool Value) {
  unsigned Active = 0;
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (active(Ops[I]))
      Active |= 1u << I;
  const Var *Holder = Holders.lookup(E);
  bool Kept = Holder != nullptr;
  RuleReads Reads = RuleTable::get().getReadsOf(Id, Active, Kept);
  if (Kept && Reads.Result > 0)
    need(Holder);
  for (unsigned I = 0; I < Ops.size(); ++I)
    visitExpr(Ops[I], Value || Reads.readsArg(I, Kept));
}

void ReverseNeeds::visitVarRef(const VarRefExpr *R, bool Value) {
  const Var *V = R->getVar();
  if (V->getType()->isPointer())
    NeededPointers.insert(V); // Its address is used; its pointee is not.
  else if (Value)
    need(V);
}

void ReverseNeeds::visitUnary(const UnaryExpr *U, bool Value) {
  if (U->getOp() == UnaryOp::Deref) {
    if (const Var *Root = ActivityAnalysis::getRootVar(U->getSub())) {
      if (Root->getType()->isPointer())
        NeededPointers.insert(Root);
      if (Value)
        need(Root);
    }
    return;
  }
  if (int Id = ruleOf(U); Id >= 0)
    return visitRule(U, Id, {U->getSub()}, Value);
  visitExpr(U->getSub(), Value);
}

void ReverseNeeds::visitCall(const CallExpr *C, bool Value) {
  if (int Id = ruleOf(C); Id >= 0)
    return visitRule(C, Id, C->getArgs(), Value);
  bool User = C->getCalleeKind() == CallExpr::CalleeKind::User;
  bool AnyActive = false;
  for (const Expr *A : C->getArgs())
    AnyActive |= active(A);
  for (const Expr *A : C->getArgs())
    visitExpr(A, Value || User || AnyActive);
  if (User && AnyActive)
    markCalleeReads(C);
}

void ReverseNeeds::visitIndex(const IndexExpr *I, bool Value) {
  markAll(I->getIndex());
  const Var *Root = ActivityAnalysis::getRootVar(I->getBase());
  if (Root && Root->getType()->isPointer())
    NeededPointers.insert(Root);
  if (Root && Value)
    need(Root);
  // Nested indices (a[i][j]) need their own index values.
  if (const auto *Inner = dyn_cast<IndexExpr>(I->getBase()))
    markAll(Inner->getIndex());
}

void ReverseNeeds::visitExpr(const Expr *E, bool Value) {
  if (!E)
    return;
  switch (E->getKind()) {
  case Expr::Kind::VarRef:
    return visitVarRef(cast<VarRefExpr>(E), Value);
  case Expr::Kind::Unary:
    return visitUnary(cast<UnaryExpr>(E), Value);
  case Expr::Kind::Binary: {
    // Integer arithmetic (indices) has no rule: all of it is read.
    const auto *B = cast<BinaryExpr>(E);
    if (int Id = ruleOf(E); Id >= 0)
      return visitRule(E, Id, {B->getLHS(), B->getRHS()}, Value);
    if (Value)
      markAll(B->getLHS()), markAll(B->getRHS());
    return;
  }
  case Expr::Kind::Conditional: {
    const auto *C = cast<ConditionalExpr>(E);
    markAll(C->getCond());
    visitExpr(C->getTrue(), Value);
    visitExpr(C->getFalse(), Value);
    return;
  }
  case Expr::Kind::Call:
    return visitCall(cast<CallExpr>(E), Value);
  case Expr::Kind::Index:
    return visitIndex(cast<IndexExpr>(E), Value);
  case Expr::Kind::Member:
    return visitExpr(cast<MemberExpr>(E)->getBase(), Value);
  case Expr::Kind::Cast:
    return visitExpr(cast<CastExpr>(E)->getSub(), Value);
  case Expr::Kind::InitList:
    for (const Expr *El : cast<InitListExpr>(E)->getElements())
      visitExpr(El, Value);
    return;
  default:
    return;
  }
}

void ReverseNeeds::markCalleeReads(const CallExpr *C) {
  // The pullback runs the callee again from the memory as it was before the
  // call: what the callee reads through a pointer is needed.
  const ir::Function *Callee = C->getUserCallee();
  if (!Callee->getBody())
    return;
  std::vector<Var *> Pointers;
  for (Var *P : Callee->getParams())
    if (P->getType()->isPointer())
      Pointers.push_back(P);
  // Memory the callee only stores to or adds to (out[k] += v) is not read
  // in a way that changes what its pullback computes.
  llvm::SmallPtrSet<const Var *, 4> WriteOnly =
      writeOnlyMemory(Callee->getBody(), Pointers, /*Accumulates=*/true);
  for (unsigned I = 0; I < C->getNumArgs() && I < Callee->getNumParams();
       ++I) {
    const Var *P = Callee->getParam(I);
    if (!P->getType()->isPointer() || WriteOnly.count(P))
      continue;
    if (const Var *Root = ActivityAnalysis::getRootVar(C->getArg(I)))
      need(Root);
  }
}

/// The user call that \p E is (the right-hand side of an assignment whose
/// value may be unused), or null.
static const CallExpr *userCall(const Expr *E) {
  const auto *C = llvm::dyn_cast_or_null<CallExpr>(E);
  return C && C->getCalleeKind() == CallExpr::CalleeKind::User ? C : nullptr;
}

void ReverseNeeds::visitBlock(const BlockStmt *B) {
  if (B)
    for (const Stmt *S : B->getBody())
      visitStmt(S);
}

/// The store target's own reads: indices and pointers.
static const Expr *lvalueIndex(const Expr *LHS) {
  if (const auto *I = dyn_cast<IndexExpr>(LHS))
    return I->getIndex();
  return nullptr;
}

void ReverseNeeds::visitDecl(const DeclStmt *D) {
  if (D->getVar()->getType()->isPointer())
    markAll(D->getInit());
  else if (Activity.isActive(D->getVar()) || userCall(D->getInit()))
    visitExpr(D->getInit(), false);
}

void ReverseNeeds::visitAssign(const AssignStmt *A) {
  const Expr *LHS = A->getLHS();
  markAll(lvalueIndex(LHS));
  // The reverse sweep finds the stored-to element (its adjoint, its old
  // value) through the pointer: `p[i] = ...` and `*p = ...` alike.
  if (const auto *Inner = dyn_cast<IndexExpr>(LHS))
    visitExpr(Inner, false);
  else if (const auto *U = dyn_cast<UnaryExpr>(LHS);
           U && U->getOp() == UnaryOp::Deref)
    visitExpr(U, false);
  const Var *Root = ActivityAnalysis::getRootVar(LHS);
  if (LHS->getType()->isPointer()) {
    markAll(A->getRHS());
    return;
  }
  if (!Root || !Activity.isActive(Root))
    return visitExpr(userCall(A->getRHS()), false);
  // x Op= y: what the rule's partials read of the target's old value x
  // and of y.
  int Id = RuleTable::get().lookupOperator(A->getOp());
  if (Id < 0)
    return visitExpr(A->getRHS(), false);
  bool ROk = A->getRHS() && active(A->getRHS());
  RuleReads Reads = RuleTable::get().getReadsOf(Id, ROk ? 3u : 1u, false);
  if (Reads.readsArg(0, false))
    need(Root);
  visitExpr(A->getRHS(), Reads.readsArg(1, false));
}

void ReverseNeeds::visitStmt(const Stmt *S) {
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    return visitBlock(cast<BlockStmt>(S));
  case Stmt::Kind::Decl:
    return visitDecl(cast<DeclStmt>(S));
  case Stmt::Kind::Assign:
    return visitAssign(cast<AssignStmt>(S));
  case Stmt::Kind::ExprStmt:
    return visitExpr(cast<ExprStmt>(S)->getExpr(), false);
  case Stmt::Kind::Launch:
    for (const Expr *A : cast<LaunchStmt>(S)->getArgs())
      markAll(A);
    return;
  case Stmt::Kind::Return:
    return visitExpr(cast<ReturnStmt>(S)->getValue(), false);
  case Stmt::Kind::If: {
    const auto *I = cast<IfStmt>(S);
    visitBlock(I->getThen());
    visitBlock(I->getElse());
    return;
  }
  case Stmt::Kind::For:
  case Stmt::Kind::While:
  case Stmt::Kind::Do:
    return visitLoop(S);
  default:
    return;
  }
}

void ReverseNeeds::visitLoop(const Stmt *S) {
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    if (std::optional<CanonicalLoop> C = matchCanonical(*F)) {
      // Recomputed in the reverse sweep from its start and step.
      markAll(C->Init);
      markAll(C->Step);
    } else {
      if (F->getInit())
        visitStmt(F->getInit());
      if (F->getInc())
        visitStmt(F->getInc());
    }
    return visitBlock(F->getBody());
  }
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return visitBlock(W->getBody());
  visitBlock(cast<DoStmt>(S)->getBody());
}

bool ReverseNeeds::isStoreTargetNeeded(const Expr *LValue) const {
  const Var *Root = ActivityAnalysis::getRootVar(LValue);
  if (!Root)
    return false;
  if (llvm::isa<VarRefExpr>(LValue) && Root->getType()->isPointer())
    return isPointerNeeded(Root);
  return isNeeded(Root);
}

bool meshad::assignsVar(const Stmt *S, const Var *V) {
  if (!S)
    return false;
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    for (const Stmt *Sub : cast<BlockStmt>(S)->getBody())
      if (assignsVar(Sub, V))
        return true;
    return false;
  case Stmt::Kind::Decl:
    return cast<DeclStmt>(S)->getVar() == V;
  case Stmt::Kind::Assign:
    return ActivityAnalysis::getRootVar(cast<AssignStmt>(S)->getLHS()) == V;
  case Stmt::Kind::If:
    return assignsVar(cast<IfStmt>(S)->getThen(), V) ||
           assignsVar(cast<IfStmt>(S)->getElse(), V);
  case Stmt::Kind::For: {
    const auto *F = cast<ForStmt>(S);
    return assignsVar(F->getInit(), V) || assignsVar(F->getInc(), V) ||
           assignsVar(F->getBody(), V);
  }
  case Stmt::Kind::While:
    return assignsVar(cast<WhileStmt>(S)->getBody(), V);
  case Stmt::Kind::Do:
    return assignsVar(cast<DoStmt>(S)->getBody(), V);
  default:
    return false;
  }
}

bool meshad::writesMemoryOf(const Stmt *S, const Var *V) {
  bool Writes = false;
  forEachStmt(S, [&](const Stmt *Sub) {
    if (const auto *A = dyn_cast<AssignStmt>(Sub))
      Writes |= ActivityAnalysis::getRootVar(A->getLHS()) == V;
    for (const Expr *E : ownExprs(Sub))
      forEachExpr(E, [&](const Expr *X) {
        const auto *C = dyn_cast<CallExpr>(X);
        const IntrinsicInfo *I = lookupIntrinsic(C);
        Writes |= I && I->isAtomic() && I->AddrArg >= 0 &&
                  unsigned(I->AddrArg) < C->getNumArgs() &&
                  ActivityAnalysis::getRootVar(C->getArg(I->AddrArg)) == V;
      });
  });
  return Writes;
}

/// The pointer variable whose memory the store target \p E designates:
/// P[i], P[i].m, &P[i], P + k or P itself; null otherwise.
static const Var *storeTarget(const Expr *E, bool AllowAddress) {
  if (AllowAddress) {
    if (const auto *U = dyn_cast<UnaryExpr>(E))
      if (U->getOp() == UnaryOp::AddrOf)
        E = U->getSub();
    if (const auto *R = dyn_cast<VarRefExpr>(E))
      return R->getVar();
    if (const auto *B = dyn_cast<BinaryExpr>(E))
      if (B->getOp() == BinaryOp::Add && llvm::isa<VarRefExpr>(B->getLHS()))
        return cast<VarRefExpr>(B->getLHS())->getVar();
  }
  while (const auto *M = dyn_cast<MemberExpr>(E))
    E = M->isArrow() ? nullptr : M->getBase();
  const auto *I = llvm::dyn_cast_or_null<IndexExpr>(E);
  const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
  return Base ? Base->getVar() : nullptr;
}

llvm::SmallPtrSet<const Var *, 4>
meshad::writeOnlyMemory(const Stmt *Body, llvm::ArrayRef<Var *> Candidates,
                        bool Accumulates) {
  llvm::DenseMap<const Var *, unsigned> Uses, Stores;
  forEachStmt(Body, [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        if (const auto *R = dyn_cast<VarRefExpr>(X))
          ++Uses[R->getVar()];
      });
    if (const auto *A = dyn_cast<AssignStmt>(S)) {
      AssignOp Op = A->getOp();
      if (Op == AssignOp::Assign ||
          (Accumulates &&
           (isAdditive(Op) || Op == AssignOp::SubAssign)))
        if (const Var *V = storeTarget(A->getLHS(), false))
          ++Stores[V];
    } else if (const auto *ES = dyn_cast<ExprStmt>(S)) {
      const auto *C = dyn_cast<CallExpr>(ES->getExpr());
      const IntrinsicInfo *I = lookupIntrinsic(C);
      if (I && I->isAtomic() && I->AddrArg >= 0 &&
          unsigned(I->AddrArg) < C->getNumArgs())
        if (const Var *V = storeTarget(C->getArg(I->AddrArg), true))
          ++Stores[V];
    } else if (const auto *D = dyn_cast<DeclStmt>(S)) {
      ++Uses[D->getVar()];
    }
  });
  llvm::SmallPtrSet<const Var *, 4> Result;
  for (const Var *V : Candidates)
    if (V->getType()->isPointer() && Stores.lookup(V) > 0 &&
        Stores.lookup(V) == Uses.lookup(V))
      Result.insert(V);
  return Result;
}

bool meshad::isPureExpr(const Expr *E) {
  bool Pure = true;
  if (E)
    forEachExpr(E, [&](const Expr *X) {
      if (const auto *C = dyn_cast<CallExpr>(X))
        Pure &= C->getCalleeKind() == CallExpr::CalleeKind::Math ||
                (C->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
                 isPureIntrinsic(C->getName()));
    });
  return Pure;
}

bool meshad::isPureIntrinsic(llvm::StringRef Name) {
  return isPureIntrinsicName(Name);
}

/// True when no variable read by \p E is assigned in \p Body.
static bool invariantIn(const Expr *E, const Stmt *Body) {
  switch (E->getKind()) {
  case Expr::Kind::VarRef:
    return !assignsVar(Body, cast<VarRefExpr>(E)->getVar());
  case Expr::Kind::Unary:
    return invariantIn(cast<UnaryExpr>(E)->getSub(), Body);
  case Expr::Kind::Binary:
    return invariantIn(cast<BinaryExpr>(E)->getLHS(), Body) &&
           invariantIn(cast<BinaryExpr>(E)->getRHS(), Body);
  case Expr::Kind::Cast:
    return invariantIn(cast<CastExpr>(E)->getSub(), Body);
  case Expr::Kind::Member:
    return invariantIn(cast<MemberExpr>(E)->getBase(), Body);
  case Expr::Kind::Index:
    return invariantIn(cast<IndexExpr>(E)->getBase(), Body) &&
           invariantIn(cast<IndexExpr>(E)->getIndex(), Body) &&
           !assignsVar(Body, ActivityAnalysis::getRootVar(E));
  case Expr::Kind::Conditional:
  case Expr::Kind::Call:
  case Expr::Kind::InitList:
    return false;
  default:
    return true;
  }
}

std::optional<CanonicalLoop> ReverseNeeds::matchCanonical(const ForStmt &F) {
  const auto *D = llvm::dyn_cast_or_null<DeclStmt>(F.getInit());
  const auto *Inc = llvm::dyn_cast_or_null<AssignStmt>(F.getInc());
  if (!D || !D->getInit() || !Inc || !D->getVar()->getType()->isIntegral())
    return std::nullopt;
  Var *I = D->getVar();
  const auto *Target = dyn_cast<VarRefExpr>(Inc->getLHS());
  if (!Target || Target->getVar() != I || assignsVar(F.getBody(), I))
    return std::nullopt;
  CanonicalLoop C;
  C.Counter = I;
  C.Init = D->getInit();
  switch (Inc->getOp()) {
  case AssignOp::Inc:
    break;
  case AssignOp::Dec:
    C.Decrement = true;
    break;
  case AssignOp::AddAssign:
    C.Step = Inc->getRHS();
    break;
  case AssignOp::SubAssign:
    C.Step = Inc->getRHS();
    C.Decrement = true;
    break;
  default:
    return std::nullopt;
  }
  if (C.Step && (!C.Step->getType()->isIntegral() ||
                 !invariantIn(C.Step, F.getBody())))
    return std::nullopt;
  if (!invariantIn(C.Init, F.getBody()))
    return std::nullopt;
  return C;
}
