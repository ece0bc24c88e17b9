//===- AD/Reverse/ReverseStmt.cpp - Reverse mode of statements ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Each statement contributes to the forward sweep (the primal, plus saves
/// and records) and to the reverse sweep, where the statements' pieces are
/// emitted in reverse order: restore what the statement overwrote, then
/// propagate its adjoints.
///
//===----------------------------------------------------------------------===//

#include "IR/DynamicShared.h"
#include "IR/Clone.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"
#include "Rules/DerivativeRules.h"
#include "AD/Reverse/ReverseFunction.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

void ReverseFunction::sweepBlock(const BlockStmt *In, BlockStmt *Fwd,
                                 BlockStmt *Rev) {
  if (!In)
    return;
  // Inside counted loops, locals recomputed rather than taped.
  std::vector<LateRecomputation> Redo = lateRecomputations(In);
  auto RecomputeAt = [&](int After) {
    for (const LateRecomputation &L : Redo)
      if (L.After == After)
        Rev->append(B.assign(B.ref(L.Decl->getVar()), AssignOp::Assign,
                             L.Decl->getInit()));
  };
  std::vector<BlockStmt *> Pieces;
  for (const Stmt *S : In->getBody()) {
    BlockStmt *Piece = B.block();
    sweepStmt(S, Fwd, Piece);
    Pieces.push_back(Piece);
  }
  RecomputeAt(-1);
  for (int I = int(Pieces.size()) - 1; I >= 0; --I) {
    for (const Stmt *S : Pieces[I]->getBody())
      Rev->append(S);
    RecomputeAt(I);
  }
}

/// Gives \p S and the statements nested in it that have no location \p Loc.
static void stampLoc(const Stmt *S, clang::SourceLocation Loc) {
  forEachStmt(S, [&](const Stmt *Sub) {
    if (Sub->getLoc().isInvalid())
      const_cast<Stmt *>(Sub)->setLoc(Loc);
  });
}

void ReverseFunction::sweepStmt(const Stmt *S, BlockStmt *Fwd,
                                BlockStmt *Rev) {
  // What the sweeps make for S without a location of its own gets S's, so
  // that generated code maps to the user's construct (#line directives,
  // diagnostics in generated code).
  size_t FwdBefore = Fwd->getBody().size(), RevBefore = Rev->getBody().size();
  sweepStmtKind(S, Fwd, Rev);
  if (S->getLoc().isInvalid())
    return;
  for (size_t I = FwdBefore; I < Fwd->getBody().size(); ++I)
    stampLoc(Fwd->getBody()[I], S->getLoc());
  for (size_t I = RevBefore; I < Rev->getBody().size(); ++I)
    stampLoc(Rev->getBody()[I], S->getLoc());
}

void ReverseFunction::sweepStmtKind(const Stmt *S, BlockStmt *Fwd,
                                    BlockStmt *Rev) {
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    return sweepBlock(cast<BlockStmt>(S), Fwd, Rev);
  case Stmt::Kind::Decl:
    return sweepDecl(cast<DeclStmt>(S), Fwd, Rev);
  case Stmt::Kind::Assign: {
    const auto *A = cast<AssignStmt>(S);
    return sweepAssign(A->getLHS(), A->getOp(), A->getRHS(), false,
                       A->getLoc(), Fwd, Rev);
  }
  case Stmt::Kind::ExprStmt:
    return sweepExprStmt(cast<ExprStmt>(S), Fwd, Rev);
  case Stmt::Kind::If:
    return sweepIf(cast<IfStmt>(S), Fwd, Rev);
  case Stmt::Kind::For:
  case Stmt::Kind::While:
  case Stmt::Kind::Do:
    return sweepLoop(S, Fwd, Rev);
  case Stmt::Kind::Return: {
    // The forward sweep falls through to the reverse sweep; the returned
    // value receives the seed.
    const Expr *V = cast<ReturnStmt>(S)->getValue();
    if (rejectThrustIterator(V, S->getLoc()))
      return;
    recordReturnValue(V, S->getLoc(), Fwd);
    if (V && V->getType()->isDifferentiableValue() && isActive(V)) {
      if (!Seed && V->getType()->isPair())
        return error(S->getLoc(), "the gradient of a function that returns "
                                  "a value and its pushforward needs a seed "
                                  "for each; take its pullback instead");
      const Expr *S0 = Seed ? B.ref(Seed)
                            : B.floatLit(V->getType()->getUnqualified(), 1.0);
      if (const auto *C = dyn_cast<CallExpr>(V))
        if (C->getCalleeKind() == CallExpr::CalleeKind::User)
          return pullbackCall(C, S0, Rev);
      if (thrustRecipe(V))
        thrustForward(cast<CallExpr>(V), Fwd);
      adjoint(V, S0, Rev);
    }
    return;
  }
  case Stmt::Kind::Break:
    Fwd->append(S);
    return;
  case Stmt::Kind::Continue:
    // After normalization nothing follows a continue on its path.
    return;
  case Stmt::Kind::Comment:
    Fwd->append(S);
    return;
  case Stmt::Kind::Marker:
    return; // The regions of a derivative, not of this function's sweep.
  case Stmt::Kind::Launch:
    return sweepLaunch(cast<LaunchStmt>(S), Fwd, Rev);
  }
}

