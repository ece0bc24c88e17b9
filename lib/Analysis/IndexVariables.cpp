//===- Analysis/IndexVariables.cpp - Variables as affine forms ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The part of IndexEvaluator that gives a variable its form: a parameter
/// is a symbol; a loop counter is a grid-stride atom or a symbol with the
/// literal range its bounds give; a variable defined once is its
/// definition's form; one assigned more than once is a grid-stride value
/// (every assignment gid.x + c*T) or an unstable symbol.
///
//===----------------------------------------------------------------------===//

#include "Analysis/IRWalk.h"
#include "Analysis/IndexForms.h"
#include "Analysis/SweepDefs.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdlib>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using llvm::cast;
using llvm::dyn_cast;

Eval IndexEvaluator::evalVar(const Var *V) {
  auto It = Cache.find(V);
  if (It != Cache.end())
    return It->second;
  if (InProgress.count(V)) { // A cycle through assignments.
    SymbolInfo Info{V->getName(), /*Stable=*/false, /*Invariant=*/false};
    return symbol(V, Info);
  }
  InProgress.insert(V);
  Eval R = evalVarUncached(V);
  InProgress.erase(V);
  if (R.Ok) {
    foldGid(R.Form);
    for (unsigned D = 0; D < 3; ++D)
      if (R.Form.isAtom(AtomKind::Gid, D))
        GidNames.try_emplace(D, V->getName());
    nameGather(V, R.Form);
  }
  Cache[V] = R;
  return R;
}

/// True for integer types whose values are never negative.
static bool isUnsignedType(const Type *Ty) {
  if (Ty->getKind() == Type::Kind::Bool)
    return true;
  llvm::StringRef S = Ty->getUnqualified()->getSpelling();
  return Ty->getKind() == Type::Kind::Int &&
         (S.starts_with("unsigned") || S == "size_t" || S == "uint32_t" ||
          S == "uint64_t");
}

Eval IndexEvaluator::evalVarUncached(const Var *V) {
  const std::string &Name = V->getName();
  if (!V->getType()->isIntegral())
    return Eval::fail(Name + " is not an integer");
  if (V->isGlobal() || V->isShared())
    return Eval::fail(Name + " is in memory that other threads may write");
  if (AddressTaken.count(V))
    return Eval::fail("the address of " + Name + " is taken");
  auto L = Loops.find(V);
  if (L != Loops.end())
    return evalLoopCounter(V, L->second);
  if (const CountedLoop *C = Sweeps->countedLoop(V))
    if (std::optional<Eval> R = evalCounted(V, *C))
      return *R;
  // A trip counter is a value of its own, also where a tape gives it back.
  if (Sweeps->countsTrips(V))
    return symbol(V, SymbolInfo{V->getName(), /*Stable=*/false,
                                /*Invariant=*/false});
  auto D = Defs.find(V);
  if (D == Defs.end()) {
    if (!V->isParam())
      return Eval::fail(Name + " is never initialized");
    SymbolInfo Info{Name};
    Info.NonNegative = isUnsignedType(V->getType());
    return symbol(V, Info);
  }
  if (!V->isParam() && D->second.size() == 1) {
    if (const auto *Decl = dyn_cast<DeclStmt>(D->second.front()))
      return evalSingleDef(V, Decl->getInit());
    // Declared without a value, assigned once at the top of the kernel
    // (reverse mode hoists declarations: `int i; ... i = gid;`).
    if (const auto *A = dyn_cast<AssignStmt>(D->second.front()))
      if (A->getOp() == AssignOp::Assign &&
          llvm::isa<VarRefExpr>(A->getLHS()) && TopLevel.count(A))
        return evalSingleDef(V, A->getRHS());
    // Assigned once after an early return, read under the same guard.
    if (const Expr *Value = Sweeps->guardedValue(V))
      return evalSingleDef(V, Value);
  }
  return evalMultiDef(V);
}

