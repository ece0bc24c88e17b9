//===- AD/HessianInline.cpp - Callees of selected arrays, inlined ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// inlineSelectedCallees: in the copy of a primal that the Hessian mode
/// derives from, a call of a user function that receives a selected array or
/// a pointer into one (`g(x, n)`, `g(&x[3])`, `g(x + 3)`, `g(p)` with p a
/// pointer local into x) is replaced by the callee's statements, so that
/// the lanes see every element the callee reads as an element of x (the
/// callee's pushforward would take one direction pointer for all lanes).
/// The callee's parameters and locals become locals of the caller with
/// names of their own (`n` is `n_1` when the caller has an `n`), a pointer
/// parameter that receives the selected array a pointer local set to the
/// argument (which `rewriteSelectedPointers` turns into an offset), other
/// pointer parameters the argument itself, and the result a local
/// `<g>_result` that takes the call's place. Nested calls are inlined in
/// turn. What cannot be inlined is an error at the call: a callee without
/// a definition, recursion, a `return` before the end, a call in a loop's
/// header or under `?:`/`&&`/`||`, a callee that moves another pointer
/// parameter.
///
//===----------------------------------------------------------------------===//

#include "AD/Hessian.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/NameScope.h"
#include "IR/Traversal.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

namespace {

constexpr unsigned MaxDepth = 8;

const Expr *peelCasts(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  return E;
}

class CalleeInliner {
public:
  CalleeInliner(Module &M, DiagnosticSink &Diags, const Function &Primal,
                const std::vector<bool> &Selected, clang::SourceLocation Loc)
      : M(M), B(M), Diags(Diags), Loc(Loc) {
    Names.addFunction(Primal);
    for (unsigned I = 0; I < Primal.getNumParams(); ++I)
      if (I < Selected.size() && Selected[I] &&
          Primal.getParam(I)->getType()->isIndexable())
        Pointers.insert(Primal.getParam(I));
    Stack.push_back(&Primal);
  }

  BlockStmt *process(const BlockStmt *Blk);
  bool changed() const { return Changed; }
  bool failed() const { return Failed; }

private:
  bool pointsIntoSelected(const Expr *E) const;
  bool isInlined(const Expr *E) const;
  bool containsInlined(const Expr *E) const;
  std::optional<const Stmt *> hoist(IRCloner &Outer, const Stmt *S);
  /// True for a loop or block, whose header may not call an inlined callee
  /// (an error), and whose body is hoisted statement by statement.
  bool isLoopOrBlock(const Stmt *S);
  /// The copy of \p E in a statement being hoisted: an inlined call becomes
  /// its result, its statements appended to \p Before; null to copy.
  const Expr *hoistExpr(IRCloner &C, const Expr *E, BlockStmt *Before);
  const Expr *inlineCall(const CallExpr *C, std::vector<const Expr *> Args,
                         BlockStmt *Before);
  /// False, with an error at \p Call, when its callee \p F cannot be
  /// inlined (no definition, recursion, a return before its end).
  bool canInline(const CallExpr *Call, const Function *F);
  bool bindParam(Var *P, const Expr *Arg, const Function &F, BlockStmt *Before,
                 llvm::DenseMap<const Var *, const Expr *> &Subst,
                 llvm::DenseMap<const Var *, Var *> &Locals);
  const Expr *substitute(const Expr *E, IRCloner &C,
                         const llvm::DenseMap<const Var *, const Expr *> &S);
  void fail(const Expr *At, const std::string &Msg);

  Module &M;
  IRBuilder B;
  DiagnosticSink &Diags;
  clang::SourceLocation Loc;
  NameScope Names;
  /// Selected array parameters and the pointer locals set into them.
  llvm::SmallPtrSet<const Var *, 8> Pointers;
  std::vector<const Function *> Stack;
  bool Changed = false;
  bool Failed = false;
};

} // namespace

void CalleeInliner::fail(const Expr *At, const std::string &Msg) {
  if (!Failed)
    Diags.error(At && At->getLoc().isValid() ? At->getLoc() : Loc,
                "meshad::hessian: " + Msg);
  Failed = true;
}

