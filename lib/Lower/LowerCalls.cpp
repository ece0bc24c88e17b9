//===- Lower/LowerCalls.cpp - Calls to IR ---------------------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Calls: user functions (lowered on demand), math functions with derivative
/// rules, intrinsics and operators the user wrote as free functions; the
/// errors for member functions, operator() without a visible definition and
/// calls through pointers; hoisting a call with side effects out of a nested
/// expression into a temporary.
///
//===----------------------------------------------------------------------===//

#include "IR/Intrinsics.h"
#include "Lower/LoweringImpl.h"
#include "Rules/DerivativeRules.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace meshad;
using namespace clang;

const ir::Expr *ExprLowering::lowerCall(const CallExpr *E) {
  SourceLocation Loc = E->getExprLoc();
  // Member functions and struct-valued calls: LowerInline.cpp.
  if (InlineCall && isInlinedCall(S, E))
    return InlineCall(E);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const Expr *Obj = MC->getImplicitObjectArgument();
    std::string Container = thrustContainerProblem(
        Obj ? Obj->IgnoreImpCasts()->getType() : MC->getObjectType());
    return S.fail(Loc, !Container.empty()
                           ? Container
                           : "meshad: member function calls are not "
                             "supported yet; write a free function that "
                             "takes the object");
  }
  if (isa<CUDAKernelCallExpr>(E))
    return S.fail(Loc, "meshad: kernel launches are not supported");
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E))
    return lowerOperatorCall(OC);
  const FunctionDecl *FD = E->getDirectCallee();
  const auto *Ref =
      dyn_cast<DeclRefExpr>(E->getCallee()->IgnoreParenImpCasts());
  if (!FD || !Ref)
    return S.fail(Loc, "meshad: calls through function pointers are not "
                       "supported");
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    std::string Container = thrustContainerProblem(
        MD->getASTContext().getCanonicalTagType(MD->getParent()));
    return S.fail(Loc, !Container.empty()
                           ? Container
                           : "meshad: member function calls are not "
                             "supported yet; write a free function that "
                             "takes the object");
  }
  if (isDiagnosticFunction(FD))
    return S.fail(Loc, Twine("meshad: '") + FD->getName() +
                           "' can be left out of a derivative only as a "
                           "statement of its own whose arguments have no "
                           "side effects");
  return lowerDirectCall(E, FD, Ref);
}

const ir::Expr *
ExprLowering::lowerOperatorCall(const CXXOperatorCallExpr *OC) {
  SourceLocation Loc = OC->getExprLoc();
  // An operator the user wrote as a free function (helper_math.h's
  // `float3 operator+(float3, float3)`): a call of that function.
  const FunctionDecl *Op = OC->getDirectCallee();
  if (Op && !isa<CXXMethodDecl>(Op) && isUserFunction(Op))
    return lowerDirectCall(OC, Op, nullptr);
  if (OC->isAssignmentOp())
    return lowerNestedUpdate(OC, OC->getArg(0), /*Post=*/false);
  if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op);
      MD && OC->getOperator() == OO_Call && isUserFunction(MD))
    return lowerCallOperator(OC, MD);
  if (OC->getOperator() == OO_Call)
    return S.fail(Loc, Twine("meshad: calls of operator() on '") +
                           OC->getArg(0)->getType().getUnqualifiedType()
                               .getAsString(S.Policy) +
                           "' are not supported: its definition is not "
                           "visible; call a free function that takes the "
                           "members");
  return S.fail(Loc, Twine("meshad: overloaded operator '") +
                         getOperatorSpelling(OC->getOperator()) + "' on '" +
                         OC->getArg(0)->getType().getAsString(S.Policy) +
                         "' is not supported; define it as a free "
                         "function (__device__ double3 operator+(double3 "
                         "a, double3 b)) or write the arithmetic on the "
                         "members (make_double3(a.x + b.x, ...))");
}

