//===- AD/Analysis/Activity.cpp - Which values carry derivatives ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Analysis/Activity.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"
#include "Rules/ThrustRecipes.h"

#include <functional>

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;
using llvm::isa;

/// True for meshad::push(Tape, Value), the one intrinsic that writes a tape.
static bool isTapePush(const CallExpr *C) {
  return C && isIntrinsicDeriv(C, IntrinsicDeriv::TapePush) &&
         C->getNumArgs() == 2;
}

/// True for meshad::thrust_ad::save(Saved, first, n) and snapshot(Snapshot,
/// p): a gradient's copy of a range (of the allocation that holds p) that
/// its reverse sweep reads (forward mode over the gradient keeps the
/// tangent's copy beside it).
static bool isThrustSave(const CallExpr *C) {
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic)
    return false;
  return (C->getName() == "meshad::thrust_ad::save" && C->getNumArgs() == 3) ||
         (C->getName() == "meshad::thrust_ad::snapshot" &&
          C->getNumArgs() == 2);
}

ActivityAnalysis::ActivityAnalysis(
    const Function &F, const llvm::SmallPtrSetImpl<const Var *> &Seeds,
    const llvm::SmallPtrSetImpl<const Var *> *NotResults) {
  for (const Var *V : Seeds)
    Active.insert(V);
  if (!F.getBody())
    return;
  // Iterate to a fixed point: every pass only adds variables.
  while (visitBlock(F.getBody())) {
  }
  computeUseful(F, NotResults);
}

bool ActivityAnalysis::isUseful(const Var *V) const {
  return !UsefulDone || Useful.count(leader(V));
}

bool ActivityAnalysis::markUseful(const Var *V) {
  return V && Useful.insert(leader(V)).second;
}

/// Marks every variable \p E reads (its value may reach a result).
bool ActivityAnalysis::markUsefulIn(const Expr *E) {
  if (!E)
    return false;
  switch (E->getKind()) {
  case Expr::Kind::VarRef:
    return markUseful(llvm::cast<VarRefExpr>(E)->getVar());
  case Expr::Kind::Unary:
    return markUsefulIn(llvm::cast<UnaryExpr>(E)->getSub());
  case Expr::Kind::Binary: {
    const auto *B = llvm::cast<BinaryExpr>(E);
    bool L = markUsefulIn(B->getLHS());
    return markUsefulIn(B->getRHS()) || L;
  }
  case Expr::Kind::Conditional: {
    const auto *C = llvm::cast<ConditionalExpr>(E);
    bool T = markUsefulIn(C->getTrue());
    return markUsefulIn(C->getFalse()) || T;
  }
  case Expr::Kind::Call: {
    bool Changed = false;
    for (const Expr *A : llvm::cast<CallExpr>(E)->getArgs())
      Changed |= markUsefulIn(A);
    return Changed;
  }
  case Expr::Kind::Index:
    return markUsefulIn(llvm::cast<IndexExpr>(E)->getBase());
  case Expr::Kind::Member:
    return markUsefulIn(llvm::cast<MemberExpr>(E)->getBase());
  case Expr::Kind::Cast:
    return markUsefulIn(llvm::cast<CastExpr>(E)->getSub());
  case Expr::Kind::InitList: {
    bool Changed = false;
    for (const Expr *El : llvm::cast<InitListExpr>(E)->getElements())
      Changed |= markUsefulIn(El);
    return Changed;
  }
  default:
    return false;
  }
}

/// A call or launch: if it may write through a useful pointer, everything
/// it reads may reach a result.
static bool writesUseful(const std::vector<const Expr *> &Args,
                         const std::function<bool(const Var *)> &Useful) {
  for (const Expr *A : Args) {
    const Var *Root = ActivityAnalysis::getRootVar(A);
    const Expr *Inner = A;
    while (const auto *C = dyn_cast<CastExpr>(Inner))
      Inner = C->getSub();
    if (Root && Inner->getType()->isIndexable() && Useful(Root))
      return true;
    // The pointers a user functor captures (thrust::for_each).
    if (const auto *F = dyn_cast<CallExpr>(Inner);
        F && F->getType()->getSpelling() == ThrustUserFunctorType &&
        writesUseful(F->getArgs(), Useful))
      return true;
  }
  return false;
}

bool ActivityAnalysis::markedUseful(const Var *V) const {
  return Useful.count(leader(V)) != 0;
}

