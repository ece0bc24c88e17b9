//===- Analysis/Ownership.cpp - Who owns an adjoint element ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Index expressions are evaluated to affine forms over integer atoms (the 1D
/// global thread id, grid-stride loop counters, threadIdx/blockIdx, uniform
/// symbols) with literal coefficients; an array is thread-exclusive when every
/// access is c*G + d with one kind of thread atom G, one c and offsets d that
/// span less than |c|. Everything else is shared, with the reason.
///
//===----------------------------------------------------------------------===//

#include "Analysis/Ownership.h"
#include "Analysis/Activity.h"
#include "Analysis/ReverseNeeds.h"
#include "Emit/CudaEmitter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

const char *meshad::getOwnershipName(OwnershipClass C) {
  switch (C) {
  case OwnershipClass::ThreadExclusive:
    return "thread-exclusive";
  case OwnershipClass::TileExclusive:
    return "tile-exclusive";
  case OwnershipClass::Uniform:
    return "uniform";
  case OwnershipClass::Shared:
    return "shared";
  }
  return "shared";
}

//===----------------------------------------------------------------------===//
// IR traversal helpers
//===----------------------------------------------------------------------===//

/// The direct operands of \p E.
static llvm::SmallVector<const Expr *, 4> operands(const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::Unary:
    return {cast<UnaryExpr>(E)->getSub()};
  case Expr::Kind::Binary:
    return {cast<BinaryExpr>(E)->getLHS(), cast<BinaryExpr>(E)->getRHS()};
  case Expr::Kind::Conditional: {
    const auto *C = cast<ConditionalExpr>(E);
    return {C->getCond(), C->getTrue(), C->getFalse()};
  }
  case Expr::Kind::Call: {
    const auto &Args = cast<CallExpr>(E)->getArgs();
    return {Args.begin(), Args.end()};
  }
  case Expr::Kind::Index:
    return {cast<IndexExpr>(E)->getBase(), cast<IndexExpr>(E)->getIndex()};
  case Expr::Kind::Member:
    return {cast<MemberExpr>(E)->getBase()};
  case Expr::Kind::Cast:
    return {cast<CastExpr>(E)->getSub()};
  case Expr::Kind::InitList: {
    const auto &Elems = cast<InitListExpr>(E)->getElements();
    return {Elems.begin(), Elems.end()};
  }
  default:
    return {};
  }
}

/// The expressions \p S evaluates itself (not those of nested statements).
static llvm::SmallVector<const Expr *, 4> ownExprs(const Stmt *S) {
  llvm::SmallVector<const Expr *, 4> Result;
  auto Add = [&](const Expr *E) {
    if (E)
      Result.push_back(E);
  };
  switch (S->getKind()) {
  case Stmt::Kind::Decl:
    Add(cast<DeclStmt>(S)->getInit());
    break;
  case Stmt::Kind::Assign:
    Add(cast<AssignStmt>(S)->getLHS());
    Add(cast<AssignStmt>(S)->getRHS());
    break;
  case Stmt::Kind::ExprStmt:
    Add(cast<ExprStmt>(S)->getExpr());
    break;
  case Stmt::Kind::If:
    Add(cast<IfStmt>(S)->getCond());
    break;
  case Stmt::Kind::For:
    Add(cast<ForStmt>(S)->getCond());
    break;
  case Stmt::Kind::While:
    Add(cast<WhileStmt>(S)->getCond());
    break;
  case Stmt::Kind::Do:
    Add(cast<DoStmt>(S)->getCond());
    break;
  case Stmt::Kind::Return:
    Add(cast<ReturnStmt>(S)->getValue());
    break;
  case Stmt::Kind::Launch: {
    const auto *L = cast<LaunchStmt>(S);
    Add(L->getGrid());
    Add(L->getBlock());
    Add(L->getSharedBytes());
    Add(L->getStream());
    for (const Expr *A : L->getArgs())
      Add(A);
    break;
  }
  default:
    break;
  }
  return Result;
}

