//===- Lower/LowerFunctors.cpp - Calls of operator() ----------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Calls of a user-written `operator()` (issue 15, item 3): `f(x)` on a
/// functor struct or a lambda becomes a call of the lowered operator(),
/// which the modes differentiate like any callee.
/// - A functor (a class at namespace scope, trivially copyable, with a
///   const, non-virtual operator() and no mutable members): the operator's
///   first parameter `self` is the object, passed by value; `s` and
///   `this->s` in its body are `self.s`. The function is named
///   `<Class>_call`; a call of the primal is still spelled `f(x)`
///   (Emit/ExprEmitter), derivatives are `Scale_call_pushforward(f, x,
///   _d_x)`. A functor whose members carry derivatives is an error at the
///   call (DerivedFunctions' structArgMessage).
/// - A lambda (called by the name of the local it initializes, or where it
///   is written): its captures are the first parameters, named as the
///   captured variables and read at the call, so captured values carry
///   their derivatives. A value captured by copy must not change between
///   the lambda and its calls, and the body must not write a captured
///   variable. The function is named `<local>_lambda` and its primal is
///   emitted beside the derivatives that call it (Driver/Generator).
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace meshad;
using namespace clang;

namespace {

/// Looks through the wrappers around a lambda or functor object.
const Expr *skipObjectWrappers(const Expr *E) {
  while (true) {
    E = E->IgnoreImplicit()->IgnoreParens();
    const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
    if (!Ctor || Ctor->getNumArgs() != 1 ||
        !Ctor->getConstructor()->isCopyOrMoveConstructor())
      return E;
    E = Ctor->getArg(0);
  }
}

bool isLambdaOperator(const CXXMethodDecl *MD) {
  return MD->getParent()->isLambda();
}

/// The problem with a functor's class, or "".
std::string functorProblem(const CXXMethodDecl *MD,
                           const PrintingPolicy &Policy) {
  const CXXRecordDecl *RD = MD->getParent();
  std::string Class = MD->getFunctionObjectParameterType()
                          .getUnqualifiedType()
                          .getAsString(Policy);
  if (MD->isVirtual())
    return "meshad: calls of a virtual operator() are not supported; make "
           "'" + Class + "::operator()' non-virtual";
  if (MD->isStatic() || MD->isExplicitObjectMemberFunction())
    return "meshad: a static or explicit-object operator() is not "
           "supported; write a free function";
  if (!MD->isConst())
    return "meshad: operator() of '" + Class +
           "' is not const (a functor that updates its own members is not "
           "supported); make it const and return what it computes";
  if (!RD->getDeclContext()->getRedeclContext()->isFileContext())
    return "meshad: the functor '" + Class +
           "' is declared inside a function or class; declare it at "
           "namespace scope";
  if (!RD->isTriviallyCopyable())
    return "meshad: the functor '" + Class +
           "' is not trivially copyable; keep its members plain values";
  for (const FieldDecl *FD : RD->fields())
    if (FD->isMutable())
      return "meshad: the functor '" + Class + "' has the mutable member '" +
             FD->getNameAsString() +
             "', which operator() may update; remove 'mutable'";
  return "";
}

/// mayChange, except in the lambdas \p St holds: their by-reference
/// captures are no writes, and a lambda's writes to what it captures are
/// errors at its calls (lambdaProblem).
bool mayChangeOutsideLambdas(const Stmt *St, const VarDecl *VD) {
  if (!St || isa<LambdaExpr>(St))
    return false;
  if (isa<DeclRefExpr>(St))
    return mayChange(St, VD, nullptr);
  for (const Stmt *Child : St->children()) {
    if (isa_and_nonnull<DeclRefExpr>(Child) ? mayChange(Child, VD, St)
                                            : mayChangeOutsideLambdas(Child, VD))
      return true;
  }
  return false;
}

} // namespace

