//===- GPU/OwnershipAccesses.cpp - Accesses to kernel arrays --------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/OwnershipAccesses.h"
#include "AD/Analysis/Activity.h"
#include "Analysis/IRWalk.h"
#include "IR/Intrinsics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <set>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using irwalk::spell;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

AccessCollector::AccessCollector(const Function &Kernel) : Kernel(Kernel) {
  findGuardLocals();
  visitBlock(Kernel.getBody(), nullptr);
}

void AccessCollector::findGuardLocals() {
  if (!Kernel.getBody())
    return;
  std::map<const Var *, unsigned> Count;
  std::set<const Var *> Taken;
  const auto &Top = Kernel.getBody()->getBody();
  irwalk::forEachStmt(Kernel.getBody(), [&](const Stmt *S) {
    const Var *V = nullptr;
    bool Once = false;
    if (const auto *D = dyn_cast<DeclStmt>(S)) {
      V = D->getInit() ? D->getVar() : nullptr;
      Once = true;
    } else if (const auto *A = dyn_cast<AssignStmt>(S)) {
      V = ActivityAnalysis::getRootVar(A->getLHS());
      Once = A->getOp() == AssignOp::Assign && isa<VarRefExpr>(A->getLHS()) &&
             llvm::is_contained(Top, S);
    }
    if (V && ++Count[V] == 1 && Once)
      GuardDefs[V] = S;
    for (const Expr *E : irwalk::ownExprs(S))
      irwalk::forEachExpr(E, [&](const Expr *Sub) {
        const auto *U = dyn_cast<UnaryExpr>(Sub);
        if (U && U->getOp() == UnaryOp::AddrOf)
          Taken.insert(ActivityAnalysis::getRootVar(U->getSub()));
      });
  });
  for (auto It = GuardDefs.begin(); It != GuardDefs.end();) {
    const Var *V = It->first;
    bool Keep = Count[V] == 1 && !Taken.count(V) && !V->isParam() &&
                V->getStorage() == Var::Storage::Local &&
                V->getType()->isIntegral();
    It = Keep ? std::next(It) : GuardDefs.erase(It);
  }
}

const Expr *AccessCollector::seeThrough(const Expr *Cond, bool &Holds) const {
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    if (const auto *U = dyn_cast<UnaryExpr>(Cond);
        U && U->getOp() == UnaryOp::Not) {
      Cond = U->getSub(); // `!_cond0` holds: `_cond0` does not.
      Holds = !Holds;
      continue;
    }
    const auto *R = dyn_cast<VarRefExpr>(Cond);
    auto It = R ? GuardValues.find(R->getVar()) : GuardValues.end();
    if (It == GuardValues.end())
      return Cond;
    Cond = It->second;
  }
  return Cond;
}

const Guard *AccessCollector::push(const Expr *Cond, bool Holds,
                                   const Guard *G) {
  const Expr *Value = seeThrough(Cond, Holds);
  GuardPool.push_back(Guard{Value, Holds, G});
  return &GuardPool.back();
}

void AccessCollector::visitBlock(const BlockStmt *B, const Guard *G) {
  if (!B)
    return;
  for (const Stmt *S : B->getBody()) {
    visitStmt(S, G);
    G = guardAfter(S, G);
  }
}

void AccessCollector::visitStmt(const Stmt *S, const Guard *G) {
  if (!S)
    return;
  Current = G;
  const auto *Add = dyn_cast<AssignStmt>(S);
  bool IsAdd = Add && Add->getOp() == AssignOp::Accumulate;
  AddTarget = IsAdd ? Add->getLHS() : nullptr;
  AddPrimal = IsAdd ? Add->getPrimalAccess() : nullptr;
  if (IsAdd)
    if (const Var *P = paramRoot(Add->getLHS()))
      Accumulated.insert(P);
  checkEscapes(S);
  if (const auto *D = dyn_cast<DeclStmt>(S);
      D && GuardDefs.count(D->getVar()) && GuardDefs[D->getVar()] == S)
    GuardValues[D->getVar()] = D->getInit();
  if (const auto *A = dyn_cast<AssignStmt>(S))
    if (const Var *V = ActivityAnalysis::getRootVar(A->getLHS());
        V && GuardDefs.count(V) && GuardDefs[V] == S)
      GuardValues[V] = A->getRHS();
  for (const Expr *E : irwalk::ownExprs(S))
    visit(E);
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    return visitBlock(cast<BlockStmt>(S), G);
  case Stmt::Kind::If: {
    const auto *If = cast<IfStmt>(S);
    visitBlock(If->getThen(), push(If->getCond(), true, G));
    return visitBlock(If->getElse(), push(If->getCond(), false, G));
  }
  case Stmt::Kind::For: {
    const auto *For = cast<ForStmt>(S);
    visitStmt(For->getInit(), G);
    visitStmt(For->getInc(), G);
    return visitBlock(For->getBody(), G);
  }
  case Stmt::Kind::While:
    return visitBlock(cast<WhileStmt>(S)->getBody(), G);
  case Stmt::Kind::Do:
    return visitBlock(cast<DoStmt>(S)->getBody(), G);
  default:
    return;
  }
}

/// True when no path through \p B reaches the statement after it: it ends
/// with a return, a break or a continue, and nothing else in it jumps (a
/// break of a nested loop would stay inside).
static bool alwaysLeaves(const BlockStmt *B) {
  if (!B || B->getBody().empty())
    return false;
  const Stmt *Last = B->getBody().back();
  if (!isa<ReturnStmt>(Last) && !isa<BreakStmt>(Last) &&
      !isa<ContinueStmt>(Last))
    return false;
  bool Jumps = false;
  irwalk::forEachStmt(B, [&](const Stmt *S) {
    Jumps |= S != Last && (isa<BreakStmt>(S) || isa<ContinueStmt>(S));
  });
  return !Jumps;
}