void ReverseFunction::sweepDecl(const DeclStmt *D, BlockStmt *Fwd,
                                BlockStmt *Rev) {
  Var *V = D->getVar();
  const Expr *Init = D->getInit();
  if (!Init)
    return;
  // A struct's brace list (`Spring s{2.0, 0.25}`, of constants: the
  // lowering rejects computed ones) is one assignment.
  if (const auto *List = dyn_cast<InitListExpr>(Init);
      List && V->getType()->getKind() != Type::Kind::Opaque)
    return sweepInitList(B.ref(V), List, D->getLoc(), Fwd, Rev);
  sweepAssign(B.ref(V), AssignOp::Assign, Init, true, D->getLoc(), Fwd, Rev);
}

void ReverseFunction::sweepInitList(const Expr *Target,
                                    const InitListExpr *List,
                                    clang::SourceLocation Loc, BlockStmt *Fwd,
                                    BlockStmt *Rev) {
  // double a[3] = {x, y, z}: one assignment per element; nested lists
  // initialize nested arrays.
  const auto &Elems = List->getElements();
  for (unsigned K = 0; K < Elems.size(); ++K) {
    const Expr *Elem = B.index(Target, B.intLit(K));
    const auto *Sub = dyn_cast<InitListExpr>(Elems[K]);
    if (Sub && Elem->getType()->isArray())
      sweepInitList(Elem, Sub, Loc, Fwd, Rev);
    else
      sweepAssign(Elem, AssignOp::Assign, Elems[K], true, Loc, Fwd, Rev);
  }
  // Elements without an initializer are zero (double w[4] = {1.0}).
  const Type *Ty = Target->getType();
  if (Ty->isArray() && Elems.size() < Ty->getCount())
    zeroTail(Target, Elems.size(), Fwd, Rev);
}

void ReverseFunction::zeroTail(const Expr *Target, unsigned From,
                               BlockStmt *Fwd, BlockStmt *Rev,
                               unsigned Repeat) {
  unsigned N = Target->getType()->getCount();
  Var *K = M.createVar(freshName("_k"), M.getTypes().getInt("int"),
                       Var::Storage::Local, VarRoles::Temporary);
  const Expr *Elem = B.index(Target, B.ref(K));
  BlockStmt *BodyFwd = B.block(), *BodyRev = B.block();
  if (Elem->getType()->isArray()) {
    zeroTail(Elem, 0, BodyFwd, BodyRev, Repeat * (N - From));
  } else {
    // Inside a loop the zeroed elements may hold values that the reverse
    // sweep reads (saved: N - From pushes per iteration of the loop around
    // the declaration), and adjoints of the previous iteration (reset).
    if (needsSave(Elem, /*IsDecl=*/true))
      save(Elem, BodyFwd, BodyRev, Repeat * (N - From));
    BodyFwd->append(B.assign(Elem, AssignOp::Assign,
                             B.zero(Elem->getType()->getUnqualified())));
    if (LoopDepth > 0 && isActive(Target))
      if (const Expr *AL = adjointLValue(Elem))
        BodyRev->append(B.assign(AL, AssignOp::Assign,
                                 B.zero(AL->getType()->getUnqualified())));
  }
  Fwd->append(M.create<ForStmt>(
      B.decl(K, B.intLit(From)),
      B.binary(BinaryOp::Lt, B.ref(K), B.intLit(N)),
      B.assign(B.ref(K), AssignOp::Inc, nullptr), BodyFwd));
  if (BodyRev->getBody().empty())
    return;
  // The reverse loop declares a counter of its own (one declaration per
  // variable; the same name, in a scope of its own).
  IRCloner Copy(M);
  Copy.freshVar(K);
  Rev->append(Copy.clone(
      M.create<ForStmt>(B.decl(K, B.intLit(N - 1)),
                        B.binary(BinaryOp::Ge, B.ref(K), B.intLit(From)),
                        B.assign(B.ref(K), AssignOp::Dec, nullptr), BodyRev)));
}

bool ReverseFunction::needsSave(const Expr *LValue, bool IsDecl) const {
  if (!Needs->isStoreTargetNeeded(LValue))
    return false;
  if (const auto *R = llvm::dyn_cast<VarRefExpr>(LValue))
    if (Recomputed.count(R->getVar()))
      return false;
  // Outside loops a declaration's first value overwrites nothing.
  return !IsDecl || LoopDepth > 0;
}