bool ActivityAnalysis::usefulCallWrites(const Expr *E) {
  const auto *C = llvm::dyn_cast_or_null<CallExpr>(E);
  auto IsUseful = [&](const Var *V) { return markedUseful(V); };
  bool Marked = false;
  if (C && writesUseful(C->getArgs(), IsUseful))
    for (const Expr *A : C->getArgs())
      Marked |= markUsefulIn(A);
  return Marked;
}

bool ActivityAnalysis::usefulExprStmt(const ExprStmt *S) {
  bool Changed = false;
  const auto *C = dyn_cast<CallExpr>(S->getExpr());
  if (isTapePush(C) || isThrustSave(C)) {
    // What is pushed (saved) is useful where its pops (the copy) are.
    const Var *Tape = getRootVar(C->getArg(0));
    if (Tape && markedUseful(Tape))
      Changed |= markUsefulIn(C->getArg(1));
    if (isTapePush(C))
      return Changed;
  }
  return usefulCallWrites(S->getExpr()) || Changed;
}

bool ActivityAnalysis::usefulStmt(const Stmt *S) {
  if (!S)
    return false;
  auto IsUseful = [&](const Var *V) { return markedUseful(V); };
  bool Changed = false;
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    for (const Stmt *Sub : llvm::cast<BlockStmt>(S)->getBody())
      Changed |= usefulStmt(Sub);
    return Changed;
  case Stmt::Kind::Decl: {
    const auto *D = llvm::cast<DeclStmt>(S);
    if (IsUseful(D->getVar()))
      Changed |= markUsefulIn(D->getInit());
    return usefulCallWrites(D->getInit()) || Changed;
  }
  case Stmt::Kind::Assign: {
    const auto *A = llvm::cast<AssignStmt>(S);
    const Var *Root = getRootVar(A->getLHS());
    if (Root && IsUseful(Root))
      Changed |= markUsefulIn(A->getRHS());
    return usefulCallWrites(A->getRHS()) || Changed;
  }
  case Stmt::Kind::ExprStmt:
    return usefulExprStmt(llvm::cast<ExprStmt>(S));
  case Stmt::Kind::Launch: {
    const auto *L = llvm::cast<LaunchStmt>(S);
    if (writesUseful(L->getArgs(), IsUseful))
      for (const Expr *A : L->getArgs())
        Changed |= markUsefulIn(A);
    return Changed;
  }
  case Stmt::Kind::Return:
    return markUsefulIn(llvm::cast<ReturnStmt>(S)->getValue());
  case Stmt::Kind::If:
    Changed |= usefulStmt(llvm::cast<IfStmt>(S)->getThen());
    return usefulStmt(llvm::cast<IfStmt>(S)->getElse()) || Changed;
  case Stmt::Kind::For: {
    const auto *F = llvm::cast<ForStmt>(S);
    Changed |= usefulStmt(F->getInit());
    Changed |= usefulStmt(F->getBody());
    return usefulStmt(F->getInc()) || Changed;
  }
  case Stmt::Kind::While:
    return usefulStmt(llvm::cast<WhileStmt>(S)->getBody());
  case Stmt::Kind::Do:
    return usefulStmt(llvm::cast<DoStmt>(S)->getBody());
  default:
    return false;
  }
}

void ActivityAnalysis::computeUseful(
    const Function &F, const llvm::SmallPtrSetImpl<const Var *> *NotResults) {
  // Results: the return value and memory reached through pointer parameters
  // (but for those the caller never reads).
  for (const Var *P : F.getParams())
    if (P->getType()->isIndexable() && !(NotResults && NotResults->count(P)))
      markUseful(P);
  while (usefulStmt(F.getBody())) {
  }
  UsefulDone = true;
}

const Var *ActivityAnalysis::leader(const Var *V) const {
  auto It = AliasParent.find(V);
  if (It == AliasParent.end() || It->second == V)
    return V;
  const Var *L = leader(It->second);
  AliasParent[V] = L;
  return L;
}

void ActivityAnalysis::unite(const Var *A, const Var *B) {
  const Var *LA = leader(A), *LB = leader(B);
  if (LA == LB)
    return;
  bool Act = Active.count(LA) || Active.count(LB);
  AliasParent[LA] = LB;
  if (Act)
    Active.insert(LB);
}

bool ActivityAnalysis::markActive(const Var *V) {
  if (V && V->isGlobal())
    ActiveGlobals.insert(V);
  if (!V || V->isGlobal())
    return false;
  return Active.insert(leader(V)).second;
}