const Guard *AccessCollector::guardAfter(const Stmt *S, const Guard *G) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If)
    return G;
  bool ThenLeaves = alwaysLeaves(If->getThen());
  bool ElseLeaves = alwaysLeaves(If->getElse());
  if (ThenLeaves == ElseLeaves) // Both (nothing follows) or neither.
    return G;
  return push(If->getCond(), ElseLeaves, G);
}

const Var *AccessCollector::paramRoot(const Expr *E) const {
  const Var *Root = ActivityAnalysis::getRootVar(E);
  if (!Root || !Root->getType()->isPointer() || Kernel.getParamIndex(Root) < 0)
    return nullptr;
  return Root;
}

void AccessCollector::escape(const Expr *E, const std::string &Why) {
  if (const Var *P = paramRoot(E))
    Escapes.try_emplace(P, Why);
}

void AccessCollector::record(const Var *P, const Expr *Spelled,
                             const Expr *Index) {
  const Expr *Primal = Spelled == AddTarget ? AddPrimal : nullptr;
  Accesses[P].push_back(Access{Spelled, Index, Current, Primal});
}

void AccessCollector::checkEscapes(const Stmt *S) {
  if (const auto *D = dyn_cast<DeclStmt>(S)) {
    const Expr *Init = D->getInit();
    if (Init && D->getVar()->getType()->isPointer())
      escape(Init, spell(Init) + " is copied into " + D->getVar()->getName());
  } else if (const auto *A = dyn_cast<AssignStmt>(S)) {
    if (isa<VarRefExpr>(A->getLHS()))
      escape(A->getLHS(), spell(A->getLHS()) + " is reassigned");
    if (A->getRHS() && A->getLHS()->getType()->isPointer())
      escape(A->getRHS(), spell(A->getRHS()) + " is copied into " +
                              spell(A->getLHS()));
  } else if (const auto *L = dyn_cast<LaunchStmt>(S)) {
    for (const Expr *Arg : L->getArgs())
      escape(Arg, spell(Arg) + " is passed to kernel " +
                      L->getKernel()->getName());
  }
}

void AccessCollector::visit(const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::VarRef:
    escape(E, spell(E) + " is used as a pointer value");
    return;
  case Expr::Kind::Index: {
    const auto *I = cast<IndexExpr>(E);
    const auto *Base = dyn_cast<VarRefExpr>(I->getBase());
    if (Base && paramRoot(Base)) {
      record(Base->getVar(), E, I->getIndex());
      return visit(I->getIndex());
    }
    if (isa<IndexExpr>(I->getBase()))
      escape(E, "multi-dimensional access " + spell(E) + " is not analysed");
    break;
  }
  case Expr::Kind::Unary: {
    UnaryOp Op = cast<UnaryExpr>(E)->getOp();
    if (Op == UnaryOp::Deref)
      escape(E, spell(E) + " dereferences a pointer");
    else if (Op == UnaryOp::AddrOf)
      escape(E, "the address " + spell(E) + " is taken");
    break;
  }
  case Expr::Kind::Binary:
    if (E->getType()->isPointer())
      escape(E, "pointer arithmetic " + spell(E));
    break;
  case Expr::Kind::Cast:
    if (E->getType()->isPointer())
      escape(E, spell(E) + " casts a pointer");
    break;
  case Expr::Kind::Call:
    return visitCallArgs(cast<CallExpr>(E));
  default:
    break;
  }
  for (const Expr *Op : irwalk::operands(E))
    visit(Op);
}

void AccessCollector::visitCallArgs(const CallExpr *C) {
  const IntrinsicInfo *Info = lookupIntrinsic(C);
  bool Atomic = Info && Info->isAtomic();
  std::string Callee = C->getCalleeKind() == CallExpr::CalleeKind::User
                           ? C->getUserCallee()->getName()
                           : C->getName();
  for (unsigned I = 0, N = C->getNumArgs(); I < N; ++I) {
    const Expr *Arg = C->getArg(I);
    if (I == 0 && Atomic && visitAtomicTarget(Arg))
      continue;
    if (irwalk::stripCasts(Arg)->getType()->isPointer())
      escape(Arg, spell(Arg) + " is passed to " + Callee);
    visit(Arg);
  }
}

bool AccessCollector::visitAtomicTarget(const Expr *E) {
  if (const auto *Ref = dyn_cast<VarRefExpr>(E)) {
    if (!paramRoot(Ref))
      return false;
    record(Ref->getVar(), E, nullptr);
    return true;
  }
  const auto *B = dyn_cast<BinaryExpr>(E);
  if (B && B->getOp() == BinaryOp::Add && isa<VarRefExpr>(B->getLHS()) &&
      paramRoot(B->getLHS()) && B->getRHS()->getType()->isIntegral()) {
    record(cast<VarRefExpr>(B->getLHS())->getVar(), E, B->getRHS());
    visit(B->getRHS());
    return true;
  }
  const auto *U = dyn_cast<UnaryExpr>(E);
  if (!U || U->getOp() != UnaryOp::AddrOf)
    return false;
  const Expr *Target = U->getSub();
  while (const auto *M = llvm::dyn_cast_or_null<MemberExpr>(Target))
    Target = M->isArrow() ? nullptr : M->getBase();
  const auto *I = llvm::dyn_cast_or_null<IndexExpr>(Target);
  if (!I || !isa<VarRefExpr>(I->getBase()) || !paramRoot(I->getBase()))
    return false;
  visit(I); // Records the access.
  return true;
}
