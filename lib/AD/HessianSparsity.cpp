//===- AD/HessianSparsity.cpp - Zeros and symmetry of a lane Hessian ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The structure of a Hessian whose lanes HessianLanes unrolled:
///   - foldLaneConstants: constant propagation over the function's
///     floating-point locals (a lane's direction is literals: its tangents
///     start as 0 or 1), with folding of literal arithmetic; adds of a
///     literal 0 go. What is left of a lane is what depends on its input;
///     a Hessian entry no lane adds to is a structural zero (the initial
///     fill writes it).
///   - keepLowerTriangle: when every entry the lanes add to is a constant
///     (no store under a run-time index), the adds above the diagonal go
///     and each structurally nonzero entry below it is copied to its mirror
///     at the end; the dead lane code that fed only the upper triangle is
///     then removed by the simplifier.
///
//===----------------------------------------------------------------------===//

#include "AD/Hessian.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/Traversal.h"
#include "AD/Analysis/Activity.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <climits>
#include <map>
#include <set>

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;

namespace {

using VarSet = llvm::SmallPtrSet<const Var *, 16>;

/// The variables whose address \p S takes, at any depth: `&v`, `&a[i]`,
/// and an array used other than indexed (passed on, decayed to a pointer);
/// with \p EscapingOnly, not `&v` passed straight to a call (the call is
/// where v may change).
VarSet addressTaken(const Stmt *S, bool EscapingOnly = false) {
  VarSet Out;
  llvm::SmallPtrSet<const Expr *, 16> Indexed, CallArgs;
  forEachStmt(S, [&](const Stmt *X) {
    for (const Expr *E : ownExprs(X))
      forEachExpr(E, [&](const Expr *Sub) {
        if (const auto *I = dyn_cast<IndexExpr>(Sub))
          Indexed.insert(I->getBase());
        if (const auto *C = dyn_cast<CallExpr>(Sub); C && EscapingOnly)
          CallArgs.insert(C->getArgs().begin(), C->getArgs().end());
        const auto *R = dyn_cast<VarRefExpr>(Sub);
        if (R && R->getType()->isArray() && !Indexed.count(Sub))
          Out.insert(R->getVar());
        const auto *U = dyn_cast<UnaryExpr>(Sub);
        if (U && U->getOp() == UnaryOp::AddrOf && !CallArgs.count(Sub))
          if (const Var *Root = ActivityAnalysis::getRootVar(U->getSub()))
            Out.insert(Root);
      });
  });
  return Out;
}

/// The variables \p S may write: declared, assigned (the root of the left
/// side), or whose address it takes, at any depth.
VarSet writtenIn(const Stmt *S) {
  VarSet Out = addressTaken(S);
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *D = dyn_cast<DeclStmt>(X))
      Out.insert(D->getVar());
    if (const auto *A = dyn_cast<AssignStmt>(X))
      if (const Var *Root = ActivityAnalysis::getRootVar(A->getLHS()))
        Out.insert(Root);
  });
  return Out;
}

std::optional<double> literalValue(const Expr *E) {
  if (const auto *F = dyn_cast<FloatLitExpr>(E))
    return F->getValue();
  if (const auto *I = dyn_cast<IntLitExpr>(E))
    return static_cast<double>(I->getValue());
  return std::nullopt;
}

class LaneFolder {
public:
  LaneFolder(Module &M, Function &F) : M(M), B(M), F(F), Inner(M) {
    Inner.setExprHook([this](const Expr *E) { return fold(E); });
  }