const LambdaExpr *meshad::getLambdaInit(const VarDecl *VD) {
  const Expr *Init = VD->getInit();
  return Init ? dyn_cast<LambdaExpr>(skipObjectWrappers(Init)) : nullptr;
}

//===----------------------------------------------------------------------===//
// The call
//===----------------------------------------------------------------------===//

std::string ExprLowering::lambdaProblem(const LambdaExpr *LE) {
  const CXXMethodDecl *MD = LE->getCallOperator();
  if (!MD->isConst())
    return "meshad: a mutable lambda (one that updates its own copies) is "
           "not supported; drop 'mutable' and return what it computes";
  for (const LambdaCapture &C : LE->captures()) {
    if (!C.capturesVariable())
      return "meshad: a lambda that captures 'this' is not supported; "
             "capture the members' values in locals first";
    const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar());
    if (!VD || LE->isInitCapture(&C))
      return "meshad: init-captures ([y = ...]) are not supported; declare "
             "a local and capture it";
    const ir::Type *Ty = Types.lowerType(VD->getType());
    if (!Ty->isFloatingScalar() && !Ty->isIntegral() && !Ty->isPointer() &&
        !Ty->isVector())
      return "meshad: the lambda captures '" + VD->getNameAsString() +
             "' of type '" + VD->getType().getAsString(S.Policy) +
             "'; captures of numbers, pointers and vectors are supported: "
             "capture a pointer to it";
    if (mayChange(MD->getBody(), VD, nullptr))
      return "meshad: the lambda writes '" + VD->getNameAsString() +
             "', which it captures; return the value and assign it at the "
             "call";
  }
  return "";
}

const LambdaExpr *ExprLowering::findCalledLambda(const Expr *Obj) {
  Obj = skipObjectWrappers(Obj);
  if (const auto *LE = dyn_cast<LambdaExpr>(Obj))
    return LE;
  const auto *DRE = dyn_cast<DeclRefExpr>(Obj);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  return VD && S.Lambdas.count(VD) ? S.Lambdas.lookup(VD) : nullptr;
}

const ir::Expr *
ExprLowering::lowerCallOperator(const CXXOperatorCallExpr *E,
                                const CXXMethodDecl *MD) {
  SourceLocation Loc = E->getExprLoc();
  const LambdaExpr *LE = nullptr;
  std::string Problem;
  if (isLambdaOperator(MD)) {
    LE = findCalledLambda(E->getArg(0));
    Problem = LE ? lambdaProblem(LE)
                 : "meshad: call a lambda by the name of the local it "
                   "initializes (auto f = [=](double x) { ... }; f(x)) or "
                   "where it is written";
  } else {
    Problem = functorProblem(MD, S.Policy);
  }
  if (!Problem.empty())
    return S.fail(Loc, Problem);
  ir::Function *Callee = LowerCallee(MD);
  if (!Callee) {
    S.Diags.note(Loc, "meshad: called from here");
    return nullptr;
  }
  std::vector<const ir::Expr *> Args;
  bool Ok = LE ? lowerCaptureArgs(LE, Loc, Args)
               : (Args.push_back(lowerFunctorObject(E->getArg(0))),
                  Args.back() != nullptr);
  for (unsigned I = 1, N = E->getNumArgs(); I != N; ++I) {
    const Expr *Arg = E->getArg(I);
    bool ByRef = I - 1 < MD->getNumParams() &&
                 isMutableReference(MD->getParamDecl(I - 1)->getType());
    const ir::Expr *Lowered = ByRef ? lowerReferenceArg(Arg, MD) : lower(Arg);
    Ok &= Lowered != nullptr;
    Args.push_back(Lowered);
  }
  if (!Ok)
    return nullptr;
  const ir::Type *Ty = Types.lowerType(E->getType())->getUnqualified();
  return hoistIfNested(E, S.make<ir::CallExpr>(Loc, Ty, Callee, Args));
}