bool CalleeInliner::pointsIntoSelected(const Expr *E) const {
  E = peelCasts(E);
  if (const auto *R = dyn_cast<VarRefExpr>(E))
    return Pointers.count(R->getVar());
  if (const auto *Bin = dyn_cast<BinaryExpr>(E)) {
    if (Bin->getOp() != BinaryOp::Add && Bin->getOp() != BinaryOp::Sub)
      return false;
    return (Bin->getLHS()->getType()->isIndexable() &&
            pointsIntoSelected(Bin->getLHS())) ||
           (Bin->getOp() == BinaryOp::Add &&
            Bin->getRHS()->getType()->isIndexable() &&
            pointsIntoSelected(Bin->getRHS()));
  }
  if (const auto *U = dyn_cast<UnaryExpr>(E))
    if (U->getOp() == UnaryOp::AddrOf)
      if (const auto *I = dyn_cast<IndexExpr>(U->getSub()))
        return pointsIntoSelected(I->getBase());
  return false;
}

/// A user call that this pass inlines: one of its arguments points into a
/// selected array.
bool CalleeInliner::isInlined(const Expr *E) const {
  const auto *C = dyn_cast<CallExpr>(E);
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::User)
    return false;
  for (const Expr *A : C->getArgs())
    if (pointsIntoSelected(A))
      return true;
  return false;
}

bool CalleeInliner::containsInlined(const Expr *E) const {
  bool Found = false;
  if (E)
    forEachExpr(E, [&](const Expr *X) { Found |= isInlined(X); });
  return Found;
}

BlockStmt *CalleeInliner::process(const BlockStmt *Blk) {
  IRCloner C(M);
  C.setStmtHook([&](const Stmt *S) { return hoist(C, S); });
  return C.cloneBlock(Blk);
}

/// The statement hook: a statement whose own expressions call a function
/// this pass inlines becomes the callees' statements, then the statement
/// reading their results.
bool CalleeInliner::isLoopOrBlock(const Stmt *S) {
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    bool InHeader = containsInlined(F->getCond());
    for (const Stmt *H : {F->getInit(), F->getInc()})
      if (H)
        for (const Expr *E : ownExprs(H))
          InHeader |= containsInlined(E);
    if (InHeader)
      fail(F->getCond(), "a call that receives a selected array in a loop's "
                         "header is not supported; call it in the body");
    return true;
  }
  if (!isa<WhileStmt, DoStmt, BlockStmt>(S))
    return false;
  const Expr *Cond = nullptr;
  if (const auto *W = dyn_cast<WhileStmt>(S))
    Cond = W->getCond();
  if (const auto *Do = dyn_cast<DoStmt>(S))
    Cond = Do->getCond();
  if (containsInlined(Cond))
    fail(Cond, "a call that receives a selected array in a loop's "
               "condition is not supported; call it in the body");
  return true;
}

const Expr *CalleeInliner::hoistExpr(IRCloner &C, const Expr *E,
                                     BlockStmt *Before) {
  if (const auto *Cond = dyn_cast<ConditionalExpr>(E)) {
    if (containsInlined(Cond->getTrue()) || containsInlined(Cond->getFalse()))
      fail(E, "a call that receives a selected array under '?:' is not "
              "supported; call it before");
    return nullptr;
  }
  if (const auto *Bin = dyn_cast<BinaryExpr>(E)) {
    if ((Bin->getOp() == BinaryOp::LAnd || Bin->getOp() == BinaryOp::LOr) &&
        containsInlined(Bin->getRHS()))
      fail(E, "a call that receives a selected array after '&&' or '||' "
              "is not supported; call it before");
    return nullptr;
  }
  if (!isInlined(E))
    return nullptr;
  const auto *Call = cast<CallExpr>(E);
  std::vector<const Expr *> Args;
  for (const Expr *A : Call->getArgs())
    Args.push_back(C.clone(A));
  const Expr *Result = inlineCall(Call, std::move(Args), Before);
  return Result ? Result : B.intLit(0);
}

std::optional<const Stmt *> CalleeInliner::hoist(IRCloner &Outer,
                                                 const Stmt *S) {
  if (const auto *D = dyn_cast<DeclStmt>(S))
    if (D->getVar()->getType()->isPointer() && D->getInit() &&
        pointsIntoSelected(D->getInit()))
      Pointers.insert(D->getVar());
  if (isLoopOrBlock(S))
    return std::nullopt;
  bool Calls = false;
  for (const Expr *E : ownExprs(S))
    Calls |= containsInlined(E);
  if (!Calls)
    return std::nullopt;
  Changed = true;
  BlockStmt *Before = B.block();
  IRCloner C(M);
  C.setExprHook(
      [&](const Expr *E) -> const Expr * { return hoistExpr(C, E, Before); });
  if (const auto *I = dyn_cast<IfStmt>(S)) {
    const Expr *Cond = C.clone(I->getCond());
    Before->append(M.create<IfStmt>(Cond, Outer.cloneBlock(I->getThen()),
                                    Outer.cloneBlock(I->getElse())));
    return Before;
  }
  const auto *E = dyn_cast<ExprStmt>(S);
  if (E && isInlined(E->getExpr())) {
    // A call statement: its result, if any, unused.
    C.clone(E->getExpr());
    return Before;
  }
  if (const Stmt *New = C.clone(S))
    Before->append(New);
  return Before;
}

