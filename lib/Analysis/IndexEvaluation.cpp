//===- Analysis/IndexEvaluation.cpp - Expressions as affine forms ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The part of IndexEvaluator that walks a kernel once (definitions, canonical
/// loops, taken addresses) and evaluates its integer expressions: literals,
/// CUDA built-ins, unary and binary operators; a non-affine expression over
/// thread-independent values is an opaque symbol, with what is known of it
/// (stable, invariant, non-negative).
///
//===----------------------------------------------------------------------===//

#include "AD/Analysis/Activity.h"
#include "Analysis/IRWalk.h"
#include "Analysis/IndexForms.h"
#include "Analysis/SweepDefs.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using llvm::cast;
using llvm::dyn_cast;

IndexEvaluator::IndexEvaluator(const Function &Kernel)
    : Sweeps(std::make_shared<SweepDefs>(Kernel)) {
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
