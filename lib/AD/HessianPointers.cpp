//===- AD/HessianPointers.cpp - Pointers into selected arrays as offsets --===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Two rewrites of the copy of a primal that the Hessian mode derives from:
///
/// rewriteSelectedPointers: a pointer local set into a selected array or a
/// local array (`const double *p = x + 3 * i;`, a callee's parameter after
/// inlining)
/// becomes an int offset into it (`int p_offset = 3 * i;`); its moves
/// (`p += 3`, `++p`, `p = x + j`) move the offset, its loads (`p[k]`, `*p`)
/// are loads of the array (`x[p_offset + k]`), so the lanes see elements of
/// x. A pointer moved to another array or whose address is taken is an
/// error.
///
/// foldIntLocals: constant propagation over int locals (and folding of
/// integer arithmetic on literals) through straight-line code, each branch
/// of an `if` from what is known before it, a local written in a loop
/// unknown in and after it, a local whose address is taken never known:
/// the offsets and counts that inlining and unrolling leave become
/// literals, so that indices are constants (`x[4]`) and small loops
/// constant.
///
//===----------------------------------------------------------------------===//

#include "AD/Hessian.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/NameScope.h"
#include "IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <limits>

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using llvm::dyn_cast_or_null;

namespace {

const Expr *peel(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  return E;
}

class PointerOffsets {
public:
  PointerOffsets(Module &M, DiagnosticSink &Diags, const Function &Primal,
                 const std::vector<bool> &Selected, clang::SourceLocation Loc)
      : M(M), B(M), Diags(Diags), Loc(Loc) {
    for (unsigned I = 0; I < Primal.getNumParams(); ++I)
      if (I < Selected.size() && Selected[I] &&
          Primal.getParam(I)->getType()->isIndexable())
        Arrays.insert(Primal.getParam(I));
  }

  /// The rewritten body, or null when it has no such pointer.
  BlockStmt *run(const BlockStmt *Body);
  bool failed() const { return Failed; }

private:
  Var *baseOf(const Expr *E) const;
  const Expr *offsetOf(const Expr *E, IRCloner &C);
  std::optional<const Stmt *> stmt(const Stmt *S, IRCloner &C);
  const Expr *expr(const Expr *E, IRCloner &C);
  void fail(const Expr *At, const std::string &Msg);

  Module &M;
  IRBuilder B;
  DiagnosticSink &Diags;
  clang::SourceLocation Loc;
  llvm::SmallPtrSet<const Var *, 8> Arrays;
  /// The pointer locals, to their array and offset.
  llvm::DenseMap<const Var *, std::pair<Var *, Var *>> Offsets;
  bool Failed = false;
};

} // namespace

void PointerOffsets::fail(const Expr *At, const std::string &Msg) {
  if (!Failed)
    Diags.error(At && At->getLoc().isValid() ? At->getLoc() : Loc,
                "meshad::hessian: " + Msg);
  Failed = true;
}

/// The selected array \p E points into, or null.
Var *PointerOffsets::baseOf(const Expr *E) const {
  E = peel(E);
  if (const auto *R = dyn_cast<VarRefExpr>(E)) {
    if (Arrays.count(R->getVar()))
      return R->getVar();
    auto It = Offsets.find(R->getVar());
    return It == Offsets.end() ? nullptr : It->second.first;
  }
  if (const auto *Bin = dyn_cast<BinaryExpr>(E)) {
    if (Bin->getOp() != BinaryOp::Add && Bin->getOp() != BinaryOp::Sub)
      return nullptr;
    if (Bin->getLHS()->getType()->isIndexable())
      return baseOf(Bin->getLHS());
    if (Bin->getOp() == BinaryOp::Add && Bin->getRHS()->getType()->isIndexable())
      return baseOf(Bin->getRHS());
    return nullptr;
  }
  if (const auto *U = dyn_cast<UnaryExpr>(E); U && U->getOp() == UnaryOp::AddrOf)
    if (const auto *I = dyn_cast<IndexExpr>(U->getSub()))
      return baseOf(I->getBase());
  return nullptr;
}