bool ExprLowering::lowerCaptureArgs(const LambdaExpr *LE, SourceLocation Loc,
                                    std::vector<const ir::Expr *> &Args) {
  bool Ok = true;
  for (const LambdaCapture &C : LE->captures()) {
    const ir::Expr *A = lowerVarRef(cast<VarDecl>(C.getCapturedVar()), Loc);
    Ok &= A != nullptr;
    Args.push_back(A);
  }
  return Ok;
}

const ir::Expr *ExprLowering::lowerFunctorObject(const Expr *Obj) {
  const ir::Expr *Lowered = lower(Obj);
  if (!Lowered || isa<ir::VarRefExpr, ir::MemberExpr, ir::IndexExpr>(Lowered))
    return Lowered;
  // A temporary (`Scale{2.0}(x)`): a local, so that the call of the primal
  // can be spelled on it.
  SourceLocation Loc = Obj->getExprLoc();
  ir::Var *Temp =
      S.M.createVar(Scope.Names.numbered("_t"), Lowered->getType());
  Scope.Hoisted.push_back(S.make<ir::DeclStmt>(Loc, Temp, Lowered));
  return S.make<ir::VarRefExpr>(Loc, Temp);
}

const ir::Expr *ExprLowering::lowerThisMember(const MemberExpr *E,
                                             const FieldDecl *Field) {
  SourceLocation Loc = E->getExprLoc();
  if (!Scope.Self)
    return S.fail(Loc, "meshad: members of 'this' are supported only in a "
                       "functor's operator()");
  const ir::Expr *Self = S.make<ir::VarRefExpr>(Loc, Scope.Self);
  return S.make<ir::MemberExpr>(Loc, Types.lowerType(E->getType()), Self,
                                Field->getNameAsString(), /*Arrow=*/false);
}

//===----------------------------------------------------------------------===//
// The lowered operator()
//===----------------------------------------------------------------------===//

bool ASTLowering::Impl::lowerObjectParams(const FunctionDecl *FD,
                                          ir::Function *F) {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (!MD)
    return true;
  const CXXRecordDecl *RD = MD->getParent();
  // A template operator() (a generic lambda) becomes an overload of a
  // plain function: its instances differ in their parameter types.
  F->setTemplateArgs("");
  if (!RD->isLambda()) {
    F->setName(RD->getNameAsString() + "_call");
    F->setCallOperatorKind(ir::Function::CallOperatorKind::Functor);
    ir::NameScope Names;
    reserveUserNames(FD, Names);
    QualType Obj = MD->getFunctionObjectParameterType().getUnqualifiedType();
    F->addParam(S.M.createVar(Names.unique("self"), Types.lowerType(Obj),
                              ir::Var::Storage::Param));
    return true;
  }
  std::string Local = S.LambdaNames.lookup(RD);
  F->setName(Local.empty() ? "lambda" : Local + "_lambda");
  F->setCallOperatorKind(ir::Function::CallOperatorKind::Lambda);
  std::vector<const VarDecl *> &Captured = Captures[F];
  for (const LambdaCapture &C : RD->captures()) {
    const auto *VD = cast<VarDecl>(C.getCapturedVar());
    const ir::Type *Ty = Types.lowerType(VD->getType())->getUnqualified();
    F->addParam(S.M.createVar(VD->getNameAsString(), Ty,
                              ir::Var::Storage::Param));
    Captured.push_back(VD);
  }
  Lambdas.push_back(F);
  return true;
}

std::vector<std::pair<const VarDecl *, ir::Var *>>
ASTLowering::Impl::bindObject(ir::Function *F) {
  std::vector<std::pair<const VarDecl *, ir::Var *>> Saved;
  if (F->getCallOperatorKind() == ir::Function::CallOperatorKind::Functor)
    Exprs.setSelf(F->getParam(0));
  // The body's references to captured variables name the parameters.
  std::vector<const VarDecl *> Captured = Captures.lookup(F);
  for (unsigned I = 0; I < Captured.size(); ++I) {
    Saved.push_back({Captured[I], S.Vars.lookup(Captured[I])});
    S.Vars[Captured[I]] = F->getParam(I);
  }
  return Saved;
}

