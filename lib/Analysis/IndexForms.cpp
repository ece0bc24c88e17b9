//===- Analysis/IndexForms.cpp - Index expressions as affine forms --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Analysis/IndexForms.h"
#include "AD/Analysis/Activity.h"
#include "Analysis/IRWalk.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using llvm::cast;
using llvm::dyn_cast;

//===----------------------------------------------------------------------===//
// Affine forms
//===----------------------------------------------------------------------===//

/// The most atoms a monomial may have before a product becomes opaque.
static constexpr size_t MaxMonomialAtoms = 4;

std::optional<Atom> ownership::threadAtomOf(const Monomial &M) {
  for (const Atom &A : M)
    if (A.isThreadDependent())
      return A;
  return std::nullopt;
}

bool Affine::isThreadDependent() const {
  return llvm::any_of(Terms, [](const auto &T) {
    return threadAtomOf(T.first).has_value();
  });
}

bool Affine::isAtom(AtomKind K, unsigned Dim) const {
  if (Const != 0 || Terms.size() != 1 || Terms.begin()->second != 1)
    return false;
  const Monomial &M = Terms.begin()->first;
  return M.size() == 1 && M.front().Kind == K && M.front().Dim == Dim;
}

bool ownership::addScaled(Affine &A, const Affine &B, long long Sign) {
  long long Scaled;
  if (llvm::MulOverflow(B.Const, Sign, Scaled) ||
      llvm::AddOverflow(A.Const, Scaled, A.Const))
    return false;
  for (const auto &[M, C] : B.Terms) {
    long long &Slot = A.Terms[M];
    if (llvm::MulOverflow(C, Sign, Scaled) ||
        llvm::AddOverflow(Slot, Scaled, Slot))
      return false;
    if (Slot == 0)
      A.Terms.erase(M);
  }
  return true;
}

/// Replaces the atoms \p A and \p B of \p M by \p With; false when \p M
/// lacks one of them.
static bool replacePair(Monomial &M, Atom A, Atom B, Atom With) {
  auto IA = llvm::find(M, A);
  if (IA == M.end())
    return false;
  M.erase(IA);
  auto IB = llvm::find(M, B);
  if (IB == M.end()) {
    M.push_back(A);
    llvm::sort(M);
    return false;
  }
  M.erase(IB);
  M.push_back(With);
  llvm::sort(M);
  return true;
}

/// Sorts \p M and names the products blockIdx*blockDim and blockDim*gridDim.
static void normalize(Monomial &M) {
  llvm::sort(M);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned D = 0; D < 3 && !Changed; ++D)
      Changed = replacePair(M, {AtomKind::BlockIdx, D}, {AtomKind::BlockDim, D},
                            {AtomKind::BlockBase, D}) ||
                replacePair(M, {AtomKind::BlockDim, D}, {AtomKind::GridDim, D},
                            {AtomKind::TotalThreads, D});
  }
}

/// \p M with its atom \p From replaced by \p To.
static Monomial substitute(Monomial M, Atom From, Atom To) {
  std::replace(M.begin(), M.end(), From, To);
  llvm::sort(M);
  return M;
}

/// Folds one c*blockIdx.d*blockDim.d*M + c*threadIdx.d*M pair; false when
/// there is none.
static bool foldOne(Affine &A) {
  for (const auto &[M, C] : A.Terms) {
    std::optional<Atom> T = threadAtomOf(M);
    if (!T || T->Kind != AtomKind::BlockBase)
      continue;
    Monomial Tid = substitute(M, *T, {AtomKind::ThreadIdx, T->Dim});
    auto It = A.Terms.find(Tid);
    if (It == A.Terms.end() || It->second != C)
      continue;
    Monomial Base = M;
    long long Coeff = C;
    Monomial Gid = substitute(M, *T, {AtomKind::Gid, T->Dim});
    A.Terms.erase(It);
    A.Terms.erase(Base); // Invalidates the loop: return at once.
    if ((A.Terms[Gid] += Coeff) == 0)
      A.Terms.erase(Gid);
    return true;
  }
  return false;
}

void ownership::foldGid(Affine &A) {
  while (foldOne(A)) {
  }
}

namespace {
enum class ProductError { None, Overflow, NotAffine };
} // namespace

/// Adds C * M to \p Out.
static ProductError addTerm(Affine &Out, Monomial M, long long C) {
  normalize(M);
  if (M.size() > MaxMonomialAtoms ||
      llvm::count_if(M, [](const Atom &A) { return A.isThreadDependent(); }) >
          1)
    return ProductError::NotAffine;
  long long &Slot = Out.Terms[M];
  if (llvm::AddOverflow(Slot, C, Slot))
    return ProductError::Overflow;
  if (Slot == 0)
    Out.Terms.erase(M);
  return ProductError::None;
}