/// The element offset of \p E (baseOf(E) non-null) into its array.
const Expr *PointerOffsets::offsetOf(const Expr *E, IRCloner &C) {
  E = peel(E);
  if (const auto *R = dyn_cast<VarRefExpr>(E)) {
    auto It = Offsets.find(R->getVar());
    return It == Offsets.end() ? B.intLit(0) : B.ref(It->second.second);
  }
  if (const auto *Bin = dyn_cast<BinaryExpr>(E)) {
    bool PtrLeft = Bin->getLHS()->getType()->isIndexable();
    const Expr *Ptr = PtrLeft ? Bin->getLHS() : Bin->getRHS();
    const Expr *Int = C.clone(PtrLeft ? Bin->getRHS() : Bin->getLHS());
    const Expr *Off = offsetOf(Ptr, C);
    return Bin->getOp() == BinaryOp::Sub ? B.orZero(B.sub(Off, Int), Int->getType())
                                         : B.orZero(B.add(Off, Int), Int->getType());
  }
  const auto *I = cast<IndexExpr>(cast<UnaryExpr>(E)->getSub());
  const Expr *Idx = C.clone(I->getIndex());
  return B.orZero(B.add(offsetOf(I->getBase(), C), Idx), Idx->getType());
}

BlockStmt *PointerOffsets::run(const BlockStmt *Body) {
  NameScope Names;
  Names.addStmt(Body);
  // Local arrays too: their tangents are arrays the lanes copy, and a
  // pointer into one would be a tangent pointer.
  forEachStmt(Body, [&](const Stmt *S) {
    const auto *D = dyn_cast<DeclStmt>(S);
    if (D && D->getVar()->getType()->isArray())
      Arrays.insert(D->getVar());
  });
  forEachStmt(Body, [&](const Stmt *S) {
    const auto *D = dyn_cast<DeclStmt>(S);
    if (!D || !D->getVar()->getType()->isPointer() || !D->getInit())
      return;
    if (Var *X = baseOf(D->getInit()))
      Offsets[D->getVar()] = {
          X, M.createVar(Names.unique(D->getVar()->getName() + "_offset"),
                         M.getTypes().getInt())};
  });
  if (Offsets.empty())
    return nullptr;
  IRCloner C(M);
  C.setStmtHook([&](const Stmt *S) { return stmt(S, C); });
  C.setExprHook([&](const Expr *E) { return expr(E, C); });
  BlockStmt *Out = C.cloneBlock(Body);
  return Failed ? nullptr : Out;
}

/// Declarations and moves of the pointers: of their offsets.
std::optional<const Stmt *> PointerOffsets::stmt(const Stmt *S, IRCloner &C) {
  if (const auto *D = dyn_cast<DeclStmt>(S)) {
    auto It = Offsets.find(D->getVar());
    if (It == Offsets.end())
      return std::nullopt;
    return B.decl(It->second.second, offsetOf(D->getInit(), C));
  }
  const auto *A = dyn_cast<AssignStmt>(S);
  const auto *L = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
  auto It = L ? Offsets.find(L->getVar()) : Offsets.end();
  if (It == Offsets.end())
    return std::nullopt;
  auto [X, Off] = It->second;
  switch (A->getOp()) {
  case AssignOp::Assign:
    if (baseOf(A->getRHS()) != X) {
      fail(A->getRHS(), "the pointer '" + L->getVar()->getName() +
                            "' into the selected array '" + X->getName() +
                            "' is set to other memory; use a pointer of its own");
      return std::nullopt;
    }
    return B.assign(B.ref(Off), AssignOp::Assign, offsetOf(A->getRHS(), C));
  case AssignOp::AddAssign:
  case AssignOp::SubAssign:
    return B.assign(B.ref(Off), A->getOp(), C.clone(A->getRHS()));
  case AssignOp::Inc:
  case AssignOp::Dec:
    return B.assign(B.ref(Off), A->getOp(), nullptr);
  default:
    fail(A->getLHS(), "the pointer '" + L->getVar()->getName() +
                          "' into a selected array is changed in a way the "
                          "Hessian mode cannot follow");
    return std::nullopt;
  }
}

/// Loads through the pointers: of the array; the pointer as a value: the
/// array plus the offset.
const Expr *PointerOffsets::expr(const Expr *E, IRCloner &C) {
  const Expr *Base = nullptr, *Index = nullptr;
  if (const auto *I = dyn_cast<IndexExpr>(E)) {
    Base = I->getBase();
    Index = I->getIndex();
  } else if (const auto *U = dyn_cast<UnaryExpr>(E)) {
    if (U->getOp() == UnaryOp::Deref) {
      Base = U->getSub();
    } else if (U->getOp() == UnaryOp::AddrOf) {
      const auto *R = dyn_cast<VarRefExpr>(U->getSub());
      if (R && Offsets.count(R->getVar()))
        fail(E, "the address of the pointer '" + R->getVar()->getName() +
                    "' into a selected array is taken");
      return nullptr;
    }
  } else if (const auto *R = dyn_cast<VarRefExpr>(E)) {
    auto It = Offsets.find(R->getVar());
    if (It == Offsets.end())
      return nullptr;
    return M.create<BinaryExpr>(R->getType(), BinaryOp::Add,
                                B.ref(It->second.first),
                                B.ref(It->second.second));
  }
  Var *X = Base ? baseOf(Base) : nullptr;
  if (!X || (isa<VarRefExpr>(peel(Base)) &&
             cast<VarRefExpr>(peel(Base))->getVar() == X))
    return nullptr;
  const Expr *Off = offsetOf(Base, C);
  const Expr *K = Index ? C.clone(Index) : nullptr;
  return B.index(B.ref(X), B.orZero(B.add(Off, K), Off->getType()));
}