Eval IndexEvaluator::evalLoopCounter(const Var *V, const Loop &L) {
  const CanonicalLoop &C = L.Canonical;
  Eval Init = eval(C.Init);
  Eval Step = C.Step ? eval(C.Step) : Eval::ok(Affine::literal(1));
  if (!Init.Ok)
    return Init;
  if (!Step.Ok)
    return Step;
  if (!C.Decrement && Init.Form.isAtom(AtomKind::Gid) &&
      Step.Form.isAtom(AtomKind::TotalThreads))
    return Eval::ok(Affine::atom(
        Atom{AtomKind::GridStride, 0, intern(V, SymbolInfo{V->getName()})}));
  if (Init.Form.isThreadDependent() || Step.Form.isThreadDependent())
    return Eval::fail("loop counter " + V->getName() +
                      " is not a grid-stride counter");
  // The counter is only changed by the increment: stable in the body, but
  // not the same in every iteration.
  SymbolInfo Info{V->getName(),
                  isStable(Init.Form) && isStable(Step.Form),
                  /*Invariant=*/false};
  Info.Range = literalRange(L, Init.Form, Step.Form);
  Info.NonNegative = Info.Range && Info.Range->first >= 0;
  return symbol(V, Info);
}

/// \p A times the atom \p At (no thread atom in \p A).
static Affine timesAtom(const Affine &A, const Atom &At) {
  Affine R;
  auto Add = [&](Monomial M, long long C) {
    M.insert(llvm::upper_bound(M, At), At);
    R.Terms[M] += C;
  };
  for (const auto &[M, C] : A.Terms)
    Add(M, C);
  if (A.Const)
    Add({}, A.Const);
  return R;
}

std::optional<Eval> IndexEvaluator::evalCounted(const Var *V,
                                                const CountedLoop &C) {
  Eval Init = eval(C.Init);
  Eval Step = C.Step ? eval(C.Step) : Eval::ok(Affine::literal(1));
  Eval Trips = evalVar(C.Trips);
  if (!Init.Ok || !Step.Ok || !Trips.Ok || Init.Form.isThreadDependent() ||
      Step.Form.isThreadDependent() || !isStable(Init.Form) ||
      !isStable(Step.Form) || Trips.Form.Const != 0 ||
      Trips.Form.Terms.size() != 1 ||
      Trips.Form.Terms.begin()->first.size() != 1 ||
      Trips.Form.Terms.begin()->second != 1 ||
      (C.InLoop && (!Init.Form.isLiteral() || !Step.Form.isLiteral())))
    return std::nullopt;
  // Init +- (trips - 1) * Step: the counter of iteration trips - 1.
  Affine Offset = timesAtom(Step.Form, Trips.Form.Terms.begin()->first[0]);
  Affine Expected = Init.Form;
  if (!addScaled(Offset, Step.Form, -1) ||
      !addScaled(Expected, Offset, C.Decrement ? -1 : 1))
    return std::nullopt;
  for (const Expr *R : C.Recomputed) {
    Eval E = eval(R);
    if (!E.Ok || !(E.Form == Expected))
      return std::nullopt;
  }
  Loop L{CanonicalLoop{C.Counter, C.Init, C.Step, C.Decrement}, C.For};
  return evalLoopCounter(V, L);
}

/// The conjuncts of \p E (a && b && c).
static void conjuncts(const Expr *E, llvm::SmallVectorImpl<const Expr *> &Out) {
  const auto *B = dyn_cast<BinaryExpr>(E);
  if (B && B->getOp() == BinaryOp::LAnd) {
    conjuncts(B->getLHS(), Out);
    conjuncts(B->getRHS(), Out);
    return;
  }
  Out.push_back(E);
}

/// The comparison operator seen from the other side: a < b is b > a.
static BinaryOp mirror(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Lt:
    return BinaryOp::Gt;
  case BinaryOp::Gt:
    return BinaryOp::Lt;
  case BinaryOp::Le:
    return BinaryOp::Ge;
  case BinaryOp::Ge:
    return BinaryOp::Le;
  default:
    return Op;
  }
}

/// The largest literal magnitude a loop bound may have.
static constexpr long long MaxLoopLiteral = 1LL << 30;