/// Calls \p F on \p S and on every statement nested in it, outermost first.
static void forEachStmt(const Stmt *S,
                        llvm::function_ref<void(const Stmt *)> F) {
  if (!S)
    return;
  F(S);
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    for (const Stmt *Sub : cast<BlockStmt>(S)->getBody())
      forEachStmt(Sub, F);
    return;
  case Stmt::Kind::If:
    forEachStmt(cast<IfStmt>(S)->getThen(), F);
    forEachStmt(cast<IfStmt>(S)->getElse(), F);
    return;
  case Stmt::Kind::For: {
    const auto *For = cast<ForStmt>(S);
    forEachStmt(For->getInit(), F);
    forEachStmt(For->getInc(), F);
    forEachStmt(For->getBody(), F);
    return;
  }
  case Stmt::Kind::While:
    forEachStmt(cast<WhileStmt>(S)->getBody(), F);
    return;
  case Stmt::Kind::Do:
    forEachStmt(cast<DoStmt>(S)->getBody(), F);
    return;
  default:
    return;
  }
}

/// Calls \p F on \p E and all its subexpressions.
static void forEachExpr(const Expr *E,
                        llvm::function_ref<void(const Expr *)> F) {
  F(E);
  for (const Expr *Op : operands(E))
    forEachExpr(Op, F);
}

static std::string spell(const Expr *E) { return CudaEmitter::emitExpr(E); }

static const Expr *stripCasts(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  return E;
}

//===----------------------------------------------------------------------===//
// Affine forms
//===----------------------------------------------------------------------===//

namespace {

/// What one term of an affine form ranges over.
enum class AtomKind {
  Gid,          ///< blockIdx.x*blockDim.x + threadIdx.x.
  GridStride,   ///< A grid-stride loop counter (gid + k*total threads).
  ThreadIdx,    ///< threadIdx.<Dim> (without a matching block base).
  BlockIdx,     ///< blockIdx.<Dim>.
  BlockBase,    ///< blockIdx.<Dim>*blockDim.<Dim>.
  BlockDim,     ///< blockDim.<Dim> (uniform).
  GridDim,      ///< gridDim.<Dim> (uniform).
  TotalThreads, ///< blockDim.x*gridDim.x (uniform).
  Symbol,       ///< An opaque uniform value, see SymbolInfo.
};

struct Atom {
  AtomKind Kind;
  unsigned Dim = 0;
  /// The variable or expression a Symbol or GridStride counter stands for.
  const void *Key = nullptr;

  bool operator<(const Atom &O) const {
    return std::tie(Kind, Dim, Key) < std::tie(O.Kind, O.Dim, O.Key);
  }
  /// True for atoms whose value differs between threads.
  bool isThreadDependent() const {
    return Kind == AtomKind::Gid || Kind == AtomKind::GridStride ||
           Kind == AtomKind::ThreadIdx || Kind == AtomKind::BlockIdx ||
           Kind == AtomKind::BlockBase;
  }
};

/// An opaque uniform value (the same in every thread at a given point).
struct SymbolInfo {
  std::string Name;
  /// False when the value may change while a variable holding it lives (a
  /// variable assigned more than once): such forms are never substituted.
  bool Stable = true;
};

/// Const + sum of Coeff * Atom with literal integers.
struct Affine {
  std::map<Atom, long long> Terms;
  long long Const = 0;

  bool isLiteral() const { return Terms.empty(); }
  bool isThreadDependent() const {
    return llvm::any_of(Terms, [](const auto &T) {
      return T.first.isThreadDependent();
    });
  }
  /// True when this is exactly 1 * A.
  bool isAtom(AtomKind K, unsigned Dim = 0) const {
    return Const == 0 && Terms.size() == 1 && Terms.begin()->second == 1 &&
           Terms.begin()->first.Kind == K && Terms.begin()->first.Dim == Dim;
  }
  static Affine literal(long long C) {
    Affine A;
    A.Const = C;
    return A;
  }
  static Affine atom(Atom At) {
    Affine A;
    A.Terms[At] = 1;
    return A;
  }
};

/// The result of evaluating an integer expression: an affine form, or why
/// there is none.
struct Eval {
  bool Ok = true;
  Affine Form;
  std::string Why;
  /// The subexpression that is not affine (null when it is a variable's).
  const Expr *Culprit = nullptr;

