//===- AD/Analysis/InvertibleUpdates.cpp - Undo instead of tape -----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Analysis/InvertibleUpdates.h"
#include "AD/Analysis/Activity.h"
#include "IR/Traversal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

namespace {

/// The updates of a local V that have an inverse, and those that do not.
struct UpdateForm {
  AssignOp Op;
  bool Invertible;
  AssignOp Undo;
  const char *WhyNot;
};

const UpdateForm UpdateForms[] = {
    {AssignOp::MulAssign, true, AssignOp::DivAssign, ""},
    {AssignOp::DivAssign, true, AssignOp::MulAssign, ""},
    // V = V * F, V = F * V, V = L with L = V * F: undone by V /= F.
    {AssignOp::Assign, true, AssignOp::DivAssign, ""},
    {AssignOp::AddAssign, false, AssignOp::SubAssign,
     "an additive update is not undone exactly in floating point"},
    {AssignOp::SubAssign, false, AssignOp::AddAssign,
     "an additive update is not undone exactly in floating point"},
};

/// How a math function maps the bounds of its arguments.
enum class BoundShape { Increasing, Min, Max, Abs };

struct FunctionBound {
  const char *Name;
  BoundShape Shape;
  double (*Fn)(double);
};

double expOf(double X) { return std::exp(X); }
double sqrtOf(double X) { return std::sqrt(std::max(X, 0.0)); }

const FunctionBound FunctionBounds[] = {
    {"exp", BoundShape::Increasing, expOf},
    {"expf", BoundShape::Increasing, expOf},
    {"__expf", BoundShape::Increasing, expOf},
    {"sqrt", BoundShape::Increasing, sqrtOf},
    {"sqrtf", BoundShape::Increasing, sqrtOf},
    {"fmin", BoundShape::Min, nullptr},
    {"fminf", BoundShape::Min, nullptr},
    {"min", BoundShape::Min, nullptr},
    {"fmax", BoundShape::Max, nullptr},
    {"fmaxf", BoundShape::Max, nullptr},
    {"max", BoundShape::Max, nullptr},
    {"fabs", BoundShape::Abs, nullptr},
    {"fabsf", BoundShape::Abs, nullptr},
};

const Expr *stripCasts(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  return E;
}

bool refersTo(const Expr *E, const Var *V) {
  const auto *R = dyn_cast<VarRefExpr>(stripCasts(E));
  return R && R->getVar() == V;
}

/// The interval of a product or quotient from its corner values.
ValueRange corners(double A, double B, double C, double D) {
  double Lo = std::min({A, B, C, D}), Hi = std::max({A, B, C, D});
  if (std::isnan(Lo) || std::isnan(Hi))
    return ValueRange::all();
  return {Lo, Hi};
}

ValueRange arithmetic(BinaryOp Op, ValueRange L, ValueRange R) {
  switch (Op) {
  case BinaryOp::Add:
    return {L.Lo + R.Lo, L.Hi + R.Hi};
  case BinaryOp::Sub:
    return {L.Lo - R.Hi, L.Hi - R.Lo};
  case BinaryOp::Mul:
    return corners(L.Lo * R.Lo, L.Lo * R.Hi, L.Hi * R.Lo, L.Hi * R.Hi);
  case BinaryOp::Div:
    if (!R.excludesZero())
      return ValueRange::all();
    return corners(L.Lo / R.Lo, L.Lo / R.Hi, L.Hi / R.Lo, L.Hi / R.Hi);
  default:
    return ValueRange::all();
  }
}

std::string formatRange(ValueRange R) {
  auto Num = [](double X) {
    if (std::isinf(X))
      return std::string(X > 0 ? "inf" : "-inf");
    char Buf[32];
    std::snprintf(Buf, sizeof Buf, "%g", X);
    return std::string(Buf);
  };
  return "[" + Num(R.Lo) + ", " + Num(R.Hi) + "]";
}

} // namespace

ValueRange ValueRange::all() {
  double Inf = std::numeric_limits<double>::infinity();
  return {-Inf, Inf};
}