std::optional<IndexEvaluator::CounterBound>
IndexEvaluator::counterBound(const Loop &L, const Expr *Cond) {
  const auto *B = dyn_cast<BinaryExpr>(Cond);
  if (!B)
    return std::nullopt;
  const Var *Counter = L.Canonical.Counter;
  auto IsCounter = [&](const Expr *E) {
    const auto *Ref = dyn_cast<VarRefExpr>(irwalk::stripCasts(E));
    return Ref && Ref->getVar() == Counter;
  };
  BinaryOp Op = B->getOp();
  const Expr *Other = B->getRHS();
  if (!IsCounter(B->getLHS())) {
    if (!IsCounter(B->getRHS()))
      return std::nullopt;
    Other = B->getLHS();
    Op = mirror(Op);
  }
  Eval N = eval(Other);
  if (!N.Ok || !N.Form.isLiteral() || std::abs(N.Form.Const) > MaxLoopLiteral)
    return std::nullopt;
  bool Signed = irwalk::isSignedInteger(Counter->getType()) &&
                irwalk::isSignedInteger(B->getLHS()->getType());
  return CounterBound{Op, N.Form.Const, Signed};
}

std::optional<std::pair<long long, long long>>
IndexEvaluator::literalRange(const Loop &L, const Affine &Init,
                             const Affine &Step) {
  const Type *Ty = L.Canonical.Counter->getType();
  llvm::StringRef Spelling = Ty->getUnqualified()->getSpelling();
  if (!Init.isLiteral() || !Step.isLiteral() || Step.Const <= 0 ||
      Step.Const > MaxLoopLiteral || std::abs(Init.Const) > MaxLoopLiteral ||
      Ty->getKind() != Type::Kind::Int || Spelling.contains("char") ||
      Spelling.contains("short") || !L.For->getCond())
    return std::nullopt;
  bool Down = L.Canonical.Decrement;
  long long Start = Init.Const, S = Step.Const;
  std::optional<long long> Last; // The bound on the far side of Start.
  llvm::SmallVector<const Expr *, 2> Conds;
  conjuncts(L.For->getCond(), Conds);
  for (const Expr *C : Conds) {
    std::optional<CounterBound> B = counterBound(L, C);
    // Unsigned comparisons and counters: only non-negative values.
    if (!B || (!B->Signed && (B->Bound < 0 || Start < 0)))
      continue;
    BinaryOp Op = B->Op;
    std::optional<long long> Far;
    if (!Down && (Op == BinaryOp::Lt || Op == BinaryOp::Le ||
                  (Op == BinaryOp::Ne && S == 1 && Start <= B->Bound)))
      Far = Op == BinaryOp::Le ? B->Bound : B->Bound - 1;
    else if (Down && (Op == BinaryOp::Gt || Op == BinaryOp::Ge ||
                      (Op == BinaryOp::Ne && S == 1 && B->Bound <= Start)))
      Far = Op == BinaryOp::Ge ? B->Bound : B->Bound + 1;
    // An unsigned decrement must not wrap below zero.
    if (!Far || (Down && !B->Signed && *Far < S))
      continue;
    Last = !Last ? *Far : Down ? std::max(*Last, *Far) : std::min(*Last, *Far);
  }
  if (!Last)
    return std::nullopt;
  // A loop that never runs gives its body no value: any range is right.
  return std::make_pair(std::min(Start, *Last), std::max(Start, *Last));
}

Eval IndexEvaluator::evalSingleDef(const Var *V, const Expr *Init) {
  Eval R = eval(Init);
  if (!R.Ok || isStable(R.Form))
    return R;
  if (R.Form.isThreadDependent())
    return Eval::fail(V->getName() +
                      " depends on a variable assigned more than once");
  return symbol(V, SymbolInfo{V->getName(), false, false});
}

/// True when every term of \p F is an integer multiple of
/// blockDim.x*gridDim.x whose other factors are not thread-dependent, plus
/// 1*gid.x when \p WithGid; no constant.
static bool isGidPlusStrides(const Affine &F, bool WithGid) {
  if (F.Const != 0)
    return false;
  bool SawGid = false;
  for (const auto &[M, C] : F.Terms) {
    if (M.size() == 1 && M.front().Kind == AtomKind::Gid &&
        M.front().Dim == 0 && C == 1 && WithGid) {
      SawGid = true;
      continue;
    }
    if (!llvm::is_contained(M, Atom{AtomKind::TotalThreads, 0}) ||
        threadAtomOf(M))
      return false;
  }
  return SawGid == WithGid;
}