/// L * R, distributed.
static ProductError multiply(const Affine &L, const Affine &R, Affine &Out) {
  Out = Affine();
  if (llvm::MulOverflow(L.Const, R.Const, Out.Const))
    return ProductError::Overflow;
  auto AddScaled = [&](const Affine &A, long long Factor) {
    Affine Scaled;
    Scaled.Terms = A.Terms;
    return addScaled(Out, Scaled, Factor);
  };
  if (!AddScaled(L, R.Const) || !AddScaled(R, L.Const))
    return ProductError::Overflow;
  for (const auto &[LM, LC] : L.Terms)
    for (const auto &[RM, RC] : R.Terms) {
      long long C;
      if (llvm::MulOverflow(LC, RC, C))
        return ProductError::Overflow;
      Monomial M = LM;
      M.insert(M.end(), RM.begin(), RM.end());
      if (ProductError E = addTerm(Out, std::move(M), C);
          E != ProductError::None)
        return E;
    }
  foldGid(Out);
  return ProductError::None;
}

/// Adds to \p Dims the dimensions of the thread and block indices that
/// \p F and its callees read; \p Seen guards against recursion.
static void collectThreadDims(const Function &F, unsigned &Dims,
                              llvm::SmallPtrSetImpl<const Function *> &Seen) {
  if (!F.getBody() || !Seen.insert(&F).second)
    return;
  irwalk::forEachStmt(F.getBody(), [&](const Stmt *S) {
    for (const Expr *E : irwalk::ownExprs(S))
      irwalk::forEachExpr(E, [&](const Expr *Sub) {
        if (const auto *B = dyn_cast<BuiltinExpr>(Sub)) {
          if (B->getBuiltin() == BuiltinExpr::Builtin::ThreadIdx ||
              B->getBuiltin() == BuiltinExpr::Builtin::BlockIdx)
            Dims |= 1u << std::min(B->getDim(), 2u);
        } else if (const auto *C = dyn_cast<CallExpr>(Sub)) {
          if (const Function *Callee = C->getUserCallee())
            collectThreadDims(*Callee, Dims, Seen);
        }
      });
  });
}

unsigned ownership::threadDimsOf(const Function &Kernel) {
  unsigned Dims = 1;
  llvm::SmallPtrSet<const Function *, 4> Seen;
  collectThreadDims(Kernel, Dims, Seen);
  return Dims;
}

//===----------------------------------------------------------------------===//
// Spelling
//===----------------------------------------------------------------------===//

static const char *dimName(unsigned Dim) {
  static const char *Names[] = {"x", "y", "z"};
  return Names[Dim < 3 ? Dim : 0];
}

std::string IndexEvaluator::spellAtom(const Atom &A) const {
  std::string D = dimName(A.Dim);
  switch (A.Kind) {
  case AtomKind::Gid: {
    auto It = GidNames.find(A.Dim);
    return It != GidNames.end() ? It->second : "gid." + D;
  }
  case AtomKind::GridStride:
    return Symbols[A.Id].Name;
  case AtomKind::Gathered:
    return Gathers[A.Id].Name;
  case AtomKind::Symbol: {
    const std::string &Name = Symbols[A.Id].Name;
    return Name.find(' ') == std::string::npos ? Name : "(" + Name + ")";
  }
  case AtomKind::ThreadIdx:
    return "threadIdx." + D;
  case AtomKind::BlockIdx:
    return "blockIdx." + D;
  case AtomKind::BlockBase:
    return "blockIdx." + D + "*blockDim." + D;
  case AtomKind::BlockDim:
    return "blockDim." + D;
  case AtomKind::GridDim:
    return "gridDim." + D;
  case AtomKind::TotalThreads:
    return "blockDim." + D + "*gridDim." + D;
  }
  return "?";
}

std::string IndexEvaluator::spellMonomial(const Monomial &M) const {
  std::string Result;
  for (const Atom &A : M) // Sorted: the thread atom (if any) comes first.
    Result += (Result.empty() ? "" : "*") + spellAtom(A);
  return Result;
}