/// The first statement of \p F that writes \p G: an assignment to it or
/// into it, else a statement with a call that takes its address.
static clang::SourceLocation firstWriteOf(const Function &F, const Var *G) {
  clang::SourceLocation Store, CallLoc;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *A = llvm::dyn_cast<AssignStmt>(S)) {
      if (Store.isInvalid() && ActivityAnalysis::getRootVar(A->getLHS()) == G)
        Store = A->getLoc();
      return;
    }
    if (CallLoc.isValid() || !llvm::isa<ExprStmt>(S))
      return;
    forEachExpr(llvm::cast<ExprStmt>(S)->getExpr(), [&](const Expr *E) {
      if (const auto *C = llvm::dyn_cast<CallExpr>(E))
        for (const Expr *Arg : C->getArgs())
          if (ActivityAnalysis::getRootVar(Arg) == G && CallLoc.isInvalid())
            CallLoc = S->getLoc();
    });
  });
  if (Store.isValid())
    return Store;
  return CallLoc.isValid() ? CallLoc : F.getLoc();
}

void ActivityAnalysis::reportActiveGlobals(
    const Function &F,
    llvm::function_ref<void(clang::SourceLocation, const std::string &)>
        Error) const {
  for (const Var *G : ActiveGlobals)
    Error(firstWriteOf(F, G),
          "writing a derivative-carrying value to global variable '" +
              G->getName() +
              "' is not supported: derivatives do not flow through "
              "globals; pass it as a parameter (or make the pointer "
              "const if the call only reads it)");
}

bool ActivityAnalysis::mayReturnVaried(const Function &F) const {
  bool Varied = false;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    const auto *R = llvm::dyn_cast<ReturnStmt>(S);
    if (!R || !R->getValue())
      return;
    forEachExpr(R->getValue(), [&](const Expr *E) {
      if (const auto *Ref = llvm::dyn_cast<VarRefExpr>(E))
        Varied |= isVaried(Ref->getVar());
    });
  });
  return Varied;
}

bool ActivityAnalysis::isVaried(const Var *V) const {
  return V && Active.count(leader(V));
}

bool ActivityAnalysis::isActive(const Var *V) const {
  return isVaried(V) && isUseful(V);
}

const Var *ActivityAnalysis::getRootVar(const Expr *E) {
  while (E) {
    switch (E->getKind()) {
    case Expr::Kind::VarRef:
      return llvm::cast<VarRefExpr>(E)->getVar();
    case Expr::Kind::Index:
      E = llvm::cast<IndexExpr>(E)->getBase();
      break;
    case Expr::Kind::Member:
      E = llvm::cast<MemberExpr>(E)->getBase();
      break;
    case Expr::Kind::Unary:
      E = llvm::cast<UnaryExpr>(E)->getSub();
      break;
    case Expr::Kind::Cast:
      E = llvm::cast<CastExpr>(E)->getSub();
      break;
    case Expr::Kind::Binary: {
      // Pointer arithmetic: the pointer operand.
      const auto *B = llvm::cast<BinaryExpr>(E);
      E = B->getLHS()->getType()->isIndexable() ? B->getLHS() : B->getRHS();
      break;
    }
    default:
      return nullptr;
    }
  }
  return nullptr;
}

bool ActivityAnalysis::dependsOnActive(const Expr *E) const {
  switch (E->getKind()) {
  case Expr::Kind::VarRef:
    return isActive(llvm::cast<VarRefExpr>(E)->getVar());
  case Expr::Kind::Unary:
    return dependsOnActive(llvm::cast<UnaryExpr>(E)->getSub());
  case Expr::Kind::Binary: {
    const auto *B = llvm::cast<BinaryExpr>(E);
    return dependsOnActive(B->getLHS()) || dependsOnActive(B->getRHS());
  }
  case Expr::Kind::Conditional: {
    const auto *C = llvm::cast<ConditionalExpr>(E);
    return dependsOnActive(C->getTrue()) || dependsOnActive(C->getFalse());
  }
  case Expr::Kind::Call:
    for (const Expr *A : llvm::cast<CallExpr>(E)->getArgs())
      if (dependsOnActive(A))
        return true;
    return false;
  case Expr::Kind::Index:
    return dependsOnActive(llvm::cast<IndexExpr>(E)->getBase());
  case Expr::Kind::Member:
    return dependsOnActive(llvm::cast<MemberExpr>(E)->getBase());
  case Expr::Kind::Cast:
    return dependsOnActive(llvm::cast<CastExpr>(E)->getSub());
  case Expr::Kind::InitList:
    for (const Expr *A : llvm::cast<InitListExpr>(E)->getElements())
      if (dependsOnActive(A))
        return true;
    return false;
  default:
    return false;
  }
}