BlockStmt *meshad::rewriteSelectedPointers(Module &M, DiagnosticSink &Diags,
                                           const Function &Primal,
                                           const BlockStmt *Body,
                                           const std::vector<bool> &Selected,
                                           clang::SourceLocation Loc,
                                           bool &Failed) {
  PointerOffsets P(M, Diags, Primal, Selected, Loc);
  BlockStmt *Out = P.run(Body);
  Failed = P.failed();
  return Out;
}

//===--- foldIntLocals ----------------------------------------------------===//

namespace {

using Known = llvm::DenseMap<const Var *, long long>;

class IntFolder {
public:
  IntFolder(Module &M, const BlockStmt *Body) : M(M), B(M) {
    forEachStmt(Body, [&](const Stmt *S) {
      for (const Expr *E : ownExprs(S))
        forEachExpr(E, [&](const Expr *X) {
          const auto *U = dyn_cast<UnaryExpr>(X);
          const auto *R = U && U->getOp() == UnaryOp::AddrOf
                              ? dyn_cast<VarRefExpr>(U->getSub())
                              : nullptr;
          if (R)
            AddressTaken.insert(R->getVar());
        });
    });
  }
  BlockStmt *block(const BlockStmt *S, Known &K);

private:
  const Stmt *stmt(const Stmt *S, Known &K);
  /// An assignment: its value known after it when it is a literal (or a
  /// literal update of a known value).
  const Stmt *assign(const AssignStmt *A, Known &K);
  /// A loop: what it writes unknown in it and after it.
  const Stmt *loop(const Stmt *S, Known &K);
  const Expr *expr(const Expr *E, const Known &K);
  bool tracked(const Var *V) const {
    return V->getType()->getUnqualified()->getSpelling() == "int" &&
           V->getType()->isIntegral() && !V->isParam() &&
           !V->isShared() && !V->isGlobal() && !AddressTaken.count(V);
  }
  static void forgetAssigned(const Stmt *S, Known &K);

  Module &M;
  IRBuilder B;
  llvm::SmallPtrSet<const Var *, 16> AddressTaken;
};

std::optional<long long> literal(const Expr *E) {
  if (const auto *L = dyn_cast_or_null<IntLitExpr>(E))
    return L->getValue();
  return std::nullopt;
}

} // namespace

void IntFolder::forgetAssigned(const Stmt *S, Known &K) {
  if (!S)
    return;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *D = dyn_cast<DeclStmt>(X))
      K.erase(D->getVar());
    if (const auto *A = dyn_cast<AssignStmt>(X))
      if (const auto *R = dyn_cast<VarRefExpr>(A->getLHS()))
        K.erase(R->getVar());
  });
}

const Expr *IntFolder::expr(const Expr *E, const Known &K) {
  IRCloner C(M);
  C.setExprHook([&](const Expr *X) -> const Expr * {
    if (const auto *R = dyn_cast<VarRefExpr>(X)) {
      auto It = K.find(R->getVar());
      return It == K.end() ? nullptr : B.intLit(It->second, X->getType());
    }
    const auto *Bin = dyn_cast<BinaryExpr>(X);
    if (!Bin || !X->getType()->isIntegral() ||
        X->getType()->getUnqualified()->getSpelling() != "int" ||
        (!isArithmetic(Bin->getOp()) && Bin->getOp() != BinaryOp::Rem))
      return nullptr;
    const Expr *L = C.clone(Bin->getLHS()), *R = C.clone(Bin->getRHS());
    std::optional<long long> A = literal(L), V = literal(R);
    BinaryOp Op = Bin->getOp();
    bool ByZero = (Op == BinaryOp::Div || Op == BinaryOp::Rem) && V && *V == 0;
    bool Folds = A && V && !ByZero &&
                 (Op == BinaryOp::Add || Op == BinaryOp::Sub ||
                  Op == BinaryOp::Mul || Op == BinaryOp::Div ||
                  Op == BinaryOp::Rem);
    if (!Folds)
      return M.create<BinaryExpr>(X->getType(), Op, L, R);
    long long Value = Op == BinaryOp::Add   ? *A + *V
                      : Op == BinaryOp::Sub ? *A - *V
                      : Op == BinaryOp::Mul ? *A * *V
                      : Op == BinaryOp::Div ? *A / *V
                                            : *A % *V;
    if (Value < std::numeric_limits<int>::min() ||
        Value > std::numeric_limits<int>::max())
      return M.create<BinaryExpr>(X->getType(), Op, L, R);
    return B.intLit(Value, X->getType());
  });
  return C.clone(E);
}