  static Eval ok(Affine A) {
    Eval R;
    R.Form = std::move(A);
    return R;
  }
  static Eval fail(std::string Why, const Expr *Culprit = nullptr) {
    Eval R;
    R.Ok = false;
    R.Why = std::move(Why);
    R.Culprit = Culprit;
    return R;
  }
};

/// A + Sign * B, or false on overflow.
bool addScaled(Affine &A, const Affine &B, long long Sign) {
  long long Scaled;
  if (llvm::MulOverflow(B.Const, Sign, Scaled) ||
      llvm::AddOverflow(A.Const, Scaled, A.Const))
    return false;
  for (const auto &[At, C] : B.Terms) {
    long long &Slot = A.Terms[At];
    if (llvm::MulOverflow(C, Sign, Scaled) ||
        llvm::AddOverflow(Slot, Scaled, Slot))
      return false;
    if (Slot == 0)
      A.Terms.erase(At);
  }
  return true;
}

/// Folds c*blockIdx.x*blockDim.x + c*threadIdx.x into c*gid.
void foldGid(Affine &A) {
  Atom Base{AtomKind::BlockBase, 0}, Tid{AtomKind::ThreadIdx, 0};
  auto BI = A.Terms.find(Base), TI = A.Terms.find(Tid);
  if (BI == A.Terms.end() || TI == A.Terms.end() || BI->second != TI->second)
    return;
  long long C = BI->second;
  A.Terms.erase(Base);
  A.Terms.erase(Tid);
  Atom Gid{AtomKind::Gid, 0};
  if ((A.Terms[Gid] += C) == 0)
    A.Terms.erase(Gid);
}

//===----------------------------------------------------------------------===//
// Index evaluation
//===----------------------------------------------------------------------===//

/// Evaluates the integer expressions of one kernel to affine forms.
class IndexEvaluator {
public:
  explicit IndexEvaluator(const Function &Kernel);

  Eval eval(const Expr *E);
  const SymbolInfo &getSymbol(const void *Key) const {
    return Symbols.at(Key);
  }
  bool isStable(const Affine &A) const;

private:
  Eval evalVar(const Var *V);
  Eval evalVarUncached(const Var *V);
  Eval evalLoopCounter(const Var *V, const CanonicalLoop &L);
  Eval evalSingleDef(const Var *V, const Expr *Init);
  Eval evalMultiDef(const Var *V);
  Eval evalBinary(const BinaryExpr *B);
  Eval evalProduct(const BinaryExpr *B, const Affine &L, const Affine &R);
  /// An opaque uniform symbol for \p E when all \p Parts are uniform forms,
  /// else "not affine".
  Eval opaque(const Expr *E, llvm::ArrayRef<const Eval *> Parts);
  Eval symbol(const void *Key, std::string Name, bool Stable);

  llvm::DenseMap<const Var *, llvm::SmallVector<const Stmt *, 2>> Defs;
  llvm::DenseMap<const Var *, CanonicalLoop> Loops;
  llvm::SmallPtrSet<const Var *, 8> AddressTaken;
  std::map<const Var *, Eval> Cache;
  llvm::SmallPtrSet<const Var *, 8> InProgress;
  std::map<const void *, SymbolInfo> Symbols;
};

} // namespace