bool ActivityAnalysis::isActive(const Expr *E) const {
  const Type *Ty = E->getType();
  if (!Ty->isDifferentiable() && !Ty->isPointer())
    return false;
  // Comparisons and integer arithmetic carry no derivative whatever their
  // operands.
  if (const auto *B = dyn_cast<BinaryExpr>(E))
    if (isComparisonOrLogical(B->getOp()))
      return false;
  return dependsOnActive(E);
}

bool ActivityAnalysis::visitBlock(const BlockStmt *B) {
  bool Changed = false;
  for (const Stmt *S : B->getBody())
    Changed |= visitStmt(S);
  return Changed;
}

/// The variables whose memory the pointer \p E may designate: its root, or
/// the roots of both branches of a `?:` (through casts).
static llvm::SmallVector<const Var *, 2> pointerSources(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  if (const auto *C = dyn_cast<ConditionalExpr>(E)) {
    llvm::SmallVector<const Var *, 2> Both = pointerSources(C->getTrue());
    Both.append(pointerSources(C->getFalse()));
    return Both;
  }
  if (const Var *Root = ActivityAnalysis::getRootVar(E))
    return {Root};
  return {};
}

bool ActivityAnalysis::visitStore(const Var *Root, const Type *TargetTy,
                                  const Expr *RHS) {
  if (!Root || !RHS)
    return false;
  bool Changed = false;
  // Pointer copies alias: p = q + 1 makes p and q share activity, and
  // p = c ? q : r all three.
  if (TargetTy->isPointer())
    for (const Var *Src : pointerSources(RHS)) {
      bool Before = isActive(Root);
      unite(Root, Src);
      Changed |= !Before && isActive(Root);
    }
  // A struct from a brace list (a functor temporary, `Scale{c}`) carries
  // the derivatives of its members.
  if (isActive(RHS) || (isa<InitListExpr>(RHS) && dependsOnActive(RHS)))
    Changed |= markActive(Root);
  if (const auto *C = dyn_cast<CallExpr>(RHS))
    Changed |= visitCall(C);
  return Changed;
}

bool ActivityAnalysis::visitCall(const CallExpr *C) {
  // The tape holds what is pushed (the copy what is saved): it carries its
  // tangent.
  if (isTapePush(C) || isThrustSave(C))
    return isActive(C->getArg(1)) && markActive(getRootVar(C->getArg(0)));
  return visitArgs(C->getArgs(), C->getUserCallee(), lookupIntrinsic(C));
}

/// The type of the memory an argument points to, looking through casts to
/// void * (cudaMemcpy(dst, src, ...)).
static const Type *pointeeOf(const Expr *Arg) {
  while (const auto *C = dyn_cast<CastExpr>(Arg))
    Arg = C->getSub();
  const Type *Ty = Arg->getType();
  return Ty->isIndexable() ? Ty->getElement() : nullptr;
}

/// True when \p Callee's parameter \p I points to memory it may write:
/// unknown callees and parameters may; intrinsics as their table says.
static bool mayWriteThrough(const Function *Callee, const IntrinsicInfo *Info,
                            unsigned I) {
  if (Info)
    return Info->writesArg(I);
  if (!Callee || I >= Callee->getNumParams())
    return true;
  const Type *Ty = Callee->getParam(I)->getType();
  return !Ty->isIndexable() || !Ty->getElement()->isConst();
}

bool ActivityAnalysis::visitBoundWrites(const CallExpr *F) {
  bool Changed = false;
  for (unsigned I = 0; I < F->getNumArgs(); ++I) {
    const Type *Pointee = pointeeOf(F->getArg(I));
    if (Pointee && !Pointee->isConst() && Pointee->isDifferentiable() &&
        mayWriteThrough(F->getUserCallee(), nullptr, I))
      Changed |= markActive(getRootVar(F->getArg(I)));
  }
  return Changed;
}