BlockStmt *IntFolder::block(const BlockStmt *S, Known &K) {
  if (!S)
    return nullptr;
  BlockStmt *Out = B.block();
  for (const Stmt *X : S->getBody())
    Out->append(stmt(X, K));
  Out->setLoc(S->getLoc());
  return Out;
}

const Stmt *IntFolder::assign(const AssignStmt *A, Known &K) {
  const auto *L = dyn_cast<VarRefExpr>(A->getLHS());
  const Expr *LHS = L ? A->getLHS() : expr(A->getLHS(), K);
  const Expr *RHS = A->getRHS() ? expr(A->getRHS(), K) : nullptr;
  std::optional<long long> Old, V = literal(RHS);
  if (L && K.count(L->getVar()))
    Old = K[L->getVar()];
  if (L)
    K.erase(L->getVar());
  std::optional<long long> New;
  switch (A->getOp()) {
  case AssignOp::Assign: New = V; break;
  case AssignOp::AddAssign: if (Old && V) New = *Old + *V; break;
  case AssignOp::SubAssign: if (Old && V) New = *Old - *V; break;
  case AssignOp::Inc: if (Old) New = *Old + 1; break;
  case AssignOp::Dec: if (Old) New = *Old - 1; break;
  default: break;
  }
  if (L && New && tracked(L->getVar()))
    K[L->getVar()] = *New;
  return B.assign(LHS, A->getOp(), RHS);
}

const Stmt *IntFolder::loop(const Stmt *S, Known &K) {
  forgetAssigned(S, K);
  Known In = K;
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    const Stmt *Init = F->getInit() ? stmt(F->getInit(), In) : nullptr;
    forgetAssigned(S, In);
    return M.create<ForStmt>(Init,
                             F->getCond() ? expr(F->getCond(), In) : nullptr,
                             F->getInc() ? stmt(F->getInc(), In) : nullptr,
                             block(F->getBody(), In));
  }
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return M.create<WhileStmt>(expr(W->getCond(), In), block(W->getBody(), In));
  const auto *Do = cast<DoStmt>(S);
  return M.create<DoStmt>(block(Do->getBody(), In), expr(Do->getCond(), In));
}

const Stmt *IntFolder::stmt(const Stmt *S, Known &K) {
  const Stmt *Out = S;
  if (const auto *D = dyn_cast<DeclStmt>(S)) {
    const Expr *Init = D->getInit() ? expr(D->getInit(), K) : nullptr;
    K.erase(D->getVar());
    if (std::optional<long long> V = literal(Init); V && tracked(D->getVar()))
      K[D->getVar()] = *V;
    Out = B.decl(D->getVar(), Init);
  } else if (const auto *A = dyn_cast<AssignStmt>(S)) {
    Out = assign(A, K);
  } else if (const auto *Blk = dyn_cast<BlockStmt>(S)) {
    Out = block(Blk, K);
  } else if (const auto *I = dyn_cast<IfStmt>(S)) {
    const Expr *Cond = expr(I->getCond(), K);
    Known Then = K, Else = K;
    Out = M.create<IfStmt>(Cond, block(I->getThen(), Then),
                           block(I->getElse(), Else));
    forgetAssigned(S, K);
  } else if (isa<ForStmt, WhileStmt, DoStmt>(S)) {
    Out = loop(S, K);
  } else {
    IRCloner C(M);
    C.setExprHook([&](const Expr *E) -> const Expr * {
      return isa<VarRefExpr, BinaryExpr>(E) ? expr(E, K) : nullptr;
    });
    Out = C.clone(S);
    return Out;
  }
  if (Out != S)
    const_cast<Stmt *>(Out)->setLoc(S->getLoc());
  return Out;
}

BlockStmt *meshad::foldIntLocals(Module &M, const BlockStmt *Body) {
  IntFolder F(M, Body);
  Known K;
  return F.block(Body, K);
}