void ASTLowering::Impl::unbindObject(
    const std::vector<std::pair<const VarDecl *, ir::Var *>> &Saved) {
  for (auto [VD, V] : Saved) {
    if (V)
      S.Vars[VD] = V;
    else
      S.Vars.erase(VD);
  }
}

//===----------------------------------------------------------------------===//
// Lambda locals
//===----------------------------------------------------------------------===//

bool StmtLowering::lowerLambdaLocal(const VarDecl *VD, const LambdaExpr *LE,
                                    const DeclStmt *DS) {
  // The local is no IR variable: its calls pass the captures.
  S.Lambdas[VD] = LE;
  S.LambdaNames[LE->getLambdaClass()] = VD->getNameAsString();
  std::vector<const Stmt *> After = getScopeAfter(DS);
  for (const LambdaCapture &C : LE->captures()) {
    const auto *Captured = dyn_cast_or_null<VarDecl>(
        C.capturesVariable() ? C.getCapturedVar() : nullptr);
    if (!Captured || C.getCaptureKind() != LCK_ByCopy)
      continue;
    if (llvm::any_of(After, [&](const Stmt *St) {
          return mayChangeOutsideLambdas(St, Captured);
        })) {
      S.fail(VD->getLocation(),
             "meshad: the lambda '" + VD->getNameAsString() +
                 "' captures '" + Captured->getNameAsString() +
                 "' by copy, and the code after it may change '" +
                 Captured->getNameAsString() +
                 "'; copy the value into a const local and capture that");
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Functors and lambdas passed to Thrust primitives
//===----------------------------------------------------------------------===//

namespace {

/// The one operator() of a functor class, or null.
const CXXMethodDecl *findCallOperator(const CXXRecordDecl *RD) {
  if (RD->isLambda())
    return RD->getLambdaCallOperator();
  const CXXMethodDecl *Found = nullptr;
  for (const CXXMethodDecl *MD : RD->methods()) {
    if (MD->getOverloadedOperator() != OO_Call)
      continue;
    if (Found)
      return nullptr;
    Found = MD;
  }
  return Found;
}

/// True when the function around \p VD may change it (outside lambdas).
bool changedInFunction(const VarDecl *VD) {
  const auto *FD =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  return FD && FD->getBody() && mayChangeOutsideLambdas(FD->getBody(), VD);
}

/// True for thrust::for_each: its functor takes an index and writes
/// through the pointers it captures.
bool takesIndex(const std::string &Where) {
  return Where == "thrust::for_each";
}

/// Why the operator() \p MD cannot be passed to \p Where, or "".
std::string thrustOperatorProblem(const CXXMethodDecl *MD,
                                  TypeLowering &Types,
                                  const std::string &Where) {
  if (!MD || MD->getDescribedFunctionTemplate() ||
      MD->isTemplateInstantiation())
    return "meshad: the functor passed to " + Where +
           " needs exactly one operator(), not a template (a generic "
           "lambda: give its parameter a type)";
  if (takesIndex(Where)) {
    if (!MD->getParent()->isLambda())
      return "meshad: the functor passed to " + Where +
             " in a derivative must be a lambda that captures the pointers "
             "it reads and writes ([=] __device__ (int i) { y[i] = "
             "f(x[i]); })";
    if (MD->getNumParams() != 1 ||
        !Types.lowerType(MD->getParamDecl(0)->getType())->isIntegral())
      return "meshad: the lambda passed to " + Where +
             " over counting iterators must take the index alone (int i)";
    return "";
  }
  bool Floating = MD->getNumParams() > 0 &&
                  Types.lowerType(MD->getReturnType())->isFloatingScalar();
  for (const ParmVarDecl *P : MD->parameters())
    Floating &= Types.lowerType(P->getType().getNonReferenceType())
                    ->isFloatingScalar();
  if (!Floating)
    return "meshad: the functor passed to " + Where +
           " must take floating-point values and return one in a "
           "derivative";
  return "";
}

/// Why the captures of \p LE cannot be bound for \p Where, or "": the
/// helpers sum the adjoints of numbers over the elements, and read the
/// captured values again in the reverse sweep.
std::string thrustCaptureProblem(const LambdaExpr *LE, TypeLowering &Types,
                                 const std::string &Where) {
  for (const LambdaCapture &C : LE->captures()) {
    const auto *VD = cast<VarDecl>(C.getCapturedVar());
    const ir::Type *Ty = Types.lowerType(VD->getType());
    if (takesIndex(Where) && Ty->isPointer()) {
      if (Ty->getElement()->isPointer())
        return "meshad: the lambda passed to " + Where + " captures '" +
               VD->getNameAsString() +
               "', a pointer to pointers; capture the arrays themselves";
    } else if (!Ty->isFloatingScalar() && !Ty->isIntegral())
      return "meshad: the lambda passed to " + Where + " captures '" +
             VD->getNameAsString() +
             "'; in a derivative it may capture numbers only (their "
             "adjoints are sums over the elements)";
    if (changedInFunction(VD))
      return "meshad: the lambda passed to " + Where + " captures '" +
             VD->getNameAsString() +
             "', which the function changes; copy the value into a const "
             "local and capture that";
  }
  return "";
}

} // namespace

const ir::Expr *ExprLowering::lowerThrustFunctor(const Expr *Arg,
                                                 StringRef Primitive) {
  SourceLocation Loc = Arg->getExprLoc();
  std::string Where = ("thrust::" + Primitive).str();
  const CXXRecordDecl *RD = Arg->getType()->getAsCXXRecordDecl();
  const CXXMethodDecl *MD = RD ? findCallOperator(RD) : nullptr;
  std::string Problem = thrustOperatorProblem(MD, Types, Where);
  const LambdaExpr *LE = nullptr;
  if (Problem.empty() && RD->isLambda()) {
    LE = findCalledLambda(Arg);
    Problem = !LE ? "meshad: pass a lambda to " + Where +
                        " where it is written or by the name of the local "
                        "it initializes"
                  : lambdaProblem(LE);
    if (Problem.empty())
      Problem = thrustCaptureProblem(LE, Types, Where);
  } else if (Problem.empty()) {
    Problem = functorProblem(MD, S.Policy);
    for (const FieldDecl *FD : RD->fields()) {
      const ir::Type *Ty = Types.lowerType(FD->getType());
      if (Problem.empty() && !Ty->isFloatingScalar() && !Ty->isIntegral())
        Problem = "meshad: the functor passed to " + Where +
                  " has the member '" + FD->getNameAsString() +
                  "'; in a derivative its members may be numbers only "
                  "(the reverse sweep reads them again)";
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(skipObjectWrappers(Arg));
    const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (Problem.empty() && VD && changedInFunction(VD))
      Problem = "meshad: the functor '" + VD->getNameAsString() +
                "' passed to " + Where +
                " is changed in the function; initialize it once (Scale "
                "f{a};) and pass it";
  }
  if (!Problem.empty())
    return S.fail(Loc, Problem);
  std::vector<const ir::Expr *> Bound;
  if (LE ? !lowerCaptureArgs(LE, Loc, Bound)
         : (Bound.push_back(lowerFunctorObject(Arg)), !Bound.back()))
    return nullptr;
  ir::Function *Callee = LowerCallee(MD);
  if (!Callee) {
    S.Diags.note(Loc, "meshad: passed from here");
    return nullptr;
  }
  const ir::Type *Ty = S.M.getTypes().getOpaque(ThrustUserFunctorType);
  return S.make<ir::CallExpr>(Loc, Ty, Callee, std::move(Bound));
}