bool CalleeInliner::canInline(const CallExpr *Call, const Function *F) {
  std::string Name = "'" + F->getName() + "'";
  if (!F->getBody() || F->isKernel() ||
      F->getCallOperatorKind() != Function::CallOperatorKind::None) {
    fail(Call, "the selected array is passed to " + Name +
                   ", whose definition is not available to inline");
    return false;
  }
  if (llvm::is_contained(Stack, F) || Stack.size() > MaxDepth) {
    fail(Call, "the selected array is passed to " + Name +
                   " recursively (or more than 8 calls deep)");
    return false;
  }
  // One return, the last statement.
  const std::vector<const Stmt *> &Body = F->getBody()->getBody();
  unsigned Returns = 0;
  forEachStmt(F->getBody(), [&](const Stmt *S) { Returns += isa<ReturnStmt>(S); });
  bool LastReturns = !Body.empty() && isa<ReturnStmt>(Body.back());
  if (Returns > (LastReturns ? 1u : 0u) ||
      (!LastReturns && !F->getReturnType()->isVoid())) {
    fail(Call, "the selected array is passed to " + Name +
                   ", which returns before its end; the Hessian mode inlines "
                   "such callees and needs one return, at the end");
    return false;
  }
  return true;
}

const Expr *CalleeInliner::inlineCall(const CallExpr *Call,
                                      std::vector<const Expr *> Args,
                                      BlockStmt *Before) {
  const Function *F = Call->getUserCallee();
  if (!canInline(Call, F))
    return nullptr;
  const std::vector<const Stmt *> &Body = F->getBody()->getBody();
  llvm::DenseMap<const Var *, const Expr *> Subst;
  llvm::DenseMap<const Var *, Var *> Locals;
  for (unsigned I = 0; I < F->getNumParams(); ++I)
    if (!bindParam(F->getParam(I), Args[I], *F, Before, Subst, Locals))
      return nullptr;
  IRCloner R(M);
  forEachStmt(F->getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S))
      R.freshVar(D->getVar())->setName(Names.unique(D->getVar()->getName()));
  });
  R.setExprHook([&](const Expr *E) -> const Expr * {
    if (const auto *Ref = dyn_cast<VarRefExpr>(E)) {
      auto It = Locals.find(Ref->getVar());
      if (It != Locals.end())
        return B.ref(It->second);
    }
    return substitute(E, R, Subst);
  });
  BlockStmt *Inlined = B.block();
  for (const Stmt *S : Body)
    if (!isa<ReturnStmt>(S))
      Inlined->append(R.clone(S));
  Var *Result = nullptr;
  if (!F->getReturnType()->isVoid()) {
    Result = M.createVar(Names.unique(F->getName() + "_result"),
                         F->getReturnType()->getUnqualified());
    Inlined->append(
        B.decl(Result, R.clone(cast<ReturnStmt>(Body.back())->getValue())));
  }
  Stack.push_back(F);
  for (const Stmt *S : process(Inlined)->getBody())
    Before->append(S);
  Stack.pop_back();
  return Result ? B.ref(Result) : nullptr;
}

/// Binds the callee's parameter \p P to \p Arg: a local copy (scalars, and
/// pointers into a selected array, which may move) or the argument itself
/// (other pointers, which the callee must not move).
bool CalleeInliner::bindParam(Var *P, const Expr *Arg, const Function &F,
                              BlockStmt *Before,
                              llvm::DenseMap<const Var *, const Expr *> &Subst,
                              llvm::DenseMap<const Var *, Var *> &Locals) {
  const Type *Ty = P->getType();
  if (!Ty->isIndexable() || pointsIntoSelected(Arg)) {
    Var *Local = M.createVar(Names.unique(P->getName()),
                             Ty->isIndexable() ? Ty : Ty->getUnqualified());
    Before->append(B.decl(Local, Arg));
    if (Ty->isIndexable())
      Pointers.insert(Local);
    Locals[P] = Local;
    return true;
  }
  bool Moved = false;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    const auto *A = dyn_cast<AssignStmt>(S);
    const auto *L = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
    Moved |= L && L->getVar() == P;
  });
  const Expr *Plain = peelCasts(Arg);
  const auto *U = dyn_cast<UnaryExpr>(Plain);
  bool Form = isa<VarRefExpr>(Plain) || (U && U->getOp() == UnaryOp::AddrOf);
  if (Moved || !Form) {
    fail(Arg, "'" + F.getName() + "' receives a selected array, so the "
              "Hessian mode inlines it, and its pointer parameter '" +
              P->getName() + "' " +
              (Moved ? "moves" : "receives an expression it cannot name") +
              "; pass a variable or an element's address");
    return false;
  }
  Subst[P] = Arg;
  return true;
}