bool ownership::isNarrowInteger(const Type *Ty) {
  llvm::StringRef S = Ty->getUnqualified()->getSpelling();
  return Ty->getKind() != Type::Kind::Int || S.contains("char") ||
         S.contains("short");
}

/// True when \p E reads \p V.
static bool mentions(const Expr *E, const Var *V) {
  bool Any = false;
  irwalk::forEachExpr(E, [&](const Expr *Sub) {
    const auto *Ref = dyn_cast<VarRefExpr>(Sub);
    Any |= Ref && Ref->getVar() == V;
  });
  return Any;
}

/// True when \p S (with what it nests) reads or writes \p V.
static bool mentions(const Stmt *S, const Var *V) {
  bool Any = false;
  irwalk::forEachStmt(S, [&](const Stmt *Sub) {
    for (const Expr *E : irwalk::ownExprs(Sub))
      Any |= mentions(E, V);
  });
  return Any;
}

/// True when \p S sets \p V without reading it: `V = e`.
static bool sets(const Stmt *S, const Var *V) {
  const auto *A = llvm::dyn_cast_or_null<AssignStmt>(S);
  const auto *Ref = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
  return Ref && Ref->getVar() == V && A->getOp() == AssignOp::Assign &&
         !mentions(A->getRHS(), V);
}

bool IndexEvaluator::isSetBeforeUse(const Var *V) const {
  for (const Stmt *S : Defs.lookup(V))
    if (const auto *D = dyn_cast<DeclStmt>(S); D && D->getInit())
      return true; // Every use is in its scope, after it.
  for (const Stmt *S : TopLevelOrder) {
    if (const auto *D = dyn_cast<DeclStmt>(S); D && D->getVar() == V)
      continue;
    const auto *F = dyn_cast<ForStmt>(S);
    if (sets(S, V) || (F && sets(F->getInit(), V)))
      return true;
    if (mentions(S, V))
      return false;
  }
  return false;
}

std::string IndexEvaluator::whyNotGridStride(const Var *V) {
  if (V->isParam() || isNarrowInteger(V->getType()))
    return "not an int local";
  if (!isSetBeforeUse(V))
    return "not set before its first use";
  bool Set = false;
  for (const Stmt *S : Defs.lookup(V)) {
    const Expr *RHS = nullptr;
    bool Step = false;
    if (const auto *D = dyn_cast<DeclStmt>(S)) {
      RHS = D->getInit();
    } else {
      const auto *A = cast<AssignStmt>(S);
      if (!llvm::isa<VarRefExpr>(A->getLHS()) ||
          (A->getOp() != AssignOp::Assign &&
           A->getOp() != AssignOp::AddAssign &&
           A->getOp() != AssignOp::SubAssign))
        return irwalk::spell(A->getLHS()) + " is not assigned gid + c*T";
      RHS = A->getRHS();
      Step = A->getOp() != AssignOp::Assign;
    }
    if (!RHS)
      continue;
    Eval R = eval(RHS);
    if (!R.Ok || !isGidPlusStrides(R.Form, !Step))
      return irwalk::spell(RHS) + (Step ? " is not a multiple of "
                                          "blockDim.x*gridDim.x"
                                        : " is not gid + c*T");
    Set |= !Step;
  }
  return Set ? "" : "never set to gid + c*T";
}

Eval IndexEvaluator::evalMultiDef(const Var *V) {
  // Every value is gid.x + c*T, T the 1D thread count and c an integer:
  // congruent to gid.x modulo T, like a grid-stride loop counter.
  if (whyNotGridStride(V).empty())
    return Eval::ok(Affine::atom(
        Atom{AtomKind::GridStride, 0,
             intern(Defs.lookup(V).front(), SymbolInfo{V->getName()})}));
  for (const Stmt *S : Defs.lookup(V)) {
    const Expr *RHS = nullptr;
    if (const auto *D = dyn_cast<DeclStmt>(S))
      RHS = D->getInit();
    else if (const auto *A = dyn_cast<AssignStmt>(S))
      RHS = A->getRHS();
    if (!RHS)
      continue;
    Eval R = eval(RHS);
    if (!R.Ok || R.Form.isThreadDependent())
      return Eval::fail(V->getName() +
                        " is assigned more than once or after its declaration");
  }
  return symbol(V, SymbolInfo{V->getName(), false, false});
}