const ir::Expr *ExprLowering::lowerDirectCall(const CallExpr *E,
                                              const FunctionDecl *FD,
                                              const DeclRefExpr *Ref) {
  SourceLocation Loc = E->getExprLoc();
  if (isThrustFunction(FD))
    return lowerThrustCall(E, FD);
  std::vector<const ir::Expr *> Args;
  if (!lowerArgs(E, Args))
    return nullptr;
  const ir::Type *Ty = Types.lowerType(E->getType())->getUnqualified();
  if (isUserFunction(FD)) {
    ir::Function *Callee = LowerCallee(FD);
    if (!Callee) {
      S.Diags.note(Loc, "meshad: called from here");
      return nullptr;
    }
    return hoistIfNested(E, S.make<ir::CallExpr>(Loc, Ty, Callee, Args));
  }
  std::string Name = getSpelledCallee(Ref);
  StringRef Base(Name);
  Base.consume_front("::");
  Base.consume_front("std::");
  bool FloatingArgs = llvm::any_of(Args, [](const ir::Expr *A) {
    return A->getType()->isFloatingScalar();
  });
  int MathId = RuleTable::get().lookup(Base.str(), FloatingArgs);
  auto Kind = MathId >= 0 ? ir::CallExpr::CalleeKind::Math
                          : ir::CallExpr::CalleeKind::Intrinsic;
  const ir::Expr *Call =
      S.make<ir::CallExpr>(Loc, Ty, Kind, Name, MathId, std::move(Args));
  // Atomics have side effects; other intrinsics are treated as pure.
  const ir::IntrinsicInfo *Info = ir::lookupIntrinsic(Base);
  return Info && Info->isAtomic() ? hoistIfNested(E, Call) : Call;
}

bool ExprLowering::lowerArgs(const CallExpr *E,
                             std::vector<const ir::Expr *> &Out) {
  bool Ok = true;
  const FunctionDecl *FD = E->getDirectCallee();
  for (unsigned I = 0, N = E->getNumArgs(); I != N; ++I) {
    const Expr *Arg = E->getArg(I);
    bool ByRef = FD && I < FD->getNumParams() &&
                 isMutableReference(FD->getParamDecl(I)->getType());
    const ir::Expr *Lowered = ByRef ? lowerReferenceArg(Arg, FD) : lower(Arg);
    Ok &= Lowered != nullptr;
    Out.push_back(Lowered);
  }
  return Ok;
}

bool ExprLowering::isUserFunction(const FunctionDecl *FD) const {
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def) {
    // An implicit instantiation whose pattern is user code.
    const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
    Def = Pattern ? Pattern->getDefinition() : nullptr;
  }
  return Def && !S.Ctx.getSourceManager().isInSystemHeader(Def->getLocation());
}

std::string ExprLowering::getSpelledCallee(const DeclRefExpr *Ref) const {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  if (Ref->hasQualifier())
    Ref->getQualifier().print(OS, S.Policy);
  OS << Ref->getNameInfo().getAsString();
  if (Ref->hasExplicitTemplateArgs())
    printTemplateArgumentList(OS, Ref->template_arguments(), S.Policy);
  return Name;
}

const ir::Expr *ExprLowering::hoistIfNested(const Expr *E,
                                            const ir::Expr *Call) {
  if (E == Scope.Root)
    return Call;
  SourceLocation Loc = E->getExprLoc();
  if (Scope.NoHoistContext)
    return S.fail(Loc, Twine("meshad: a call with side effects ") +
                           Scope.NoHoistContext + " is not supported");
  if (Call->getType()->isVoid())
    return S.fail(Loc, "meshad: a call to a void function inside an "
                       "expression is not supported");
  ir::Var *Temp = S.M.createVar(Scope.Names.numbered("_t"), Call->getType());
  Scope.Hoisted.push_back(S.make<ir::DeclStmt>(Loc, Temp, Call));
  return S.make<ir::VarRefExpr>(Loc, Temp);
}