std::string IndexEvaluator::spell(const Affine &A) const {
  // Outer dimensions and longer products first: "gy*W + gx + 1".
  std::vector<std::pair<const Monomial *, long long>> Order;
  for (const auto &[M, C] : A.Terms)
    Order.push_back({&M, C});
  auto Rank = [](const Monomial &M) {
    std::optional<Atom> T = threadAtomOf(M);
    return std::make_pair(T ? static_cast<int>(T->Dim) : -1, M.size());
  };
  std::stable_sort(Order.begin(), Order.end(), [&](auto &L, auto &R) {
    return Rank(*L.first) > Rank(*R.first);
  });
  std::string Result;
  auto Append = [&](long long C, const std::string &Text) {
    if (Result.empty())
      Result = (C < 0 ? "-" : "") + Text;
    else
      Result += (C < 0 ? " - " : " + ") + Text;
  };
  for (const auto &[M, C] : Order) {
    unsigned long long Abs = C < 0 ? 0ULL - static_cast<unsigned long long>(C)
                                   : static_cast<unsigned long long>(C);
    Append(C, (Abs == 1 ? "" : std::to_string(Abs) + "*") + spellMonomial(*M));
  }
  if (A.Const != 0 || Result.empty()) {
    unsigned long long Abs =
        A.Const < 0 ? 0ULL - static_cast<unsigned long long>(A.Const)
                    : static_cast<unsigned long long>(A.Const);
    if (Result.empty())
      Result = std::to_string(A.Const);
    else
      Append(A.Const, std::to_string(Abs));
  }
  return Result;
}

//===----------------------------------------------------------------------===//
// Index evaluation
//===----------------------------------------------------------------------===//

IndexEvaluator::IndexEvaluator(const Function &Kernel) {
  if (Kernel.getBody())
    for (const Stmt *S : Kernel.getBody()->getBody()) {
      TopLevel.insert(S);
      TopLevelOrder.push_back(S);
    }
  irwalk::forEachStmt(Kernel.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S)) {
      if (D->getInit())
        Defs[D->getVar()].push_back(S);
    } else if (const auto *A = dyn_cast<AssignStmt>(S)) {
      if (const Var *Root = ActivityAnalysis::getRootVar(A->getLHS()))
        Defs[Root].push_back(S);
    } else if (const auto *F = dyn_cast<ForStmt>(S)) {
      if (std::optional<CanonicalLoop> L = ReverseNeeds::matchCanonical(*F))
        Loops[L->Counter] = Loop{*L, F};
    }
    for (const Expr *E : irwalk::ownExprs(S))
      irwalk::forEachExpr(E, [&](const Expr *Sub) {
        const auto *U = dyn_cast<UnaryExpr>(Sub);
        if (U && U->getOp() == UnaryOp::AddrOf)
          if (const Var *Root = ActivityAnalysis::getRootVar(U->getSub()))
            AddressTaken.insert(Root);
      });
  });
}

/// Calls \p Pred on the info of every symbol of \p A; true when it holds
/// for all.
template <class Fn>
static bool allSymbols(const Affine &A, const std::vector<SymbolInfo> &Symbols,
                       Fn Pred) {
  return llvm::all_of(A.Terms, [&](const auto &T) {
    return llvm::all_of(T.first, [&](const Atom &At) {
      return At.Kind != AtomKind::Symbol || Pred(Symbols[At.Id]);
    });
  });
}

bool IndexEvaluator::isStable(const Affine &A) const {
  return allSymbols(A, Symbols, [](const SymbolInfo &S) { return S.Stable; });
}

bool IndexEvaluator::isInvariant(const Affine &A) const {
  return allSymbols(A, Symbols, [](const SymbolInfo &S) {
    return S.Stable && S.Invariant;
  });
}

bool IndexEvaluator::isNonNegative(const Affine &A) const {
  if (A.Const < 0)
    return false;
  return llvm::all_of(A.Terms, [&](const auto &T) {
    return T.second > 0 && llvm::all_of(T.first, [&](const Atom &At) {
             return At.Kind != AtomKind::Symbol ||
                    Symbols[At.Id].NonNegative;
           });
  });
}

unsigned IndexEvaluator::intern(const void *Key, SymbolInfo Info) {
  auto [It, New] = SymbolIds.try_emplace(Key, Symbols.size());
  if (New)
    Symbols.push_back(std::move(Info));
  return It->second;
}

Eval IndexEvaluator::symbol(const void *Key, SymbolInfo Info) {
  return Eval::ok(
      Affine::atom(Atom{AtomKind::Symbol, 0, intern(Key, std::move(Info))}));
}

Eval IndexEvaluator::opaque(const Expr *E,
                            llvm::ArrayRef<const Eval *> Parts) {
  SymbolInfo Info{irwalk::spell(E)};
  for (const Eval *P : Parts) {
    if (!P->Ok)
      return *P;
    if (P->Form.isThreadDependent())
      return Eval::fail(irwalk::spell(E) + " is not affine", E);
    Info.Stable &= isStable(P->Form);
    Info.Invariant &= isInvariant(P->Form);
  }
  return symbol(E, std::move(Info));
}

