//===- Lower/LowerLoopReturns.cpp - return inside loops -------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A `return` inside a loop leaves every loop around it at once; the IR's
/// reverse sweep handles `break` and returns outside loops, so such a
/// function is lowered as one written that way by hand:
///
/// \code
///   for (...) {              // bool returned = false; double result;
///     if (c) return v;       // for (...) { if (c) { result = v;
///   }                        //   returned = true; break; } }
///   return w;                // if (returned) return result;  return w;
/// \endcode
///
/// (after an inner loop, `if (returned) break;` leaves the next one out).
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "clang/AST/Decl.h"

using namespace meshad;
using namespace clang;

namespace {

bool isLoop(const Stmt *St) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(St);
}

/// True when \p St contains a `return` (\p InLoop: one inside a loop).
bool containsReturn(const Stmt *St, bool InLoop) {
  if (!St || isa<LambdaExpr>(St))
    return false;
  if (isa<ReturnStmt>(St))
    return InLoop;
  bool Inner = InLoop || isLoop(St);
  for (const Stmt *Child : St->children())
    if (containsReturn(Child, Inner))
      return true;
  return false;
}

} // namespace

ir::BlockStmt *StmtLowering::lowerBody(const CompoundStmt *CS,
                                       const FunctionDecl *FD) {
  LoopReturns Saved = std::exchange(Returns, LoopReturns());
  ir::TypeContext &TC = S.M.getTypes();
  SourceLocation Loc = CS->getBeginLoc();
  std::vector<const ir::Stmt *> Decls;
  if (containsReturn(CS, false)) {
    Returns.Returned = S.M.createVar(Exprs.uniqueName("returned"),
                                     TC.getBool());
    Decls.push_back(S.make<ir::DeclStmt>(
        Loc, Returns.Returned, S.make<ir::BoolLitExpr>(Loc, TC.getBool(),
                                                       false)));
    const ir::Type *Ty = Types.lowerType(FD->getReturnType());
    if (!Ty->isVoid()) {
      Returns.Result = S.M.createVar(Exprs.uniqueName("result"),
                                     Ty->getUnqualified());
      Decls.push_back(S.make<ir::DeclStmt>(Loc, Returns.Result, nullptr));
    }
  }
  ir::BlockStmt *Body = lowerBlock(CS);
  Returns = Saved;
  if (Body && !Decls.empty()) {
    Decls.insert(Decls.end(), Body->getBody().begin(), Body->getBody().end());
    Body->setBody(std::move(Decls));
  }
  return Body;
}

bool StmtLowering::lowerLoopReturn(const ReturnStmt *RS, ir::BlockStmt *B) {
  SourceLocation Loc = RS->getBeginLoc();
  if (const Expr *E = RS->getRetValue()) {
    if (!checkSequencing(E))
      return false;
    const ir::Expr *Value = Exprs.lowerRoot(E);
    if (!Value || !Returns.Result)
      return false;
    emit(B, S.make<ir::AssignStmt>(
                Loc, S.make<ir::VarRefExpr>(Loc, Returns.Result),
                ir::AssignOp::Assign,
                Exprs.convert(Value, Returns.Result->getType(), Loc)));
  }
  const ir::Type *Bool = S.M.getTypes().getBool();
  emit(B, S.make<ir::AssignStmt>(Loc,
                                 S.make<ir::VarRefExpr>(Loc, Returns.Returned),
                                 ir::AssignOp::Assign,
                                 S.make<ir::BoolLitExpr>(Loc, Bool, true)));
  emit(B, S.make<ir::BreakStmt>(Loc));
  return true;
}

bool StmtLowering::lowerLoop(const Stmt *St, ir::BlockStmt *B) {
  ++Returns.Depth;
  const ir::Stmt *Loop = lowerControl(St);
  --Returns.Depth;
  if (!Loop)
    return false;
  emit(B, Loop);
  if (!Returns.Returned || !containsReturn(St, true))
    return true;
  // Leave the next loop out too, or return from the function.
  SourceLocation Loc = St->getEndLoc();
  auto *Then = S.make<ir::BlockStmt>(Loc);
  if (Returns.Depth > 0)
    Then->append(S.make<ir::BreakStmt>(Loc));
  else
    Then->append(S.make<ir::ReturnStmt>(
        Loc, Returns.Result ? S.make<ir::VarRefExpr>(Loc, Returns.Result)
                            : nullptr));
  B->append(S.make<ir::IfStmt>(
      Loc, S.make<ir::VarRefExpr>(Loc, Returns.Returned), Then, nullptr));
  return true;
}