IndexEvaluator::IndexEvaluator(const Function &Kernel) {
  forEachStmt(Kernel.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S)) {
      if (D->getInit())
        Defs[D->getVar()].push_back(S);
    } else if (const auto *A = dyn_cast<AssignStmt>(S)) {
      if (const Var *Root = ActivityAnalysis::getRootVar(A->getLHS()))
        Defs[Root].push_back(S);
    } else if (const auto *F = dyn_cast<ForStmt>(S)) {
      if (std::optional<CanonicalLoop> L = ReverseNeeds::matchCanonical(*F))
        Loops[L->Counter] = *L;
    }
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *Sub) {
        const auto *U = dyn_cast<UnaryExpr>(Sub);
        if (U && U->getOp() == UnaryOp::AddrOf)
          if (const Var *Root = ActivityAnalysis::getRootVar(U->getSub()))
            AddressTaken.insert(Root);
      });
  });
}

bool IndexEvaluator::isStable(const Affine &A) const {
  return llvm::all_of(A.Terms, [&](const auto &T) {
    return T.first.Kind != AtomKind::Symbol || getSymbol(T.first.Key).Stable;
  });
}

Eval IndexEvaluator::symbol(const void *Key, std::string Name, bool Stable) {
  Symbols[Key] = SymbolInfo{std::move(Name), Stable};
  return Eval::ok(Affine::atom(Atom{AtomKind::Symbol, 0, Key}));
}

Eval IndexEvaluator::opaque(const Expr *E,
                            llvm::ArrayRef<const Eval *> Parts) {
  bool Stable = true;
  for (const Eval *P : Parts) {
    if (!P->Ok)
      return *P;
    if (llvm::any_of(P->Form.Terms, [](const auto &T) {
          return T.first.isThreadDependent() && T.first.Dim > 0;
        }))
      return Eval::fail("2D index term " + spell(E) + ": not proven", E);
    if (P->Form.isThreadDependent())
      return Eval::fail(spell(E) + " is not affine", E);
    Stable &= isStable(P->Form);
  }
  return symbol(E, spell(E), Stable);
}

Eval IndexEvaluator::eval(const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::IntLit:
    return Eval::ok(Affine::literal(cast<IntLitExpr>(E)->getValue()));
  case Expr::Kind::BoolLit:
    return Eval::ok(Affine::literal(cast<BoolLitExpr>(E)->getValue()));
  case Expr::Kind::VarRef:
    return evalVar(cast<VarRefExpr>(E)->getVar());
  case Expr::Kind::Builtin: {
    const auto *B = cast<BuiltinExpr>(E);
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
    case BuiltinExpr::Builtin::WarpSize:
      return symbol(E, "warpSize", true);
    }
    return Eval::fail(spell(E) + " is not affine", E);
  }
  case Expr::Kind::Unary: {
    const auto *U = cast<UnaryExpr>(E);
    Eval Sub = eval(U->getSub());
    if (!Sub.Ok || U->getOp() == UnaryOp::Plus)
      return Sub;
    if (U->getOp() == UnaryOp::Neg) {
      Affine Neg;
      if (!addScaled(Neg, Sub.Form, -1))
        return Eval::fail(spell(E) + " overflows", E);
      return Eval::ok(Neg);
    }
    return opaque(E, {&Sub});
  }
  case Expr::Kind::Binary:
    return evalBinary(cast<BinaryExpr>(E));
  case Expr::Kind::Cast:
    if (!E->getType()->isIntegral())
      return Eval::fail(spell(E) + " is not an integer", E);
    return eval(cast<CastExpr>(E)->getSub());
  case Expr::Kind::Conditional: {
    const auto *C = cast<ConditionalExpr>(E);
    Eval Cond = eval(C->getCond()), T = eval(C->getTrue()),
         F = eval(C->getFalse());
    return opaque(E, {&Cond, &T, &F});
  }
  case Expr::Kind::Index: {
    const Var *Root = ActivityAnalysis::getRootVar(E);
    return Eval::fail("gather through an index array" +
                          (Root ? " " + Root->getName() : std::string()),
                      E);
  }
  default:
    return Eval::fail(spell(E) + " is not affine", E);
  }
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
      return Eval::fail(spell(B) + " overflows", B);
    foldGid(Result);
    return Eval::ok(Result);
  case BinaryOp::Mul:
    return evalProduct(B, L.Form, R.Form);
  case BinaryOp::Shl: {
    long long Shift = R.Form.Const;
    if (R.Form.isLiteral() && Shift >= 0 && Shift < 62) {
      Affine Factor = Affine::literal(1LL << Shift);
      return evalProduct(B, L.Form, Factor);
    }
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
  if (!L.isLiteral() && R.isLiteral())
    return evalProduct(B, R, L);
  if (L.isLiteral()) {
    Affine Result;
    if (!addScaled(Result, R, L.Const))
      return Eval::fail(spell(B) + " overflows", B);
    return Eval::ok(Result);
  }
  // a*X times b*Y for the atom pairs whose product is an atom itself.
  auto Single = [](const Affine &A) {
    return A.Const == 0 && A.Terms.size() == 1;
  };
  if (Single(L) && Single(R)) {
    Atom LA = L.Terms.begin()->first, RA = R.Terms.begin()->first;
    long long LC = L.Terms.begin()->second, RC = R.Terms.begin()->second;
    if (RA < LA)
      std::swap(LA, RA);
    std::optional<Atom> Product;
    if (LA.Kind == AtomKind::BlockIdx && RA.Kind == AtomKind::BlockDim &&
        LA.Dim == RA.Dim)
      Product = Atom{AtomKind::BlockBase, LA.Dim};
    else if (LA.Kind == AtomKind::BlockDim && RA.Kind == AtomKind::GridDim &&
             LA.Dim == 0 && RA.Dim == 0)
      Product = Atom{AtomKind::TotalThreads};
    long long C;
    if (Product && !llvm::MulOverflow(LC, RC, C)) {
      Affine Result;
      Result.Terms[*Product] = C;
      return Eval::ok(Result);
    }
  }
  Eval LE = Eval::ok(L), RE = Eval::ok(R);
  return opaque(B, {&LE, &RE});
}

