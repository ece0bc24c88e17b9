//===- Lower/LowerThrust.cpp - Calls of Thrust primitives -----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A call of a Thrust primitive that Rules/ThrustRecipes.def lists becomes an
/// intrinsic call `thrust::<name>(...)` (the `thrust::` family of
/// IR/Intrinsics.def; reverse mode reads the recipe again): the
/// execution policy `thrust::device` and the functors of the table are
/// carried as their spelling, the ranges must be raw pointers. Any other
/// call of Thrust is an error that lists what is supported.
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"
#include "Rules/ThrustRecipes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace meshad;
using namespace clang;

/// The name of the outermost namespace of \p D ("" at global scope).
static StringRef outerNamespace(const Decl *D) {
  const NamespaceDecl *Outer = nullptr;
  for (const DeclContext *DC = D->getDeclContext();
       DC && !DC->isTranslationUnit(); DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Outer = NS;
  return Outer ? Outer->getName() : StringRef();
}

bool meshad::isThrustFunction(const FunctionDecl *FD) {
  return outerNamespace(FD) == "thrust";
}

std::string meshad::thrustContainerProblem(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || outerNamespace(RD) != "thrust" ||
      (RD->getName() != "device_vector" && RD->getName() != "host_vector"))
    return "";
  return ("meshad: thrust::" + RD->getName() +
          " in a function to differentiate is not supported yet; keep the "
          "vector in the caller and pass its raw device pointer "
          "(thrust::raw_pointer_cast(v.data())) and its size")
      .str();
}

/// True for the functors of Thrust and libcu++ that the recipes know
/// (thrust::plus is cuda::std::plus).
static bool isKnownFunctor(const CXXRecordDecl *RD) {
  StringRef NS = outerNamespace(RD);
  return (NS == "thrust" || NS == "cuda") &&
         isKnownThrustFunctor(RD->getName());
}

/// True for a functor or lambda of the user's (not Thrust's or libcu++'s).
static bool isUserFunctor(const Expr *E) {
  const CXXRecordDecl *RD = E->getType()->getAsCXXRecordDecl();
  if (!RD)
    return false;
  StringRef NS = outerNamespace(RD);
  return RD->isLambda() || (NS != "thrust" && NS != "cuda");
}

/// A literal, negated or converted.
static bool isConstant(const ir::Expr *E) {
  if (const auto *U = dyn_cast<ir::UnaryExpr>(E))
    return U->getOp() == ir::UnaryOp::Neg && isConstant(U->getSub());
  if (const auto *C = dyn_cast<ir::CastExpr>(E))
    return isConstant(C->getSub());
  return isa<ir::FloatLitExpr, ir::IntLitExpr>(E);
}

/// True when \p E names `thrust::device`.
static bool isThrustDevicePolicy(const Expr *E) {
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || VD->getName() != "device")
    return false;
  return outerNamespace(VD) == "thrust";
}

/// The start `a` of the counting iterator \p E
/// (`thrust::counting_iterator<int>(a)`, `thrust::make_counting_iterator(a)`),
/// or null.
static const Expr *countingStart(const Expr *E) {
  while (true) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
    if (!Ctor || Ctor->getNumArgs() != 1)
      break;
    const CXXRecordDecl *RD = Ctor->getConstructor()->getParent();
    if (RD->getName() == "counting_iterator" && outerNamespace(RD) == "thrust" &&
        !Ctor->getConstructor()->isCopyOrMoveConstructor())
      return Ctor->getArg(0);
    E = Ctor->getArg(0);
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (FD && FD->getName() == "make_counting_iterator" &&
      isThrustFunction(FD) && Call->getNumArgs() == 1)
    return Call->getArg(0);
  return nullptr;
}

