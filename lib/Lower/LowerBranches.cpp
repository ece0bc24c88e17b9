//===- Lower/LowerBranches.cpp - Calls in conditionally run operands ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// User calls in the IR are the root of a statement: a call nested in an
/// expression is hoisted into a temporary before it. In a branch of `?:` or
/// on the right of `&&` / `||` that would run the call when the C++ does
/// not, so such operands become an if-statement that sets a temporary:
///
/// \code
///   r = c ? h(x) : b;        // double _t0; if (c) { _t0 = h(x); }
///                            //             else { _t0 = b; }  r = _t0;
///   if (a > 0 && h(b) > 1)   // bool _t1; if (a > 0) { double _t2 = h(b);
///                            //   _t1 = _t2 > 1; } else { _t1 = false; }
/// \endcode
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

using namespace clang;
using namespace meshad;


const ir::Expr *
ExprLowering::lowerCaptured(const Expr *E,
                            std::vector<const ir::Stmt *> &Hoisted) {
  std::vector<const ir::Stmt *> Outer = std::exchange(Scope.Hoisted, {});
  const ir::Expr *Result = lower(E);
  Hoisted = std::exchange(Scope.Hoisted, std::move(Outer));
  return Result;
}

const ir::Expr *ExprLowering::selectHoisted(
    SourceLocation Loc, const ir::Type *Ty, const ir::Expr *Cond,
    const ir::Expr *T, std::vector<const ir::Stmt *> HT, const ir::Expr *F,
    std::vector<const ir::Stmt *> HF, const char *Context) {
  if (Scope.NoHoistContext)
    return S.fail(Loc, Twine("meshad: a call with side effects ") +
                           Scope.NoHoistContext + " is not supported");
  (void)Context;
  ir::Var *Temp =
      S.M.createVar(Scope.Names.numbered("_t"), Ty->getUnqualified());
  auto Branch = [&](std::vector<const ir::Stmt *> Stmts, const ir::Expr *V) {
    Stmts.push_back(S.make<ir::AssignStmt>(Loc, S.make<ir::VarRefExpr>(Loc, Temp),
                                           ir::AssignOp::Assign,
                                           convert(V, Ty, Loc)));
    return S.make<ir::BlockStmt>(Loc, std::move(Stmts));
  };
  Scope.Hoisted.push_back(S.make<ir::DeclStmt>(Loc, Temp, nullptr));
  Scope.Hoisted.push_back(S.make<ir::IfStmt>(
      Loc, Cond, Branch(std::move(HT), T), Branch(std::move(HF), F)));
  return S.make<ir::VarRefExpr>(Loc, Temp);
}

const ir::Expr *ExprLowering::lowerConditional(const ConditionalOperator *E) {
  const char *Context = "in a branch of '?:'";
  const ir::Expr *Cond = lower(E->getCond());
  std::vector<const ir::Stmt *> HT, HF;
  const ir::Expr *True = lowerCaptured(E->getTrueExpr(), HT);
  const ir::Expr *False = lowerCaptured(E->getFalseExpr(), HF);
  if (!Cond || !True || !False)
    return nullptr;
  const ir::Type *Ty = Types.lowerType(E->getType());
  if (!HT.empty() || !HF.empty())
    return selectHoisted(E->getExprLoc(), Ty, Cond, True, std::move(HT),
                         False, std::move(HF), Context);
  return S.make<ir::ConditionalExpr>(E->getExprLoc(), Ty, Cond, True, False);
}

const ir::Expr *ExprLowering::lowerShortCircuit(const BinaryOperator *E,
                                                ir::BinaryOp Op) {
  SourceLocation Loc = E->getExprLoc();
  const ir::Expr *LHS = lower(E->getLHS());
  std::vector<const ir::Stmt *> HR;
  const ir::Expr *RHS = lowerCaptured(E->getRHS(), HR);
  if (!LHS || !RHS)
    return nullptr;
  const ir::Type *Ty = Types.lowerType(E->getType());
  if (HR.empty())
    return S.make<ir::BinaryExpr>(Loc, Ty, Op, LHS, RHS);
  // a && b is a ? b : false; a || b is a ? true : b.
  const ir::Expr *Other =
      S.make<ir::BoolLitExpr>(Loc, Ty, Op == ir::BinaryOp::LOr);
  if (Op == ir::BinaryOp::LAnd)
    return selectHoisted(Loc, Ty, LHS, RHS, std::move(HR), Other, {},
                         "on the right of '&&'");
  return selectHoisted(Loc, Ty, LHS, Other, {}, RHS, std::move(HR),
                       "on the right of '||'");
}
