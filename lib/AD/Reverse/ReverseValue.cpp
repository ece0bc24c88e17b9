//===- AD/Reverse/ReverseValue.cpp - Value and gradient in one call -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad::WithValue: a gradient that also leaves the primal's results.
/// - a function returning a value returns it (the forward sweep copies each
///   returned value into `_value`, the gradient ends with `return _value;`);
/// - a kernel keeps its stores to outputs it only writes (`y[i] = v`,
///   `atomicAdd(E, e)`), which the forward sweep otherwise leaves out; the
///   seeds stay in the adjoint buffers (`_d_y`, `_d_E`), separate memory;
/// - memory the caller sees that the reverse sweep would restore (an
///   overwritten value the derivative reads, a callee's logged writes) is
///   an error at the store: afterwards it would hold its initial contents;
/// - host functions that launch kernels keep what the forward sweep's
///   launches computed: the gradient kernels write only the function's own
///   device buffers (a launch whose gradient kernel writes memory the caller
///   sees again is an error at the launch, ReverseHost.cpp).
///
//===----------------------------------------------------------------------===//

#include "AD/Reverse/ReverseFunction.h"
#include "AD/Reverse/RecordingPrimal.h"
#include "Analysis/IRWalk.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

static const char *const Option = "meshad::WithValue: ";

/// Memory the caller may see: reached through a pointer or a parameter
/// (local arrays are the function's own).
static bool isCallerVisible(const Var *Root) {
  return Root && (Root->isParam() || Root->getType()->isPointer());
}

bool ReverseFunction::prepareValue() {
  if (!WithValue)
    return true;
  const Type *RetTy = Primal->getReturnType()->getUnqualified();
  if (!RetTy->isVoid()) {
    if (!RetTy->isFloatingScalar() && !RetTy->isIntegral()) {
      error(RequestLoc, std::string(Option) + "'" + Primal->getName() +
                            "' returns a value that is neither a "
                            "floating-point number nor an integer; the "
                            "gradient can return only those");
      return false;
    }
    ReturnValue = M.createVar(Names.unique("_value"), RetTy,
                              Var::Storage::Local, VarRoles::Temporary);
    Decls->append(B.decl(ReturnValue, B.zero(RetTy)));
  }
  for (const Var *Out : Primal->getParams())
    if (WriteOnly.count(Out))
      Diags.remark(RequestLoc,
                   std::string(Option) + "'" + Out->getName() +
                       "' is left with the primal's values (its stores are "
                       "kept); its seed is read from the adjoint argument, "
                       "which must be a separate buffer");
  return !Failed;
}

void ReverseFunction::checkSeparateSeeds(BlockStmt *Setup) {
  if (!WithValue)
    return;
  for (Var *Out : Primal->getParams()) {
    if (!WriteOnly.count(Out) || !Out->getType()->isPointer() ||
        !Activity->isActive(Out))
      continue;
    Setup->append(M.create<ExprStmt>(M.create<CallExpr>(
        M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
        "meshad::requireSeparateSeed", -1,
        std::vector<const Expr *>{B.ref(Out), B.ref(adjointVar(Out))})));
  }
}

bool ReverseFunction::dropsStoreTo(const Var *Root) const {
  return !WithValue && WriteOnly.count(Root);
}

void ReverseFunction::checkValueKept(const Expr *LValue,
                                     clang::SourceLocation Loc) {
  if (!WithValue || llvm::isa<VarRefExpr>(LValue))
    return;
  const Var *Root = ActivityAnalysis::getRootVar(LValue);
  if (!isCallerVisible(Root))
    return;
  error(Loc, std::string(Option) + "the reverse sweep restores '" +
                 irwalk::spell(LValue) +
                 "' (the store overwrites a value that the derivative "
                 "reads), so '" + Root->getName() +
                 "' would hold its initial contents afterwards, not the "
                 "primal's result; compute the value in a local and store it "
                 "once, or request the gradient without meshad::WithValue");
}

void ReverseFunction::checkCalleeWritesKept(const CallExpr *C, unsigned I) {
  const Var *Root = ActivityAnalysis::getRootVar(C->getArg(I));
  if (!WithValue || !isCallerVisible(Root))
    return;
  error(C->getLoc(), std::string(Option) + "the call of '" +
                         C->getUserCallee()->getName() +
                         "' overwrites memory of '" + Root->getName() +
                         "' that the derivative reads, which the reverse "
                         "sweep restores after the call's pullback, so '" +
                         Root->getName() +
                         "' would hold its initial contents afterwards; "
                         "request the gradient without meshad::WithValue");
}

void ReverseFunction::recordReturnValue(const Expr *V,
                                        clang::SourceLocation Loc,
                                        BlockStmt *Fwd) {
  if (!ReturnValue || !V)
    return;
  bool Writes = false;
  forEachExpr(V, [&](const Expr *E) {
    const auto *C = dyn_cast<CallExpr>(E);
    if (!C || C->getCalleeKind() != CallExpr::CalleeKind::User)
      return;
    for (unsigned I = 0; I < C->getUserCallee()->getNumParams(); ++I)
      Writes |= RecordingPrimals::writesThroughParam(*C->getUserCallee(), I);
  });
  if (Writes) {
    error(Loc, std::string(Option) + "the returned value calls a function "
                                     "that writes memory through its "
                                     "arguments; assign the value to a local "
                                     "first and return the local");
    return;
  }
  AssignStmt *Copy = B.assign(B.ref(ReturnValue), AssignOp::Assign, V);
  Copy->setLoc(Loc);
  Fwd->append(Copy);
}

void ReverseFunction::finishValue(BlockStmt *Out) {
  if (ReturnValue)
    Out->append(M.create<ReturnStmt>(B.ref(ReturnValue)));
}