InvertibleUpdates::InvertibleUpdates(const Stmt &FunctionBody) {
  collect(&FunctionBody, 0);
  forEachStmt(&FunctionBody, [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *U = dyn_cast<UnaryExpr>(X);
        if (U && U->getOp() == UnaryOp::AddrOf)
          if (const Var *Root = ActivityAnalysis::getRootVar(U->getSub()))
            AddressTaken.insert(Root);
      });
  });
}

void InvertibleUpdates::collect(const Stmt *S, unsigned LoopDepth) {
  if (!S)
    return;
  auto Def = [&](const Var *V, const Expr *Value) {
    if (++Defs[V] == 1)
      Init[V] = Value;
    if (LoopDepth > 0)
      ++LoopDefs[V];
  };
  if (const auto *D = dyn_cast<DeclStmt>(S)) {
    if (D->getInit())
      Def(D->getVar(), D->getInit());
  } else if (const auto *A = dyn_cast<AssignStmt>(S)) {
    if (const auto *R = dyn_cast<VarRefExpr>(A->getLHS()))
      Def(R->getVar(), A->getOp() == AssignOp::Assign ? A->getRHS() : nullptr);
  } else if (const auto *Blk = dyn_cast<BlockStmt>(S)) {
    for (const Stmt *Sub : Blk->getBody())
      collect(Sub, LoopDepth);
  } else if (const auto *I = dyn_cast<IfStmt>(S)) {
    collect(I->getThen(), LoopDepth);
    collect(I->getElse(), LoopDepth);
  } else if (const auto *F = dyn_cast<ForStmt>(S)) {
    collect(F->getInit(), LoopDepth);
    collect(F->getInc(), LoopDepth + 1);
    collect(F->getBody(), LoopDepth + 1);
  } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
    collect(W->getBody(), LoopDepth + 1);
  } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
    collect(Do->getBody(), LoopDepth + 1);
  }
}

const Expr *InvertibleUpdates::factorOf(const Var *V,
                                        const Expr *Product) const {
  if (!Product)
    return nullptr;
  const auto *Mul = dyn_cast<BinaryExpr>(stripCasts(Product));
  if (!Mul || Mul->getOp() != BinaryOp::Mul)
    return nullptr;
  if (refersTo(Mul->getLHS(), V))
    return Mul->getRHS();
  if (refersTo(Mul->getRHS(), V))
    return Mul->getLHS();
  return nullptr;
}

bool InvertibleUpdates::isSteady(const Expr *F, const Var *V,
                                 std::vector<const Var *> &Reads) const {
  bool Steady = true;
  forEachExpr(F, [&](const Expr *X) {
    if (const auto *R = dyn_cast<VarRefExpr>(X)) {
      const Var *W = R->getVar();
      unsigned N = Defs.lookup(W);
      bool Fixed = W != V && !AddressTaken.count(W) && !W->isGlobal() &&
                   !W->isShared() && !W->getType()->isPointer() &&
                   (W->isParam() ? N == 0 : N == 1);
      Steady &= Fixed;
      if (Fixed && !W->isParam() &&
          std::find(Reads.begin(), Reads.end(), W) == Reads.end())
        Reads.push_back(W);
    } else if (const auto *C = dyn_cast<CallExpr>(X)) {
      Steady &= C->getCalleeKind() == CallExpr::CalleeKind::Math;
    } else if (llvm::isa<IndexExpr>(X) || llvm::isa<MemberExpr>(X) ||
               llvm::isa<InitListExpr>(X) ||
               (llvm::isa<UnaryExpr>(X) &&
                cast<UnaryExpr>(X)->getOp() != UnaryOp::Neg)) {
      Steady = false;
    }
  });
  return Steady;
}