Eval IndexEvaluator::eval(const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::IntLit:
    return Eval::ok(Affine::literal(cast<IntLitExpr>(E)->getValue()));
  case Expr::Kind::BoolLit:
    return Eval::ok(Affine::literal(cast<BoolLitExpr>(E)->getValue()));
  case Expr::Kind::VarRef:
    return evalVar(cast<VarRefExpr>(E)->getVar());
  case Expr::Kind::Builtin:
    return evalBuiltin(cast<BuiltinExpr>(E));
  case Expr::Kind::Unary:
    return evalUnary(cast<UnaryExpr>(E));
  case Expr::Kind::Binary:
    return evalBinary(cast<BinaryExpr>(E));
  case Expr::Kind::Cast:
    if (!E->getType()->isIntegral())
      return Eval::fail(irwalk::spell(E) + " is not an integer", E);
    return evalCast(cast<CastExpr>(E));
  case Expr::Kind::Conditional: {
    const auto *C = cast<ConditionalExpr>(E);
    Eval Cond = eval(C->getCond()), T = eval(C->getTrue()),
         F = eval(C->getFalse());
    return opaque(E, {&Cond, &T, &F});
  }
  case Expr::Kind::Index:
    return evalIndex(cast<IndexExpr>(E));
  default:
    return Eval::fail(irwalk::spell(E) + " is not affine", E);
  }
}

Eval IndexEvaluator::evalBuiltin(const BuiltinExpr *B) {
  unsigned Dim = B->getDim();
  switch (B->getBuiltin()) {
  case BuiltinExpr::Builtin::ThreadIdx:
    return Eval::ok(Affine::atom(Atom{AtomKind::ThreadIdx, Dim}));
  case BuiltinExpr::Builtin::BlockIdx:
    return Eval::ok(Affine::atom(Atom{AtomKind::BlockIdx, Dim}));
  case BuiltinExpr::Builtin::BlockDim:
    return Eval::ok(Affine::atom(Atom{AtomKind::BlockDim, Dim}));
  case BuiltinExpr::Builtin::GridDim:
    return Eval::ok(Affine::atom(Atom{AtomKind::GridDim, Dim}));
  case BuiltinExpr::Builtin::WarpSize: {
    SymbolInfo Info{"warpSize"};
    Info.NonNegative = true;
    return symbol(B, Info);
  }
  }
  return Eval::fail(irwalk::spell(B) + " is not affine", B);
}

Eval IndexEvaluator::evalUnary(const UnaryExpr *U) {
  Eval Sub = eval(U->getSub());
  if (!Sub.Ok || U->getOp() == UnaryOp::Plus)
    return Sub;
  if (U->getOp() == UnaryOp::Neg) {
    Affine Neg;
    if (!addScaled(Neg, Sub.Form, -1))
      return Eval::fail(irwalk::spell(U) + " overflows", U);
    return Eval::ok(Neg);
  }
  return opaque(U, {&Sub});
}

Eval IndexEvaluator::evalBinary(const BinaryExpr *B) {
  Eval L = eval(B->getLHS());
  if (!L.Ok)
    return L;
  Eval R = eval(B->getRHS());
  if (!R.Ok)
    return R;
  Affine Result = L.Form;
  switch (B->getOp()) {
  case BinaryOp::Add:
  case BinaryOp::Sub:
    if (!addScaled(Result, R.Form, B->getOp() == BinaryOp::Add ? 1 : -1))
      return Eval::fail(irwalk::spell(B) + " overflows", B);
    foldGid(Result);
    return Eval::ok(Result);
  case BinaryOp::Mul:
    return evalProduct(B, L.Form, R.Form);
  case BinaryOp::Shl: {
    long long Shift = R.Form.Const;
    if (R.Form.isLiteral() && Shift >= 0 && Shift < 62)
      return evalProduct(B, L.Form, Affine::literal(1LL << Shift));
    return opaque(B, {&L, &R});
  }
  case BinaryOp::Div:
  case BinaryOp::Rem: {
    long long N = L.Form.Const, D = R.Form.Const;
    if (L.Form.isLiteral() && R.Form.isLiteral() && D != 0 &&
        !(D == -1 && N == std::numeric_limits<long long>::min()))
      return Eval::ok(
          Affine::literal(B->getOp() == BinaryOp::Div ? N / D : N % D));
    return opaque(B, {&L, &R});
  }
  default:
    return opaque(B, {&L, &R});
  }
}

Eval IndexEvaluator::evalProduct(const BinaryExpr *B, const Affine &L,
                                 const Affine &R) {
  Affine Result;
  switch (multiply(L, R, Result)) {
  case ProductError::None:
    return Eval::ok(Result);
  case ProductError::Overflow:
    return Eval::fail(irwalk::spell(B) + " overflows", B);
  case ProductError::NotAffine:
    break;
  }
  Eval LE = Eval::ok(L), RE = Eval::ok(R);
  return opaque(B, {&LE, &RE});
}

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