const Stmt *ReverseFunction::forEachElement(
    unsigned Count, bool Backwards,
    const std::function<const Stmt *(const Expr *)> &Body) {
  const Type *Int = M.getTypes().getInt("int");
  Var *K = M.createVar(freshName("_k"), Int, Var::Storage::Local,
                       VarRoles::Temporary);
  auto *Loop = M.create<ForStmt>(
      B.decl(K, B.intLit(Backwards ? Count - 1 : 0)),
      Backwards ? B.binary(BinaryOp::Ge, B.ref(K), B.intLit(0))
                : B.binary(BinaryOp::Lt, B.ref(K), B.intLit(Count)),
      B.assign(B.ref(K), Backwards ? AssignOp::Dec : AssignOp::Inc, nullptr),
      M.create<BlockStmt>(std::vector<const Stmt *>{Body(B.ref(K))}));
  return Loop;
}

const CallExpr *ReverseFunction::saveCalleeWrites(const CallExpr *C,
                                                  BlockStmt *Fwd,
                                                  BlockStmt *Restore) {
  // The pullback runs the callee again, from the memory as it was before
  // the call, and leaves behind what that run wrote: the memory the callee
  // overwrites is restored before the pullback and again after it. Local
  // scalars and arrays are copied; memory of unknown size is logged by the
  // callee's recording variant (AD/Reverse/RecordingPrimal.h).
  ir::Function *Callee = C->getUserCallee();
  BlockStmt *Again = B.block();
  bool NeedLog = false;
  for (unsigned I = 0; I < C->getNumArgs() && I < Callee->getNumParams();
       ++I) {
    const Type *PTy = Callee->getParam(I)->getType();
    if (!PTy->isPointer() || PTy->getElement()->isConst())
      continue;
    Var *Root = const_cast<Var *>(ActivityAnalysis::getRootVar(C->getArg(I)));
    if (!Root || !Needs->isNeeded(Root) ||
        !RecordingPrimals::writesThroughParam(*Callee, I))
      continue;
    checkCalleeWritesKept(C, I); // Restored after the pullback.
    const Type *RTy = Root->getType();
    if (!RTy->isIndexable()) {
      // &v of a local scalar.
      Var *Copy = newVar("_t", RTy->getUnqualified());
      BlockStmt *Pop = B.block();
      save(B.ref(Root), Fwd, Pop);
      for (const Stmt *S : Pop->getBody())
        Restore->append(S);
      Restore->append(B.assign(B.ref(Copy), AssignOp::Assign, B.ref(Root)));
      Again->append(B.assign(B.ref(Root), AssignOp::Assign, B.ref(Copy)));
    } else if (RTy->isArray() && !RTy->getElement()->isArray()) {
      saveArrayAroundCall(Root, Fwd, Restore, Again);
    } else {
      NeedLog = true;
    }
  }
  const CallExpr *FwdCall = NeedLog ? logCalleeWrites(C, Fwd, Restore, Again)
                                    : C;
  if (!Again->getBody().empty())
    RestoreAfter[C] = Again;
  return FwdCall ? FwdCall : C;
}

const CallExpr *ReverseFunction::logCalleeWrites(const CallExpr *C,
                                                 BlockStmt *Fwd,
                                                 BlockStmt *Restore,
                                                 BlockStmt *Again) {
  ir::Function *Rec =
      Owner.getRecording().get(C->getUserCallee(), C->getLoc());
  if (!Rec) {
    Failed = true;
    return nullptr;
  }
  Derived.addCall(Result, Rec);
  if (!UndoLog)
    UndoLog = newVar("_undo", M.getTypes().getOpaque("meshad::UndoLog"));
  auto Intrinsic = [&](const char *Name, std::vector<const Expr *> Args,
                       const Type *Ty) {
    return M.create<CallExpr>(Ty, CallExpr::CalleeKind::Intrinsic, Name, -1,
                              std::move(Args));
  };
  const Type *Unsigned = M.getTypes().getInt("unsigned int");
  BlockStmt *Replay = B.block();
  Var *Mark = record(Intrinsic("meshad::undoMark", {B.ref(UndoLog)}, Unsigned),
                     "_mark", Fwd, Replay);
  for (const Stmt *S : Replay->getBody())
    Restore->append(S);
  const Type *Void = M.getTypes().getVoid();
  Restore->append(M.create<ExprStmt>(Intrinsic(
      "meshad::undoRestore", {B.ref(UndoLog), B.ref(Mark)}, Void)));
  Again->append(M.create<ExprStmt>(
      Intrinsic("meshad::undoTo", {B.ref(UndoLog), B.ref(Mark)}, Void)));
  std::vector<const Expr *> Args(C->getArgs());
  Args.push_back(B.addrOf(B.ref(UndoLog)));
  auto *Call = M.create<CallExpr>(C->getType(), Rec, std::move(Args));
  Call->setLoc(C->getLoc());
  return Call;
}