  void run() {
    // Locals whose address is taken anywhere are never tracked.
    Untracked = addressTaken(F.getBody(), /*EscapingOnly=*/true);
    F.setBody(block(F.getBody()));
  }

private:
  const Expr *fold(const Expr *E);
  const Expr *foldArithmetic(const BinaryExpr *E);
  const Expr *literal(const Type *Ty, double V) {
    return Ty->isFloatingScalar() ? B.floatLit(Ty, V)
                                  : B.intLit(static_cast<long long>(V), Ty);
  }
  BlockStmt *block(const BlockStmt *S);
  const Stmt *stmt(const Stmt *S);
  const Stmt *simple(const Stmt *S);
  /// Forgets every value \p V holds.
  void forget(const Var *V) {
    Known.erase(Known.lower_bound({V, LLONG_MIN}),
                Known.upper_bound({V, LLONG_MAX}));
    ZeroArrays.erase(V);
  }
  void kill(const Stmt *S) {
    for (const Var *V : writtenIn(S))
      forget(V);
  }
  /// A floating-point local scalar, or a local array of them.
  bool tracked(const Var *V) const {
    const Type *Ty = V->getType();
    if (Ty->isArray())
      Ty = Ty->getElement();
    return V->getStorage() == Var::Storage::Local && Ty->isFloatingScalar() &&
           !Untracked.count(V);
  }
  /// The known value of element \p I of \p V (-1: the scalar \p V).
  std::optional<double> known(const Var *V, long long I) const {
    auto It = Known.find({V, I});
    if (It != Known.end())
      return It->second;
    if (I >= 0 && ZeroArrays.count(V))
      return 0.0;
    return std::nullopt;
  }
  const Stmt *assignElement(const AssignStmt *A, const Stmt *New);
  /// A call of a derivative whose directions are all 0 and whose results
  /// are all tangents in locals known to be 0: it changes nothing.
  bool zeroTangentCall(const Stmt *S) const;

  Module &M;
  IRBuilder B;
  Function &F;
  IRCloner Inner;
  VarSet Untracked;
  /// (variable, element or -1) -> value.
  std::map<std::pair<const Var *, long long>, double> Known;
  /// Local arrays declared `= {}` whose elements are all known: 0 unless
  /// Known says otherwise.
  VarSet ZeroArrays;
};

} // namespace

const Expr *LaneFolder::foldArithmetic(const BinaryExpr *E) {
  const Expr *L = Inner.clone(E->getLHS()), *R = Inner.clone(E->getRHS());
  std::optional<double> A = literalValue(L), C = literalValue(R);
  const Type *Ty = E->getType();
  if (A && C && Ty->isFloatingScalar()) {
    switch (E->getOp()) {
    case BinaryOp::Add:
      return literal(Ty, *A + *C);
    case BinaryOp::Sub:
      return literal(Ty, *A - *C);
    case BinaryOp::Mul:
      return literal(Ty, *A * *C);
    default:
      if (*C != 0)
        return literal(Ty, *A / *C);
    }
  }
  if (!Ty->isFloatingScalar())
    return B.binary(E->getOp(), L, R);
  const Expr *Out = nullptr;
  switch (E->getOp()) {
  case BinaryOp::Add:
    Out = B.add(L, R);
    break;
  case BinaryOp::Sub:
    Out = B.sub(L, R);
    break;
  case BinaryOp::Mul:
    Out = B.mul(L, R);
    break;
  default:
    Out = B.div(L, R);
  }
  if (!Out)
    return literal(Ty, 0);
  const Type *Got = Out->getType()->getUnqualified();
  return Got == Ty->getUnqualified() ? Out : B.cast(Ty->getUnqualified(), Out);
}