bool ActivityAnalysis::visitArgs(const std::vector<const Expr *> &Args,
                                 const Function *Callee,
                                 const IntrinsicInfo *Info) {
  bool AnyActive = false;
  for (const Expr *A : Args) {
    const Expr *Inner = A;
    while (const auto *C = dyn_cast<CastExpr>(Inner))
      Inner = C->getSub();
    AnyActive |= isActive(Inner);
    // A gradient's saved copy of a Thrust range (an opaque local) carries
    // the range's tangent.
    if (const auto *R = dyn_cast<VarRefExpr>(Inner))
      AnyActive |= llvm::StringRef(R->getType()->getSpelling())
                       .starts_with("meshad::thrust_ad::Saved<") &&
                   isActive(R->getVar());
    // A user functor passed to a Thrust primitive carries what it binds.
    if (const auto *F = dyn_cast<CallExpr>(Inner))
      AnyActive |= F->getType()->getSpelling() == ThrustUserFunctorType &&
                   dependsOnActive(F);
  }
  if (!AnyActive)
    return false;
  bool Changed = false;
  for (unsigned I = 0; I < Args.size(); ++I) {
    const Type *Pointee = pointeeOf(Args[I]);
    if (Pointee && !Pointee->isConst() && Pointee->isDifferentiable() &&
        mayWriteThrough(Callee, Info, I))
      Changed |= markActive(getRootVar(Args[I]));
    // The pointers a user functor captures (thrust::for_each writes
    // through them).
    if (const auto *F = dyn_cast<CallExpr>(Args[I]);
        F && F->getType()->getSpelling() == ThrustUserFunctorType)
      Changed |= visitBoundWrites(F);
    // A gradient's sum over a for_each's indices of the adjoint of a
    // number its lambda captures (meshad::thrust_ad::sumInto(&r, n)).
    if (const auto *F = dyn_cast<CallExpr>(Args[I]);
        F && F->getName() == "meshad::thrust_ad::sumInto" &&
        F->getNumArgs() == 2)
      Changed |= markActive(getRootVar(F->getArg(0)));
  }
  return Changed;
}

bool ActivityAnalysis::visitStmt(const Stmt *S) {
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    return visitBlock(llvm::cast<BlockStmt>(S));
  case Stmt::Kind::Decl: {
    const auto *D = llvm::cast<DeclStmt>(S);
    return visitStore(D->getVar(), D->getVar()->getType(), D->getInit());
  }
  case Stmt::Kind::Assign: {
    const auto *A = llvm::cast<AssignStmt>(S);
    return visitStore(getRootVar(A->getLHS()), A->getLHS()->getType(),
                      A->getRHS());
  }
  case Stmt::Kind::ExprStmt:
    if (const auto *C = dyn_cast<CallExpr>(llvm::cast<ExprStmt>(S)->getExpr()))
      return visitCall(C);
    return false;
  case Stmt::Kind::Launch: {
    const auto *L = llvm::cast<LaunchStmt>(S);
    return visitArgs(L->getArgs(), L->getKernel());
  }
  case Stmt::Kind::If: {
    const auto *I = llvm::cast<IfStmt>(S);
    bool Changed = visitBlock(I->getThen());
    if (I->getElse())
      Changed |= visitBlock(I->getElse());
    return Changed;
  }
  case Stmt::Kind::For: {
    const auto *F = llvm::cast<ForStmt>(S);
    bool Changed = F->getInit() ? visitStmt(F->getInit()) : false;
    Changed |= visitBlock(F->getBody());
    if (F->getInc())
      Changed |= visitStmt(F->getInc());
    return Changed;
  }
  case Stmt::Kind::While:
    return visitBlock(llvm::cast<WhileStmt>(S)->getBody());
  case Stmt::Kind::Do:
    return visitBlock(llvm::cast<DoStmt>(S)->getBody());
  default:
    return false;
  }
}

std::vector<bool>
meshad::localArraysCarryingDerivatives(const CallExpr *C,
                                       const std::vector<bool> &Active) {
  const Function *Callee = C->getUserCallee();
  std::vector<bool> Forced(Active.size(), false);
  llvm::SmallPtrSet<const Var *, 8> Seeds, Unread;
  bool Candidate = false;
  for (unsigned I = 0; I < Active.size() && I < Callee->getNumParams(); ++I) {
    const Var *P = Callee->getParam(I);
    (Active[I] ? Seeds : Unread).insert(P);
    const auto *Ref = dyn_cast<VarRefExpr>(C->getArg(I));
    Forced[I] = !Active[I] && Ref && P->getType()->isPointer() &&
                Ref->getVar()->getStorage() == Var::Storage::Local &&
                Ref->getVar()->getType()->isArray() &&
                Ref->getVar()->getType()->getElement()->isDifferentiable();
    Candidate |= Forced[I];
  }
  if (!Candidate || !Callee->getBody())
    return std::vector<bool>(Active.size(), false);
  ActivityAnalysis CalleeActivity(*Callee, Seeds, &Unread);
  for (unsigned I = 0; I < Forced.size(); ++I)
    Forced[I] = Forced[I] && CalleeActivity.isActive(Callee->getParam(I));
  return Forced;
}