void ReverseFunction::saveArrayAroundCall(Var *Root, BlockStmt *Fwd,
                                          BlockStmt *Restore,
                                          BlockStmt *Again) {
  unsigned N = Root->getType()->getCount();
  const Type *Elem = Root->getType()->getElement()->getUnqualified();
  Var *Copy = newVar("_t", M.getTypes().getArray(Elem, N));
  auto CopyLoop = [&](Var *To, Var *From) {
    return forEachElement(N, false, [&](const Expr *K) {
      return B.assign(B.index(B.ref(To), K), AssignOp::Assign,
                      B.index(B.ref(From), K));
    });
  };
  if (LoopDepth == 0) {
    Fwd->append(CopyLoop(Copy, Root));
  } else {
    // In a loop: push every element, pop them back in reverse order.
    BlockStmt *Push = B.block(), *Pop = B.block();
    save(B.index(B.ref(Root), B.intLit(0)), Push, Pop, N);
    const auto *PushCall = llvm::cast<ExprStmt>(Push->getBody().front());
    const auto *TapeRef = llvm::cast<CallExpr>(PushCall->getExpr())->getArg(0);
    Fwd->append(forEachElement(N, false, [&](const Expr *K) {
      return M.create<ExprStmt>(M.create<CallExpr>(
          M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
          "meshad::push", -1,
          std::vector<const Expr *>{TapeRef, B.index(B.ref(Root), K)}));
    }));
    Restore->append(forEachElement(N, true, [&](const Expr *K) {
      return B.assign(B.index(B.ref(Copy), K), AssignOp::Assign,
                      M.create<CallExpr>(Elem, CallExpr::CalleeKind::Intrinsic,
                                         "meshad::pop", -1,
                                         std::vector<const Expr *>{TapeRef}));
    }));
  }
  Restore->append(CopyLoop(Root, Copy));
  Again->append(CopyLoop(Root, Copy));
}

void ReverseFunction::save(const Expr *LValue, BlockStmt *Fwd,
                           BlockStmt *Restore, unsigned Pushes) {
  const Type *Ty = LValue->getType()->getUnqualified();
  if (LoopDepth == 0) {
    Var *T = newVar("_t", Ty);
    Fwd->append(B.assign(B.ref(T), AssignOp::Assign, LValue));
    Restore->append(B.assign(LValue, AssignOp::Assign, B.ref(T)));
    return;
  }
  const Type *TapeTy = tapeType(Ty, Pushes);
  Var *T = newVar("_t", TapeTy);
  auto Call = [&](const char *Name, std::vector<const Expr *> Args,
                  const Type *RetTy) {
    return M.create<CallExpr>(RetTy, CallExpr::CalleeKind::Intrinsic, Name,
                              -1, std::move(Args));
  };
  Fwd->append(M.create<ExprStmt>(
      Call("meshad::push", {B.ref(T), LValue}, M.getTypes().getVoid())));
  Restore->append(B.assign(LValue, AssignOp::Assign,
                           Call("meshad::pop", {B.ref(T)}, Ty)));
}

ir::Var *ReverseFunction::record(const Expr *Value, const std::string &Prefix,
                                 BlockStmt *Fwd, BlockStmt *Replay) {
  const Type *Ty = Value->getType()->getUnqualified();
  Var *V = newVar(Prefix, Ty);
  Fwd->append(B.assign(B.ref(V), AssignOp::Assign, Value));
  if (LoopDepth > 0) {
    // Inside a loop every iteration pushes its own value (save() pushes the
    // variable's current value, which is the one just recorded).
    BlockStmt *Restore = B.block();
    save(B.ref(V), Fwd, Restore);
    for (const Stmt *S : Restore->getBody())
      Replay->append(S);
  }
  return V;
}

/// True when \p E reads memory rooted at \p Root (or calls a function,
/// which may).
static bool readsMemoryOf(const Expr *E, const Var *Root,
                          const ActivityAnalysis &A) {
  bool Reads = false;
  forEachExpr(E, [&](const Expr *X) {
    // Members too: `p.a = p.a * p.b` reads the memory it stores to.
    if (llvm::isa<IndexExpr, MemberExpr>(X) ||
        (llvm::isa<UnaryExpr>(X) &&
         cast<UnaryExpr>(X)->getOp() == UnaryOp::Deref))
      Reads |= !Root || A.aliasLeader(ActivityAnalysis::getRootVar(X)) ==
                            A.aliasLeader(Root);
    else if (const auto *C = dyn_cast<CallExpr>(X))
      Reads |= C->getCalleeKind() == CallExpr::CalleeKind::User;
  });
  return Reads;
}