const Expr *LaneFolder::fold(const Expr *E) {
  // An address is not a value: keep the variable, fold only an index.
  if (const auto *U = dyn_cast<UnaryExpr>(E); U && U->getOp() == UnaryOp::AddrOf) {
    const auto *I = dyn_cast<IndexExpr>(U->getSub());
    return I ? B.addrOf(B.index(I->getBase(), Inner.clone(I->getIndex())))
             : E;
  }
  if (const auto *R = dyn_cast<VarRefExpr>(E)) {
    std::optional<double> V = known(R->getVar(), -1);
    return V ? literal(E->getType(), *V) : nullptr;
  }
  if (const auto *I = dyn_cast<IndexExpr>(E)) {
    const auto *Base = dyn_cast<VarRefExpr>(I->getBase());
    const Expr *Index = Inner.clone(I->getIndex());
    const auto *Lit = dyn_cast<IntLitExpr>(Index);
    std::optional<double> V =
        Base && Lit ? known(Base->getVar(), Lit->getValue()) : std::nullopt;
    if (V && E->getType()->isFloatingScalar())
      return literal(E->getType(), *V);
    return B.index(Inner.clone(I->getBase()), Index);
  }
  if (const auto *Bin = dyn_cast<BinaryExpr>(E))
    if (isArithmetic(Bin->getOp()) && Bin->getOp() != BinaryOp::Rem)
      return foldArithmetic(Bin);
  if (const auto *C = dyn_cast<CastExpr>(E)) {
    const Expr *Sub = Inner.clone(C->getSub());
    std::optional<double> V = literalValue(Sub);
    if (V && E->getType()->isFloatingScalar())
      return literal(E->getType(), *V);
    // A cast that only drops const is no conversion.
    if (Sub->getType()->getUnqualified() == E->getType()->getUnqualified() &&
        E->getType()->isFloatingScalar())
      return Sub;
    return B.cast(E->getType(), Sub);
  }
  if (const auto *U = dyn_cast<UnaryExpr>(E); U && U->getOp() == UnaryOp::Neg) {
    const Expr *Sub = Inner.clone(U->getSub());
    if (std::optional<double> V = literalValue(Sub))
      return literal(E->getType(), -*V);
    return B.neg(Sub);
  }
  return nullptr;
}

BlockStmt *LaneFolder::block(const BlockStmt *S) {
  BlockStmt *Out = B.block();
  if (!S)
    return nullptr;
  for (const Stmt *X : S->getBody())
    if (const Stmt *N = stmt(X))
      Out->append(N);
  return Out;
}

const Stmt *LaneFolder::stmt(const Stmt *S) {
  if (const auto *Blk = dyn_cast<BlockStmt>(S))
    return block(Blk);
  if (!isa<IfStmt, ForStmt, WhileStmt, DoStmt>(S))
    return simple(S);
  // What the statement writes is unknown inside (a loop's next iteration)
  // and after it (one path).
  kill(S);
  const Stmt *Out = nullptr;
  if (const auto *I = dyn_cast<IfStmt>(S)) {
    const Expr *Cond = Inner.clone(I->getCond());
    // Each branch starts from what is known before the `if`: what one
    // branch sets must not leak into the other.
    auto KnownBefore = Known;
    auto ZeroBefore = ZeroArrays;
    BlockStmt *Then = block(I->getThen());
    Known = std::move(KnownBefore);
    ZeroArrays = std::move(ZeroBefore);
    Out = M.create<IfStmt>(Cond, Then, block(I->getElse()));
  } else if (const auto *Fr = dyn_cast<ForStmt>(S)) {
    const Stmt *Init = Fr->getInit() ? Inner.clone(Fr->getInit()) : nullptr;
    const Expr *Cond = Fr->getCond() ? Inner.clone(Fr->getCond()) : nullptr;
    const Stmt *Inc = Fr->getInc() ? Inner.clone(Fr->getInc()) : nullptr;
    Out = M.create<ForStmt>(Init, Cond, Inc, block(Fr->getBody()));
  } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
    const Expr *Cond = Inner.clone(W->getCond());
    Out = M.create<WhileStmt>(Cond, block(W->getBody()));
  } else {
    const auto *D = llvm::cast<DoStmt>(S);
    BlockStmt *Body = block(D->getBody());
    Out = M.create<DoStmt>(Body, Inner.clone(D->getCond()));
  }
  kill(S);
  const_cast<Stmt *>(Out)->setLoc(S->getLoc());
  return Out;
}