/// thrust::make_counting_iterator(a) for the counting iterator \p Arg of
/// thrust::\p Name, or null after an error.
const ir::Expr *ExprLowering::lowerCountingIterator(const Expr *Arg,
                                                    StringRef Name) {
  SourceLocation Loc = Arg->getExprLoc();
  const Expr *Start = countingStart(Arg);
  if (!Start)
    return S.fail(Loc, Twine("meshad: thrust::") + Name +
                           " in a derivative iterates over counting "
                           "iterators with a lambda that captures the "
                           "pointers it reads and writes: "
                           "thrust::for_each(thrust::device, "
                           "thrust::counting_iterator<int>(0), "
                           "thrust::counting_iterator<int>(n), [=] "
                           "__device__ (int i) { y[i] = f(x[i]); })");
  const ir::Expr *A = lower(Start);
  if (!A)
    return nullptr;
  if (!A->getType()->isIntegral())
    return S.fail(Loc, Twine("meshad: the counting iterators of thrust::") +
                           Name + " must count integers");
  const ir::Type *Ty = S.M.getTypes().getOpaque(ThrustCountingType);
  return S.make<ir::CallExpr>(Loc, Ty, ir::CallExpr::CalleeKind::Intrinsic,
                              ThrustCountingCall, -1,
                              std::vector<const ir::Expr *>{A});
}

/// A functor of the recipe table (\p Role Functor: plus, minus,
/// multiplies, negate, square; Extremum: maximum, minimum), carried as its
/// spelling, of the type "thrust functor <name>".
static const ir::Expr *lowerTableFunctor(LoweringState &S, const Expr *Arg,
                                         ThrustArg Role, StringRef Name) {
  SourceLocation Loc = Arg->getExprLoc();
  if (Role == ThrustArg::Functor) {
    const CXXRecordDecl *RD = Arg->getType()->getAsCXXRecordDecl();
    if (!RD || !isKnownFunctor(RD))
      return S.fail(Loc, Twine("meshad: the functor of thrust::") + Name +
                             " must be thrust::plus, minus, multiplies, "
                             "negate or square in a derivative; "
                             "user functors and lambdas in Thrust calls are "
                             "not supported yet");
    std::string Text = S.getSourceText(Arg->getSourceRange());
    if (Text.empty())
      Text = "thrust::" + RD->getName().str() + "<" +
             cast<ClassTemplateSpecializationDecl>(RD)
                 ->getTemplateArgs()[0]
                 .getAsType()
                 .getAsString(S.Policy) +
             ">()";
    const ir::Type *Ty = S.M.getTypes().getOpaque(
        (ThrustFunctorTypePrefix + RD->getName()).str());
    return S.make<ir::IntLitExpr>(Loc, Ty, 0, Text);
  }
  const CXXRecordDecl *RD = Arg->getType()->getAsCXXRecordDecl();
  StringRef NS = RD ? outerNamespace(RD) : "";
  if (!RD || (NS != "thrust" && NS != "cuda") ||
      (RD->getName() != "maximum" && RD->getName() != "minimum"))
    return S.fail(Loc, Twine("meshad: thrust::") + Name +
                           " in a derivative reduces with thrust::plus, "
                           "maximum or minimum only");
  std::string Text = S.getSourceText(Arg->getSourceRange());
  const ir::Type *Ty = S.M.getTypes().getOpaque(
      (ThrustFunctorTypePrefix + RD->getName()).str());
  return S.make<ir::IntLitExpr>(Loc, Ty, 0, Text);
}

const ir::Expr *ExprLowering::lowerThrustArg(const Expr *Arg, ThrustArg Role,
                                             StringRef Name) {
  SourceLocation Loc = Arg->getExprLoc();
  if (Role == ThrustArg::Policy) {
    if (!isThrustDevicePolicy(Arg))
      return S.fail(Loc, Twine("meshad: thrust::") + Name +
                             " needs the execution policy thrust::device in "
                             "a derivative");
    return S.make<ir::IntLitExpr>(Loc, S.M.getTypes().getOpaque("policy"), 0,
                                  "thrust::device");
  }
  if (Role == ThrustArg::UserFunctor)
    return lowerThrustFunctor(Arg, Name);
  if (Role == ThrustArg::Counting ||
      (Role == ThrustArg::Last && Name == "for_each"))
    return lowerCountingIterator(Arg, Name);
  if (Role == ThrustArg::Functor || Role == ThrustArg::Extremum)
    return lowerTableFunctor(S, Arg, Role, Name);
  const ir::Expr *Lowered = lower(Arg);
  if (!Lowered)
    return nullptr;
  if (Role == ThrustArg::Constant && !isConstant(Lowered))
    return S.fail(Loc, Twine("meshad: the initial value of thrust::") + Name +
                           " with thrust::maximum or minimum must be a "
                           "constant in a derivative (a literal)");
  bool Scalar = Role == ThrustArg::Scalar || Role == ThrustArg::Constant;
  if (!Scalar && !Lowered->getType()->isPointer())
    return S.fail(Loc, Twine("meshad: thrust::") + Name +
                           " in a derivative needs raw device pointers for "
                           "its ranges (thrust::device_ptr, device_vector "
                           "and fancy iterators are not supported yet)");
  return Lowered;
}