void ReverseFunction::sweepPrimalStore(const Expr *LHS, AssignOp Op,
                                       const Expr *RHS, bool IsDecl,
                                       clang::SourceLocation Loc,
                                       BlockStmt *Fwd, BlockStmt *Restore) {
  if (needsSave(LHS, IsDecl)) {
    checkValueKept(LHS, Loc);
    if (!(LoopDepth > 0 && !IsDecl &&
          undoUpdate(LHS, Op, RHS, Loc, Fwd, Restore)))
      save(LHS, Fwd, Restore);
  }
  if (const auto *Call = llvm::dyn_cast_or_null<CallExpr>(RHS))
    if (Call->getCalleeKind() == CallExpr::CalleeKind::User)
      RHS = saveCalleeWrites(Call, Fwd, Restore);
  AssignStmt *Primal = B.assign(LHS, Op, RHS);
  Primal->setLoc(Loc);
  Fwd->append(Primal);
}

bool ReverseFunction::undoUpdate(const Expr *LHS, AssignOp Op,
                                 const Expr *RHS, clang::SourceLocation Loc,
                                 BlockStmt *Fwd, BlockStmt *Restore) {
  std::string WhyNot;
  std::optional<InvertibleUpdates::Inverse> Inv =
      Invertible->find(LHS, Op, RHS, WhyNot);
  // The reverse sweep must hold the factor's values at the update.
  if (Inv)
    for (const Var *R : Inv->Reads)
      if (!Recomputed.count(R) && !Counters.count(R) && !Needs->isNeeded(R)) {
        WhyNot = "the reverse sweep does not keep '" + R->getName() +
                 "', which its factor reads";
        Inv.reset();
        break;
      }
  const auto *Ref = llvm::dyn_cast<VarRefExpr>(LHS);
  if (!Inv) {
    if (!WhyNot.empty() && Ref)
      Diags.remark(Loc, "recurrence of '" + Ref->getVar()->getName() +
                            "' taped: " + WhyNot);
    return false;
  }
  // The forward sweep checks that the new value can be undone (a normal
  // number: no underflow or overflow), meshad/codegen/Recurrences.h.
  const Expr *New = RHS;
  if (Op == AssignOp::MulAssign || Op == AssignOp::DivAssign)
    New = B.binary(Op == AssignOp::MulAssign ? BinaryOp::Mul : BinaryOp::Div,
                   LHS, RHS);
  Fwd->append(M.create<ExprStmt>(M.create<CallExpr>(
      M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
      "meshad::checkUndoable", -1, std::vector<const Expr *>{LHS, New})));
  Restore->append(B.assign(LHS, Inv->Undo, Inv->Factor));
  addReplayReads(Inv->Factor);
  Diags.remark(Loc, "recurrence of '" + Ref->getVar()->getName() +
                        "' undone by its inverse in the reverse sweep (" +
                        (Inv->Undo == AssignOp::DivAssign ? "divided"
                                                          : "multiplied") +
                        " by its factor), not taped: " + Inv->Why);
  return true;
}

void ReverseFunction::sweepAssign(const Expr *LHS, AssignOp Op,
                                  const Expr *RHS, bool IsDecl,
                                  clang::SourceLocation Loc, BlockStmt *Fwd,
                                  BlockStmt *Rev) {
  if (const auto *Api = llvm::dyn_cast_or_null<CallExpr>(RHS))
    if (Api->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
        Api->getName().rfind("cuda", 0) == 0) {
      AssignStmt *Keep = B.assign(LHS, Op, RHS);
      Keep->setLoc(Loc);
      if (sweepCudaApi(Api, Keep, Fwd, Rev))
        return;
    }
  if (rejectThrustIterator(RHS, Loc))
    return;
  if (thrustRecipe(RHS)) // A reduction: the saves its adjoint reads.
    thrustForward(cast<CallExpr>(RHS), Fwd);
  const Var *Root = ActivityAnalysis::getRootVar(LHS);
  bool Active = Root && Activity->isActive(Root);
  if (Active && LHS->getType()->isPointer())
    return sweepPointerAssign(LHS, Op, RHS, IsDecl, Loc, Fwd, Rev);
  bool Dead = Op == AssignOp::Assign && !llvm::isa<VarRefExpr>(LHS) &&
              dropsStoreTo(Root);
  // A store to memory that the kernel only writes is left out (kept under
  // meshad::WithValue).
  BlockStmt *Restore = B.block();
  if (!Dead)
    sweepPrimalStore(LHS, Op, RHS, IsDecl, Loc, Fwd, Restore);
  // A local that holds RHS's value (d exp = r) is restored after RHS's
  // adjoint, which reads it.
  Var *Holder = Op == AssignOp::Assign ? Needs->getResultHolder(RHS)
                                             : nullptr;
  if (!Holder)
    for (const Stmt *S : Restore->getBody())
      Rev->append(S);
  sweepAssignAdjoint(LHS, Op, RHS, IsDecl, Loc, Holder, Rev);
  if (Holder)
    for (const Stmt *S : Restore->getBody())
      Rev->append(S);
}