Eval IndexEvaluator::evalVar(const Var *V) {
  auto It = Cache.find(V);
  if (It != Cache.end())
    return It->second;
  if (InProgress.count(V)) // A cycle through assignments: uniform or failed.
    return symbol(V, V->getName(), false);
  InProgress.insert(V);
  Eval R = evalVarUncached(V);
  InProgress.erase(V);
  if (R.Ok)
    foldGid(R.Form);
  Cache[V] = R;
  return R;
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
    if (V->isParam())
      return symbol(V, Name, true);
    return Eval::fail(Name + " is never initialized");
  }
  if (!V->isParam() && D->second.size() == 1)
    if (const auto *Decl = dyn_cast<DeclStmt>(D->second.front()))
      return evalSingleDef(V, Decl->getInit());
  return evalMultiDef(V);
}

Eval IndexEvaluator::evalLoopCounter(const Var *V, const CanonicalLoop &L) {
  Eval Init = eval(L.Init);
  Eval Step = L.Step ? eval(L.Step) : Eval::ok(Affine::literal(1));
  if (!Init.Ok)
    return Init;
  if (!Step.Ok)
    return Step;
  Affine GidForm = Affine::atom(Atom{AtomKind::Gid});
  if (!L.Decrement && Init.Form.isAtom(AtomKind::Gid) &&
      Step.Form.isAtom(AtomKind::TotalThreads))
    return Eval::ok(Affine::atom(Atom{AtomKind::GridStride, 0, V}));
  if (Init.Form.isThreadDependent() || Step.Form.isThreadDependent())
    return Eval::fail("loop counter " + V->getName() +
                      " is not a grid-stride counter");
  // The counter is only changed by the increment: stable in the body.
  return symbol(V, V->getName(), isStable(Init.Form) && isStable(Step.Form));
}

Eval IndexEvaluator::evalSingleDef(const Var *V, const Expr *Init) {
  Eval R = eval(Init);
  if (!R.Ok || isStable(R.Form))
    return R;
  if (R.Form.isThreadDependent())
    return Eval::fail(V->getName() +
                      " depends on a variable assigned more than once");
  return symbol(V, V->getName(), false);
}