/// The recipe of the call \p E of thrust::\p Name, or null after an error
/// that says what is supported.
static const ThrustRecipe *thrustRecipeOf(LoweringState &S, const CallExpr *E,
                                          StringRef Name) {
  SourceLocation Loc = E->getExprLoc();
  bool User = llvm::any_of(E->arguments(), isUserFunctor);
  const ThrustRecipe *R = lookupThrustRecipe(Name, E->getNumArgs(), User);
  if (!R && User && lookupThrustRecipe(Name, E->getNumArgs()))
    return S.fail(Loc, Twine("meshad: thrust::") + Name +
                           " with a user functor or lambda there is not "
                           "supported in derivatives; user functors and "
                           "lambdas are supported as the operation of "
                           "thrust::transform and the unary one of "
                           "transform_reduce");
  if (!R && Name == "for_each")
    return S.fail(Loc, "meshad: thrust::for_each in a derivative takes "
                       "counting iterators and a lambda that captures the "
                       "pointers it reads and writes "
                       "(thrust::for_each(thrust::device, "
                       "thrust::counting_iterator<int>(0), "
                       "thrust::counting_iterator<int>(n), [=] __device__ "
                       "(int i) { y[i] = f(x[i]); })), or use "
                       "thrust::transform with a functor that returns the "
                       "element's value");
  if (!R)
    return S.fail(Loc, Twine("meshad: thrust::") + Name + " with " +
                           Twine(E->getNumArgs()) +
                           " arguments is not supported in derivatives; "
                           "supported (with thrust::device first): " +
                           listThrustPrimitives());
  const CXXRecordDecl *Reduction =
      R->returnsValue() && R->role(E->getNumArgs() - 1) == ThrustArg::Functor
          ? E->getArg(E->getNumArgs() - 1)->getType()->getAsCXXRecordDecl()
          : nullptr;
  if (Reduction && Reduction->getName() != "plus")
    return S.fail(Loc, Twine("meshad: thrust::") + Name +
                           " in a derivative reduces with thrust::plus only" +
                           (Name == "transform_reduce"
                                ? ""
                                : " (reduce: also maximum or minimum)"));
  return R;
}

const ir::Expr *ExprLowering::lowerThrustCall(const CallExpr *E,
                                              const FunctionDecl *FD) {
  SourceLocation Loc = E->getExprLoc();
  StringRef Name = FD->getName();
  const ThrustRecipe *R = thrustRecipeOf(S, E, Name);
  if (!R)
    return nullptr;
  std::vector<const ir::Expr *> Args;
  unsigned Ranges = 0;
  for (unsigned I = 0; I < E->getNumArgs(); ++I) {
    const ir::Expr *A = lowerThrustArg(E->getArg(I), R->role(I), Name);
    if (!A)
      return nullptr;
    Args.push_back(A);
    Ranges += R->role(I) == ThrustArg::SavedInput;
  }
  // A user functor takes one value per input range (the index over
  // counting iterators).
  if (R->iteratesIndices())
    Ranges = 1;
  for (const ir::Expr *A : Args)
    if (const auto *F = dyn_cast<ir::CallExpr>(A);
        F && F->getType()->getSpelling() == ThrustUserFunctorType &&
        F->getUserCallee()->getNumParams() - F->getNumArgs() != Ranges)
      return S.fail(Loc, Twine("meshad: the functor passed to thrust::") +
                             Name + " must take " + Twine(Ranges) +
                             (Ranges == 1 ? " value" : " values") +
                             " (one per input range)");
  const ir::Type *Ty = Types.lowerType(E->getType())->getUnqualified();
  const ir::Expr *Call =
      S.make<ir::CallExpr>(Loc, Ty, ir::CallExpr::CalleeKind::Intrinsic,
                           "thrust::" + Name.str(), -1, std::move(Args));
  return hoistIfNested(E, Call);
}
