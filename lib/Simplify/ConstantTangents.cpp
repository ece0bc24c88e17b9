//===- Simplify/ConstantTangents.cpp - Propagating 0/1 tangents -----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Forward mode declares a tangent for every active local, `double _d_dx =
/// 0.;` when its seed is zero and `= 1.` for the seeded one; many are never
/// written again. A local is constant when it is a floating scalar local,
/// declared once, with a literal 0 or 1, never assigned (by name, through a
/// component, by ++/--), its address never taken and never passed by name
/// to a call (which might bind a reference). Then every read sees the
/// literal: C++ scoping puts every read after the declaration, and a
/// declaration in a loop sets the same value each iteration.
///
//===----------------------------------------------------------------------===//

#include "IR/Builder.h"
#include "IR/Traversal.h"
#include "Simplify/Passes.h"
#include "Simplify/SimplifyUtils.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::simplify;
using llvm::dyn_cast;

/// The value of a literal 0 or 1 (sign of zero kept), possibly under casts.
static std::optional<double> zeroOrOne(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E)) {
    if (!isScalarArithmetic(C->getType()))
      return std::nullopt;
    E = C->getSub();
  }
  double V;
  if (const auto *F = dyn_cast<FloatLitExpr>(E))
    V = F->getValue();
  else if (const auto *I = dyn_cast<IntLitExpr>(E))
    V = static_cast<double>(I->getValue());
  else
    return std::nullopt;
  if (V == 0.0 || V == 1.0)
    return V;
  return std::nullopt;
}

bool simplify::propagateConstants(Module &M, Function &F) {
  if (!F.getBody())
    return false;
  VarFacts Facts(F);
  llvm::DenseMap<const Var *, double> Constants;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    const auto *D = dyn_cast<DeclStmt>(S);
    if (!D || !D->getInit())
      return;
    const Var *V = D->getVar();
    if (!Facts.isPlainLocal(V) || !V->getType()->isFloatingScalar() ||
        Facts.decls(V) != 1 || Facts.writes(V) != 0)
      return;
    if (std::optional<double> C = zeroOrOne(D->getInit()))
      Constants[V] = *C;
  });
  if (Constants.empty())
    return false;
  IRBuilder B(M);
  return rewriteFunctionExprs(M, F, [&](const Expr *E) {
    return rebuildBottomUp(M, E, [&](const Expr *X) -> const Expr * {
      const auto *R = dyn_cast<VarRefExpr>(X);
      if (!R)
        return X;
      auto It = Constants.find(R->getVar());
      if (It == Constants.end())
        return X;
      return B.floatLit(R->getVar()->getType()->getUnqualified(),
                        It->second);
    });
  });
}