bool LaneFolder::zeroTangentCall(const Stmt *S) const {
  const auto *E = dyn_cast<ExprStmt>(S);
  const auto *C = E ? dyn_cast<CallExpr>(E->getExpr()) : nullptr;
  const Function *Callee = C ? C->getUserCallee() : nullptr;
  if (!Callee || !Callee->getReturnType()->isVoid() ||
      Callee->getNumParams() != C->getNumArgs())
    return false;
  for (unsigned I = 0; I < C->getNumArgs(); ++I) {
    const Var *P = Callee->getParam(I);
    bool Tangent = P->getRoles().has(VarRoles::Tangent);
    if (!P->getType()->isPointer()) {
      std::optional<double> V = literalValue(C->getArg(I));
      if (Tangent && !(V && *V == 0))
        return false; // A nonzero direction.
      continue;
    }
    // Pointers: only tangent results, into locals known to be 0.
    const auto *U = dyn_cast<UnaryExpr>(C->getArg(I));
    const auto *R = U && U->getOp() == UnaryOp::AddrOf
                        ? dyn_cast<VarRefExpr>(U->getSub())
                        : nullptr;
    std::optional<double> Old = R ? known(R->getVar(), -1) : std::nullopt;
    if (!Tangent || !Old || *Old != 0)
      return false;
  }
  return true;
}

const Stmt *LaneFolder::simple(const Stmt *S) {
  const Stmt *New = nullptr;
  if (const auto *Old = dyn_cast<AssignStmt>(S)) {
    // The variable or element assigned is not a value to fold.
    const Expr *LHS = Old->getLHS();
    if (const auto *I = dyn_cast<IndexExpr>(LHS))
      LHS = B.index(Inner.clone(I->getBase()), Inner.clone(I->getIndex()));
    else if (!isa<VarRefExpr>(LHS))
      LHS = Inner.clone(LHS);
    const Expr *RHS = Old->getRHS() ? Inner.clone(Old->getRHS()) : nullptr;
    New = B.assign(LHS, Old->getOp(), RHS);
    const_cast<Stmt *>(New)->setLoc(S->getLoc());
  } else {
    New = Inner.clone(S);
    // A derivative's tangent results are linear in its directions: with
    // every direction 0 they stay 0 (known, so not tracked by address).
    if (zeroTangentCall(New))
      return nullptr;
  }
  const auto *A = dyn_cast_or_null<AssignStmt>(New);
  std::optional<double> V =
      A && A->getRHS() ? literalValue(A->getRHS()) : std::nullopt;
  bool Adds = A && (isAdditive(A->getOp()) ||
                    A->getOp() == AssignOp::SubAssign);
  if (Adds && V && *V == 0)
    return nullptr; // Adds nothing: its target stays what it was.
  if (A && isa<IndexExpr>(A->getLHS()))
    return assignElement(A, New);
  // `v += c` on a known v: v stays known.
  const auto *Local = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
  std::optional<double> Before =
      Local ? known(Local->getVar(), -1) : std::nullopt;
  kill(S);
  if (Before && V && Adds && tracked(Local->getVar())) {
    Known[{Local->getVar(), -1}] =
        A->getOp() == AssignOp::SubAssign ? *Before - *V : *Before + *V;
    return New;
  }
  if (const auto *D = dyn_cast_or_null<DeclStmt>(New)) {
    std::optional<double> Init =
        D->getInit() ? literalValue(D->getInit()) : std::nullopt;
    if (Init && tracked(D->getVar()))
      Known[{D->getVar(), -1}] = *Init;
    const auto *List = dyn_cast_or_null<InitListExpr>(D->getInit());
    if (List && List->getElements().empty() && tracked(D->getVar()) &&
        D->getVar()->getType()->isArray())
      ZeroArrays.insert(D->getVar());
    return New;
  }
  if (!A)
    return New;
  const auto *L = dyn_cast<VarRefExpr>(A->getLHS());
  if (L && V && A->getOp() == AssignOp::Assign && tracked(L->getVar()))
    Known[{L->getVar(), -1}] = *V;
  return New;
}