/// The uses of a pointer parameter bound to the argument A itself: `P[k]`
/// is `A[k]` (`a[e + k]` for `&a[e]`, `v` for `&v` and k = 0), `*P` is
/// `P[0]`, P elsewhere is A.
const Expr *CalleeInliner::substitute(
    const Expr *E, IRCloner &C,
    const llvm::DenseMap<const Var *, const Expr *> &S) {
  const Expr *Base = nullptr, *Index = nullptr;
  if (const auto *I = dyn_cast<IndexExpr>(E)) {
    Base = I->getBase();
    Index = I->getIndex();
  } else if (const auto *U = dyn_cast<UnaryExpr>(E);
             U && U->getOp() == UnaryOp::Deref) {
    Base = U->getSub();
  } else if (const auto *R = dyn_cast<VarRefExpr>(E)) {
    auto It = S.find(R->getVar());
    return It == S.end() ? nullptr : IRCloner(M).clone(It->second);
  }
  const auto *R = Base ? dyn_cast<VarRefExpr>(peelCasts(Base)) : nullptr;
  auto It = R ? S.find(R->getVar()) : S.end();
  if (It == S.end())
    return nullptr;
  const Expr *Arg = peelCasts(IRCloner(M).clone(It->second));
  const Expr *K = Index ? C.clone(Index) : nullptr;
  if (const auto *U = dyn_cast<UnaryExpr>(Arg)) {
    const Expr *Obj = U->getSub();
    if (const auto *I = dyn_cast<IndexExpr>(Obj))
      return B.index(I->getBase(), B.orZero(B.add(I->getIndex(), K),
                                            I->getIndex()->getType()));
    if (!K || IRBuilder::isLiteral(K, 0))
      return Obj;
    fail(E, "an element other than the first of the address of '" +
                std::string(isa<VarRefExpr>(Obj)
                                ? cast<VarRefExpr>(Obj)->getVar()->getName()
                                : "a value") +
                "' is read by an inlined callee");
    return Obj;
  }
  return B.index(Arg, K ? K : B.intLit(0));
}

ir::Function *meshad::prepareHessianPrimal(Module &M, DiagnosticSink &Diags,
                                           Function &Primal,
                                           const std::vector<bool> &Selected,
                                           clang::SourceLocation Loc) {
  CalleeInliner Inliner(M, Diags, Primal, Selected, Loc);
  BlockStmt *Body = Inliner.process(Primal.getBody());
  if (Inliner.failed())
    return nullptr;
  bool Failed = false;
  BlockStmt *Moved = rewriteSelectedPointers(
      M, Diags, Primal, Inliner.changed() ? Body : Primal.getBody(), Selected,
      Loc, Failed);
  if (Failed)
    return nullptr;
  if (!Inliner.changed() && !Moved)
    return unrollSmallLoops(M, Primal);
  Function *Copy = M.createFunction(Primal.getName(), Primal.getReturnType(),
                                    Primal.getTarget());
  Copy->setTemplateArgs(Primal.getTemplateArgs());
  Copy->setNamespace(Primal.getNamespace());
  Copy->setQualifiers(Primal.getQualifiers());
  Copy->setSourceDecl(Primal.getSourceDecl());
  Copy->setLoc(Primal.getLoc());
  Copy->setParams(Primal.getParams());
  Copy->setBody(Moved ? Moved : Body);
  // Constant offsets and counts make loops constant, and unrolled loops
  // make offsets constant: in turn.
  for (unsigned Round = 0; Round < 4; ++Round) {
    Copy->setBody(foldIntLocals(M, Copy->getBody()));
    Function *Unrolled = unrollSmallLoops(M, *Copy);
    if (Unrolled == Copy)
      break;
    Copy = Unrolled;
  }
  Copy->setBody(foldIntLocals(M, Copy->getBody()));
  return Copy;
}