void ReverseFunction::sweepAssignAdjoint(const Expr *LHS, AssignOp Op,
                                         const Expr *RHS, bool IsDecl,
                                         clang::SourceLocation Loc,
                                         Var *Holder, BlockStmt *Rev) {
  const Var *Root = ActivityAnalysis::getRootVar(LHS);
  bool Active = Root && Activity->isActive(Root);
  const auto *Call = llvm::dyn_cast_or_null<CallExpr>(RHS);
  bool UserCall = Call && Call->getCalleeKind() == CallExpr::CalleeKind::User;
  const Expr *AL = Active && Op != AssignOp::Inc && Op != AssignOp::Dec &&
                           LHS->getType()->isDifferentiableValue()
                       ? adjointLValue(LHS)
                       : nullptr;
  if (!AL) {
    // The value carries no derivative, but the call may still write
    // derivative-carrying memory through its arguments.
    if (UserCall)
      pullbackCall(Call, nullptr, Rev);
    return;
  }
  const Type *Ty = AL->getType()->getUnqualified();
  bool RHSActive = isActive(RHS);
  int Id = RuleTable::get().lookupOperator(Op);
  if (!RHSActive && Op != AssignOp::Assign &&
      (Id < 0 || RuleTable::get().isUnitPartial(Id, 0)))
    return; // x += constant: x's adjoint passes through unchanged.
  // A first definition outside loops: nothing reads its adjoint afterwards,
  // so it need not be reset. The reset of a parameter's element is marked:
  // keep-seeds drops it where the seed is kept (meshad::KeepSeeds).
  bool ResetDead = IsDecl && LoopDepth == 0;
  bool Seed = Op == AssignOp::Assign && !llvm::isa<VarRefExpr>(LHS) &&
              Root->isParam();
  if (!RHSActive && Op == AssignOp::Assign) {
    if (!ResetDead)
      appendAdjointReset(AL, Seed, Loc, Rev);
    return;
  }
  Var *R = M.createVar(freshName("_r"), Ty, Var::Storage::Local,
                       VarRoles::Temporary);
  Rev->append(B.decl(R, AL));
  const Expr *DE = B.ref(R);
  if (Op != AssignOp::Assign)
    return adjointCompound(LHS, Op, RHS, AL, DE, Rev);
  storeAdjoint(LHS, RHS, AL, DE, ResetDead, Seed, Loc, Holder, Rev);
}

void ReverseFunction::appendAdjointReset(const Expr *AL, bool Seed,
                                         clang::SourceLocation Loc,
                                         BlockStmt *Rev) {
  const Type *Ty = AL->getType()->getUnqualified();
  AssignStmt *Zero = B.assign(AL, AssignOp::Assign, B.zero(Ty));
  if (Seed) {
    Zero->setSeedReset();
    Zero->setLoc(Loc); // keep-seeds reports its errors there.
  }
  Rev->append(Zero);
}

void ReverseFunction::storeAdjoint(const Expr *LHS, const Expr *RHS,
                                   const Expr *AL, const Expr *DE,
                                   bool ResetDead, bool Seed,
                                   clang::SourceLocation Loc, Var *Holder,
                                   BlockStmt *Rev) {
  const Var *Root = ActivityAnalysis::getRootVar(LHS);
  const auto *Call = llvm::dyn_cast_or_null<CallExpr>(RHS);
  bool UserCall = Call && Call->getCalleeKind() == CallExpr::CalleeKind::User;
  // The reset of an element's adjoint goes after the adjoint of the value
  // when the value does not read that array: on the GPU a store right
  // behind the load of the same element stalls until the load is done.
  bool ResetLast = !llvm::isa<VarRefExpr>(LHS) && !UserCall &&
                   !readsMemoryOf(RHS, Root, *Activity);
  if (!ResetDead && !ResetLast)
    appendAdjointReset(AL, Seed, Loc, Rev);
  if (UserCall)
    pullbackCall(Call, DE, Rev);
  else
    adjoint(RHS, DE, Rev, Holder ? B.ref(Holder) : nullptr);
  if (!ResetDead && ResetLast)
    resetSeed(AL, Root, Rev);
}