std::optional<InvertibleUpdates::Inverse>
InvertibleUpdates::find(const Expr *LHS, AssignOp Op, const Expr *RHS,
                        std::string &WhyNot) const {
  WhyNot.clear();
  const auto *Ref = dyn_cast<VarRefExpr>(LHS);
  if (!Ref || !Ref->getType()->isFloatingScalar() || !RHS)
    return std::nullopt;
  const Var *V = Ref->getVar();
  const UpdateForm *Form = nullptr;
  for (const UpdateForm &U : UpdateForms)
    if (U.Op == Op)
      Form = &U;
  if (!Form)
    return std::nullopt;
  if (!Form->Invertible) {
    WhyNot = Form->WhyNot;
    return std::nullopt;
  }
  const Expr *F = RHS;
  if (Op == AssignOp::Assign) {
    F = factorOf(V, RHS);
    const auto *L = dyn_cast<VarRefExpr>(stripCasts(RHS));
    // V = L where L = V * F, and this is V's only update in a loop: V has
    // not changed between L's definition and here.
    if (!F && L && Defs.lookup(L->getVar()) == 1 &&
        LoopDefs.lookup(V) == 1 && !AddressTaken.count(L->getVar()))
      F = factorOf(V, Init.lookup(L->getVar()));
    if (!F)
      return std::nullopt;
  }
  Inverse Inv{V, Form->Undo, F, {}, ""};
  if (AddressTaken.count(V) || !isSteady(F, V, Inv.Reads)) {
    WhyNot = "its factor may change before the reverse sweep would undo it";
    return std::nullopt;
  }
  ValueRange R = bound(F);
  if (!R.excludesZero()) {
    WhyNot = "its factor is not proven nonzero (bound " + formatRange(R) + ")";
    return std::nullopt;
  }
  Inv.Why = "the factor lies in " + formatRange(R);
  return Inv;
}

ValueRange InvertibleUpdates::bound(const Expr *E, unsigned Depth) const {
  if (!E || Depth > 8)
    return ValueRange::all();
  E = stripCasts(E);
  if (const auto *F = dyn_cast<FloatLitExpr>(E))
    return {F->getValue(), F->getValue()};
  if (const auto *I = dyn_cast<IntLitExpr>(E))
    return {double(I->getValue()), double(I->getValue())};
  if (const auto *R = dyn_cast<VarRefExpr>(E)) {
    const Var *V = R->getVar();
    if (Defs.lookup(V) == 1 && !V->isParam() && !AddressTaken.count(V))
      return bound(Init.lookup(V), Depth + 1);
    return ValueRange::all();
  }
  if (const auto *U = dyn_cast<UnaryExpr>(E)) {
    if (U->getOp() != UnaryOp::Neg)
      return ValueRange::all();
    ValueRange S = bound(U->getSub(), Depth + 1);
    return {-S.Hi, -S.Lo};
  }
  if (const auto *Bin = dyn_cast<BinaryExpr>(E))
    return arithmetic(Bin->getOp(), bound(Bin->getLHS(), Depth + 1),
                      bound(Bin->getRHS(), Depth + 1));
  const auto *C = dyn_cast<CallExpr>(E);
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::Math)
    return ValueRange::all();
  for (const FunctionBound &FB : FunctionBounds) {
    if (C->getName() != FB.Name)
      continue;
    std::vector<ValueRange> A;
    for (const Expr *Arg : C->getArgs())
      A.push_back(bound(Arg, Depth + 1));
    if (FB.Shape == BoundShape::Increasing && A.size() == 1)
      return {FB.Fn(A[0].Lo), FB.Fn(A[0].Hi)};
    if (FB.Shape == BoundShape::Min && A.size() == 2)
      return {std::min(A[0].Lo, A[1].Lo), std::min(A[0].Hi, A[1].Hi)};
    if (FB.Shape == BoundShape::Max && A.size() == 2)
      return {std::max(A[0].Lo, A[1].Lo), std::max(A[0].Hi, A[1].Hi)};
    if (FB.Shape == BoundShape::Abs && A.size() == 1)
      return {A[0].excludesZero() ? std::min(std::fabs(A[0].Lo),
                                             std::fabs(A[0].Hi))
                                  : 0.0,
              std::max(std::fabs(A[0].Lo), std::fabs(A[0].Hi))};
  }
  return ValueRange::all();
}