Eval IndexEvaluator::evalMultiDef(const Var *V) {
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
  return symbol(V, V->getName(), false);
}

//===----------------------------------------------------------------------===//
// Access collection
//===----------------------------------------------------------------------===//

namespace {

/// One access to an array parameter.
struct Access {
  /// The expression as written (x[i], &E[0], E + k), for remarks.
  const Expr *Spelled;
  /// The index; null for element 0 (atomicAdd(E, v)).
  const Expr *Index;
};

/// Finds every access to the kernel's pointer parameters, and the
/// parameters that escape analysis.
class AccessCollector {
public:
  explicit AccessCollector(const Function &Kernel);

  std::map<const Var *, std::vector<Access>> Accesses;
  std::map<const Var *, std::string> Escapes;

private:
  void visitStmt(const Stmt *S);
  void visit(const Expr *E);
  /// The target of an atomic: &P[k], &P[k].y, P, P + k.
  bool visitAtomicTarget(const Expr *E);
  void visitCallArgs(const CallExpr *C);
  /// The pointer parameter that \p E designates storage of, or null.
  const Var *paramRoot(const Expr *E) const;
  void escape(const Expr *E, const std::string &Why);

  const Function &Kernel;
};

} // namespace

AccessCollector::AccessCollector(const Function &Kernel) : Kernel(Kernel) {
  forEachStmt(Kernel.getBody(), [&](const Stmt *S) { visitStmt(S); });
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

void AccessCollector::visitStmt(const Stmt *S) {
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
  for (const Expr *E : ownExprs(S))
    visit(E);
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
      Accesses[Base->getVar()].push_back(Access{E, I->getIndex()});
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
  for (const Expr *Op : operands(E))
    visit(Op);
}

void AccessCollector::visitCallArgs(const CallExpr *C) {
  bool Atomic = C->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
                llvm::StringRef(C->getName()).starts_with("atomic");
  std::string Callee = C->getCalleeKind() == CallExpr::CalleeKind::User
                           ? C->getUserCallee()->getName()
                           : C->getName();
  for (unsigned I = 0, N = C->getNumArgs(); I < N; ++I) {
    const Expr *Arg = C->getArg(I);
    if (I == 0 && Atomic && visitAtomicTarget(Arg))
      continue;
    if (stripCasts(Arg)->getType()->isPointer())
      escape(Arg, spell(Arg) + " is passed to " + Callee);
    visit(Arg);
  }
}

bool AccessCollector::visitAtomicTarget(const Expr *E) {
  if (const auto *Ref = dyn_cast<VarRefExpr>(E)) {
    if (!paramRoot(Ref))
      return false;
    Accesses[Ref->getVar()].push_back(Access{E, nullptr});
    return true;
  }
  const auto *B = dyn_cast<BinaryExpr>(E);
  if (B && B->getOp() == BinaryOp::Add && isa<VarRefExpr>(B->getLHS()) &&
      paramRoot(B->getLHS()) && B->getRHS()->getType()->isIntegral()) {
    Accesses[cast<VarRefExpr>(B->getLHS())->getVar()].push_back(
        Access{E, B->getRHS()});
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

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

namespace {

/// An access with its evaluated index.
struct FormedAccess {
  const Access *A;
  Affine Form;
};

/// Decides the class of one array from its accesses.
class Classifier {
public:
  Classifier(const Var &Param, IndexEvaluator &Evaluator)
      : Param(Param), Evaluator(Evaluator) {}

  OwnershipResult classify(const std::vector<Access> &Accesses);

private:
  static OwnershipResult shared(std::string Why) {
    return OwnershipResult{OwnershipClass::Shared, std::move(Why)};
  }
  OwnershipResult classifyUniform(const std::vector<FormedAccess> &All);
  OwnershipResult classifyThreads(const std::vector<FormedAccess> &All);
  /// Why \p F is not c*G + d with one thread atom G, or "".
  std::string whyNotLinear(const FormedAccess &F) const;
  std::string spellAccess(const Access &A) const;
  std::string spellIndex(const Access &A) const;

  const Var &Param;
  IndexEvaluator &Evaluator;
};

} // namespace

std::string Classifier::spellAccess(const Access &A) const {
  if (A.Index || !isa<VarRefExpr>(A.Spelled))
    return spell(A.Spelled);
  return Param.getName() + "[0]";
}

std::string Classifier::spellIndex(const Access &A) const {
  return A.Index ? spell(A.Index) : "0";
}

OwnershipResult Classifier::classify(const std::vector<Access> &Accesses) {
  if (Accesses.empty())
    return shared(Param.getName() + " is never indexed");
  std::vector<FormedAccess> All;
  for (const Access &A : Accesses) {
    Eval R = A.Index ? Evaluator.eval(A.Index) : Eval::ok(Affine::literal(0));
    if (!R.Ok) {
      if (R.Culprit && R.Culprit == A.Index &&
          llvm::StringRef(R.Why).ends_with(" is not affine"))
        return shared("index " + R.Why);
      return shared(spellAccess(A) + ": " + R.Why);
    }
    foldGid(R.Form);
    All.push_back(FormedAccess{&A, R.Form});
  }
  auto ThreadDependent = [](const FormedAccess &F) {
    return F.Form.isThreadDependent();
  };
  if (llvm::none_of(All, ThreadDependent))
    return classifyUniform(All);
  auto Uniform = llvm::find_if_not(All, ThreadDependent);
  if (Uniform != All.end()) {
    const FormedAccess &T = *llvm::find_if(All, ThreadDependent);
    return shared(spellAccess(*Uniform->A) + " (every thread) and " +
                  spellAccess(*T.A) + " (thread-dependent) overlap");
  }
  return classifyThreads(All);
}

OwnershipResult
Classifier::classifyUniform(const std::vector<FormedAccess> &All) {
  for (const FormedAccess &F : All)
    if (!F.Form.isLiteral())
      return shared("every thread accesses " + spellAccess(*F.A) +
                    ", not a literal index: not proven uniform");
  for (const FormedAccess &F : All)
    if (F.Form.Const != All.front().Form.Const)
      return shared("every thread accesses both " +
                    spellAccess(*All.front().A) + " and " +
                    spellAccess(*F.A));
  OwnershipResult R{OwnershipClass::Uniform,
                    "every thread accesses " + Param.getName() + "[" +
                        std::to_string(All.front().Form.Const) + "]"};
  R.HasLiteralIndex = true;
  R.UniformIndex = All.front().Form.Const;
  return R;
}

std::string Classifier::whyNotLinear(const FormedAccess &F) const {
  std::string Access = spellAccess(*F.A);
  unsigned ThreadAtoms = 0;
  for (const auto &[At, C] : F.Form.Terms) {
    if (At.isThreadDependent() && At.Dim > 0)
      return "2D index " + spellIndex(*F.A) + ": not proven";
    switch (At.Kind) {
    case AtomKind::ThreadIdx:
      return "threadIdx.x alone repeats in every block (" + Access + ")";
    case AtomKind::BlockIdx:
    case AtomKind::BlockBase:
      return "blockIdx.x without threadIdx.x is the same for all threads of "
             "a block (" + Access + ")";
    case AtomKind::Gid:
    case AtomKind::GridStride:
      ++ThreadAtoms;
      break;
    case AtomKind::Symbol:
      return Access + ": " + Evaluator.getSymbol(At.Key).Name +
             " is not a literal offset: not proven";
    default:
      return Access + ": non-literal offset: not proven";
    }
  }
  if (ThreadAtoms != 1)
    return Access + ": several thread-dependent terms: not proven";
  return "";
}

/// "2*gid", "-i", "gid".
static std::string spellTerm(long long C, const std::string &Atom) {
  if (C == 1)
    return Atom;
  if (C == -1)
    return "-" + Atom;
  return std::to_string(C) + "*" + Atom;
}

OwnershipResult
Classifier::classifyThreads(const std::vector<FormedAccess> &All) {
  for (const FormedAccess &F : All)
    if (std::string Why = whyNotLinear(F); !Why.empty())
      return shared(Why);
  // Every form is now C*G + D with one thread atom G.
  auto Term = [](const FormedAccess &F) { return *F.Form.Terms.begin(); };
  const FormedAccess &First = All.front();
  auto [FirstAtom, C] = Term(First);
  const FormedAccess *Lo = &First, *Hi = &First;
  for (const FormedAccess &F : All) {
    auto [At, FC] = Term(F);
    if (At.Kind != FirstAtom.Kind)
      return shared(spellAccess(*First.A) + " and " + spellAccess(*F.A) +
                    " mix the thread id and a grid-stride loop counter: not "
                    "proven");
    if (FC != C)
      return shared(spellAccess(*First.A) + " and " + spellAccess(*F.A) +
                    " overlap between threads (strides " +
                    std::to_string(C) + " and " + std::to_string(FC) + ")");
    if (F.Form.Const < Lo->Form.Const)
      Lo = &F;
    if (F.Form.Const > Hi->Form.Const)
      Hi = &F;
  }
  // Offsets spanning less than |C| keep the elements of distinct G apart.
  unsigned long long Span = static_cast<unsigned long long>(Hi->Form.Const) -
                            static_cast<unsigned long long>(Lo->Form.Const);
  unsigned long long Stride =
      C < 0 ? 0ULL - static_cast<unsigned long long>(C)
            : static_cast<unsigned long long>(C);
  if (Span >= Stride)
    return shared(spellAccess(*Lo->A) + " and " + spellAccess(*Hi->A) +
                  " overlap between neighbouring threads");
  std::set<long long> Offsets;
  for (const FormedAccess &F : All)
    Offsets.insert(F.Form.Const);
  std::string List;
  for (long long D : Offsets)
    List += (List.empty() ? "" : ", ") + std::to_string(D);
  bool IsGridStride = FirstAtom.Kind == AtomKind::GridStride;
  std::string Name =
      IsGridStride ? static_cast<const Var *>(FirstAtom.Key)->getName() : "gid";
  std::string Why = "every access is " + spellTerm(C, Name) + " + {" + List +
                    "}";
  if (IsGridStride)
    Why += " with " + Name + " a grid-stride loop counter";
  OwnershipResult R{OwnershipClass::ThreadExclusive, Why};
  R.LaunchDims = 1;
  return R;
}

//===----------------------------------------------------------------------===//
// OwnershipAnalysis
//===----------------------------------------------------------------------===//

OwnershipAnalysis::OwnershipAnalysis(const Function &Kernel) : Kernel(Kernel) {
  if (!Kernel.getBody())
    return;
  AccessCollector Collector(Kernel);
  IndexEvaluator Evaluator(Kernel);
  static const std::vector<Access> None;
  for (const Var *P : Kernel.getParams()) {
    if (!P->getType()->isPointer())
      continue;
    auto Escaped = Collector.Escapes.find(P);
    if (Escaped != Collector.Escapes.end()) {
      Results[P] = {OwnershipClass::Shared, Escaped->second};
      continue;
    }
    auto It = Collector.Accesses.find(P);
    Classifier C(*P, Evaluator);
    Results[P] = C.classify(It == Collector.Accesses.end() ? None : It->second);
  }
}

OwnershipResult OwnershipAnalysis::classify(const Var *Param) const {
  auto It = Results.find(Param);
  if (It != Results.end())
    return It->second;
  if (!Param || Kernel.getParamIndex(Param) < 0)
    return {OwnershipClass::Shared, "not a parameter of the kernel"};
  return {OwnershipClass::Shared,
          Param->getName() + " is not an array parameter of a kernel"};
}