void ReverseFunction::sweepPointerAssign(const Expr *LHS, AssignOp Op,
                                         const Expr *RHS, bool IsDecl,
                                         clang::SourceLocation Loc,
                                         BlockStmt *Fwd, BlockStmt *Rev) {
  // The adjoint pointer follows the primal one in the forward sweep: a copy
  // takes the adjoint of the copied pointer, arithmetic (p += k, ++p) moves
  // it alike. Where the reverse sweep restores the primal pointer, it
  // restores the adjoint pointer with it.
  // A pointer into dynamic shared memory takes the adjoint pointer into its
  // shadow; the GPU lowering makes adds through it atomic (the block shares
  // it, GPU/LowerAccumulations::markSharedPointers).
  const Var *Root = ActivityAnalysis::getRootVar(LHS);
  const Expr *Target = adjointPointer(LHS);
  const Expr *Adj = Op == AssignOp::Assign ? adjointPointer(RHS) : RHS;
  if (!Target || (Op == AssignOp::Assign && !Adj)) {
    error(Loc, "cannot find the adjoint memory of pointer '" +
                   std::string(Root ? Root->getName() : "?") +
                   "': it is not derived from a differentiated parameter "
                   "or local array (dynamic shared memory and pointers "
                   "returned by calls are not supported in reverse mode "
                   "yet)");
    return;
  }
  BlockStmt *Restore = B.block();
  if (needsSave(LHS, IsDecl))
    save(Target, Fwd, Restore);
  Fwd->append(B.assign(Target, Op, Adj));
  sweepPrimalStore(LHS, Op, RHS, IsDecl, Loc, Fwd, Restore);
  for (const Stmt *S : Restore->getBody())
    Rev->append(S);
}

/// Calls made only for their effect that carry no derivative.
static bool isEffectOnly(const CallExpr *C) {
  const IntrinsicInfo *I = lookupIntrinsic(C);
  return I && I->Deriv == IntrinsicDeriv::None;
}

/// The address argument of an atomicAdd-like call (`*p += v`), else null.
static const Expr *atomicAddAddress(const CallExpr *C) {
  if (!C || !isIntrinsicDeriv(C, IntrinsicDeriv::LinearAtomic))
    return nullptr;
  return C->getArg(lookupIntrinsic(C)->AddrArg);
}

void ReverseFunction::sweepExprStmt(const ExprStmt *S, BlockStmt *Fwd,
                                    BlockStmt *Rev) {
  const auto *C = dyn_cast<CallExpr>(S->getExpr());
  if (thrustRecipe(C))
    return sweepThrust(C, S, Fwd, Rev);
  if (C && isIntrinsicDeriv(C, IntrinsicDeriv::Allocation))
    return sweepHeapArray(C, S, Fwd, Rev);
  if (C && C->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
      sweepCudaApi(C, S, Fwd, Rev))
    return;
  const CallExpr *FwdCall = C;
  if (C && C->getCalleeKind() == CallExpr::CalleeKind::User)
    FwdCall = saveCalleeWrites(C, Fwd, Rev);
  const Expr *AtomicTarget = atomicAddAddress(C);
  bool Dead = AtomicTarget &&
              dropsStoreTo(ActivityAnalysis::getRootVar(AtomicTarget));
  if (!Dead && FwdCall != C) {
    auto *New = M.create<ExprStmt>(FwdCall);
    New->setLoc(S->getLoc());
    Fwd->append(New);
  } else if (!Dead) {
    Fwd->append(S);
  }
  if (!C)
    return;
  const IntrinsicInfo *Info = lookupIntrinsic(C);
  if (Info && Info->isBarrier()) {
    // Adjoints flow back across the barrier: mirror it.
    Rev->append(S);
    return;
  }
  if (C->getCalleeKind() == CallExpr::CalleeKind::User) {
    const Type *RetTy = C->getType();
    pullbackCall(C, RetTy->isDifferentiableValue() ? B.zero(RetTy) : nullptr,
                 Rev);
    return;
  }
  bool AnyActive = false;
  for (const Expr *A : C->getArgs())
    AnyActive |= isActive(A);
  if (!AnyActive || isEffectOnly(C))
    return;
  if (AtomicTarget) {
    // atomicAdd(p, v) is *p += v: v's adjoint reads the adjoint of *p.
    const Expr *Target = adjointPointer(AtomicTarget);
    if (!Target)
      return;
    const Expr *Value = C->getArg(Info->ValueArg);
    const Expr *AL = B.unary(UnaryOp::Deref, Target, Value->getType());
    if (const auto *U = dyn_cast<UnaryExpr>(Target))
      if (U->getOp() == UnaryOp::AddrOf)
        AL = U->getSub();
    adjoint(Value, cheap(AL, Rev), Rev);
    return;
  }
  error(C->getLoc(), "cannot differentiate the call of '" + C->getName() +
                         "' in reverse mode: it has no derivative rule and "
                         "no visible definition");
}