/// `a[k] = v` (\p A, folded into \p New): element k of a local array
/// becomes v or unknown, the others stay what they were; any other store
/// into an array makes all of it unknown.
const Stmt *LaneFolder::assignElement(const AssignStmt *A, const Stmt *New) {
  const auto *I = llvm::cast<IndexExpr>(A->getLHS());
  const auto *Base = dyn_cast<VarRefExpr>(I->getBase());
  const auto *Lit = dyn_cast<IntLitExpr>(I->getIndex());
  const Var *V = Base ? Base->getVar() : nullptr;
  if (!V || !Lit || !tracked(V) || !V->getType()->isArray()) {
    if (const Var *Root = ActivityAnalysis::getRootVar(A->getLHS()))
      forget(Root);
    return New;
  }
  if (ZeroArrays.count(V)) { // Every other element stays 0.
    for (unsigned K = 0; K < V->getType()->getCount(); ++K)
      Known.insert({{V, K}, 0.0});
    ZeroArrays.erase(V);
  }
  std::optional<double> Value =
      A->getRHS() ? literalValue(A->getRHS()) : std::nullopt;
  if (Value && A->getOp() == AssignOp::Assign)
    Known[{V, Lit->getValue()}] = *Value;
  else
    Known.erase({V, Lit->getValue()});
  return New;
}

void meshad::foldLaneConstants(Module &M, Function &F) {
  LaneFolder(M, F).run();
}

namespace {

/// The adds into the Hessian \p H with a constant index, by entry; false
/// when some store into H has an index known only at run time.
bool collectEntryAdds(const Stmt *Body, const Var *H,
                      std::map<long long, unsigned> &Adds) {
  bool Constant = true;
  forEachStmt(Body, [&](const Stmt *S) {
    const auto *A = dyn_cast<AssignStmt>(S);
    const auto *I = A ? dyn_cast<IndexExpr>(A->getLHS()) : nullptr;
    const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
    if (!Base || Base->getVar() != H || A->getOp() != AssignOp::AddAssign)
      return;
    if (const auto *Lit = dyn_cast<IntLitExpr>(I->getIndex()))
      ++Adds[Lit->getValue()];
    else
      Constant = false;
  });
  return Constant;
}

} // namespace

std::optional<std::set<long long>>
meshad::keepLowerTriangle(Module &M, Function &F, Var *H, unsigned K) {
  std::map<long long, unsigned> Adds;
  bool Returns = false;
  forEachStmt(F.getBody(),
              [&](const Stmt *S) { Returns |= isa<ReturnStmt>(S); });
  if (Returns || !collectEntryAdds(F.getBody(), H, Adds))
    return std::nullopt; // Every entry stays computed by its own lane.
  IRBuilder B(M);
  IRCloner C(M);
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    const auto *A = dyn_cast<AssignStmt>(S);
    const auto *I = A ? dyn_cast<IndexExpr>(A->getLHS()) : nullptr;
    const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
    const auto *Lit = I ? dyn_cast<IntLitExpr>(I->getIndex()) : nullptr;
    if (!Base || Base->getVar() != H || !Lit ||
        A->getOp() != AssignOp::AddAssign)
      return std::nullopt;
    long long Row = Lit->getValue() / K, Col = Lit->getValue() % K;
    if (Col > Row)
      return nullptr; // Its mirror below the diagonal is computed.
    return std::nullopt;
  });
  BlockStmt *Body = C.cloneBlock(F.getBody());
  std::set<long long> Lower;
  for (auto &[Entry, Count] : Adds) {
    long long Row = Entry / K, Col = Entry % K;
    if (Col > Row)
      continue;
    Lower.insert(Entry);
    if (Col == Row)
      continue;
    Body->append(B.assign(B.index(B.ref(H), B.intLit(Col * K + Row)),
                          AssignOp::Assign,
                          B.index(B.ref(H), B.intLit(Entry))));
  }
  F.setBody(Body);
  return Lower;
}