void ReverseFunction::sweepIf(const IfStmt *I, BlockStmt *Fwd,
                              BlockStmt *Rev) {
  BlockStmt *ThenFwd = B.block(), *ThenRev = B.block();
  BlockStmt *ElseFwd = I->getElse() ? B.block() : nullptr;
  BlockStmt *ElseRev = B.block();
  sweepBlock(I->getThen(), ThenFwd, ThenRev);
  if (I->getElse())
    sweepBlock(I->getElse(), ElseFwd, ElseRev);
  if (ThenRev->getBody().empty() && ElseRev->getBody().empty()) {
    // Nothing to replay backwards: the branch needs no record.
    auto *Plain = M.create<IfStmt>(I->getCond(), ThenFwd, ElseFwd);
    Plain->setLoc(I->getLoc());
    Fwd->append(Plain);
    return;
  }
  // The branch taken is recorded before either branch runs.
  BlockStmt *Replay = B.block(), *ClearAfter = B.block();
  Var *Flag = branchFlag(I, Fwd, Replay, ClearAfter);
  bool EmptyFwd = ThenFwd->getBody().empty() &&
                  (!ElseFwd || ElseFwd->getBody().empty());
  if (!EmptyFwd) {
    auto *F = M.create<IfStmt>(B.ref(Flag), ThenFwd, ElseFwd);
    F->setLoc(I->getLoc());
    Fwd->append(F);
  }
  for (const Stmt *S : Replay->getBody())
    Rev->append(S);
  Rev->append(M.create<IfStmt>(B.ref(Flag), ThenRev,
                               ElseRev->getBody().empty() ? nullptr : ElseRev));
  for (const Stmt *S : ClearAfter->getBody())
    Rev->append(S);
}

/// True when \p Then ends the loop around it: its last statement is a
/// break at its top level.
static bool endsWithBreak(const BlockStmt *Then) {
  return Then && !Then->getBody().empty() &&
         llvm::isa<BreakStmt>(Then->getBody().back());
}

Var *ReverseFunction::branchFlag(const IfStmt *I, BlockStmt *Fwd,
                                 BlockStmt *Replay, BlockStmt *ClearAfter) {
  const Expr *Cond = I->getCond();
  if (LoopDepth > 0 && isRecomputable(Cond)) {
    // Evaluated again in the reverse iteration, from recomputed values.
    Var *Flag = newVar("_cond", Cond->getType()->getUnqualified());
    Fwd->append(B.assign(B.ref(Flag), AssignOp::Assign, Cond));
    Replay->append(B.assign(B.ref(Flag), AssignOp::Assign, Cond));
    addReplayReads(Cond);
    return Flag;
  }
  if (LoopDepth != 1 || !endsWithBreak(I->getThen()))
    return record(Cond, "_cond", Fwd, Replay);
  // A break out of the outermost loop: true only in the last iteration the
  // loop runs, where the reverse sweep starts, so one flag per thread
  // records it (false until the break), cleared once replayed.
  const Expr *False = M.create<BoolLitExpr>(M.getTypes().getBool(), false);
  Var *Flag = newVar("_cond", M.getTypes().getBool(), False);
  Fwd->append(B.assign(B.ref(Flag), AssignOp::Assign, Cond));
  ClearAfter->append(B.assign(B.ref(Flag), AssignOp::Assign, False));
  Diags.remark(I->getLoc(), "early exit of the loop recorded once per thread "
                            "(the reverse sweep starts at the iteration that "
                            "left), not taped per iteration");
  return Flag;
}

void ReverseFunction::sweepHeapArray(const CallExpr *C, const Stmt *Original,
                                     BlockStmt *Fwd, BlockStmt *Rev) {
  Var *P = const_cast<Var *>(ActivityAnalysis::getRootVar(C->getArg(0)));
  auto Call = [&](const std::string &Name, std::vector<const Expr *> Args) {
    auto *S = M.create<ExprStmt>(M.create<CallExpr>(
        C->getType(), CallExpr::CalleeKind::Intrinsic, Name, -1,
        std::move(Args)));
    S->setLoc(Original->getLoc());
    return S;
  };
  // In a loop each iteration allocates its own buffers (lowering ensures
  // that the iteration releases them): the forward sweep tapes the pointers
  // where the primal releases them, the reverse sweep pops them there (its
  // iteration's reverse begins) and releases them after the reverse of the
  // allocation.
  bool PerIteration = P && LoopDepth > 0;
  if (C->getName() == "meshad::deleteArray") {
    if (PerIteration) {
      if (Activity->isActive(P))
        save(B.ref(adjointVar(P)), Fwd, Rev);
      save(B.ref(P), Fwd, Rev);
    } else if (!P || !DeferredFrees.count(P)) { // else at the end of the sweep
      Fwd->append(Original);
    }
    return;
  }
  Fwd->append(Original);
  if (!P)
    return;
  if (Activity->isActive(P)) {
    Var *A = adjointVar(P);
    Fwd->append(Call(C->getName(), {B.addrOf(B.ref(A)), C->getArg(1)}));
    Rev->append(Call("meshad::deleteArray", {B.ref(A)}));
  }
  if (PerIteration || DeferredFrees.count(P))
    Rev->append(Call("meshad::deleteArray", {B.ref(P)}));
}
