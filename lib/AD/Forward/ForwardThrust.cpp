//===- AD/Forward/ForwardThrust.cpp - Forward mode of Thrust primitives ---===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Calls of Thrust primitives in host code (intrinsics `thrust::<name>`),
/// from the Tangent column of Rules/ThrustRecipes.def: a linear primitive's
/// tangent is the same call on the tangents (the policy, index maps and
/// functors as they are), a sequence's tangent range is filled with its
/// start's tangent; the others are errors.
///
//===----------------------------------------------------------------------===//

#include "AD/Forward/ForwardFunction.h"
#include "AD/ThrustCalls.h"
#include "Rules/ThrustRecipes.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

const ThrustRecipe *ForwardFunction::thrustRecipe(const CallExpr *C) {
  if (C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic)
    return nullptr;
  return lookupThrustCall(C->getName(), C->getNumArgs());
}

bool ForwardFunction::rejectThrustAdjoint(const CallExpr *C) {
  if (!llvm::StringRef(C->getName()).starts_with("meshad::thrust_ad::"))
    return false;
  error(C->getLoc(), "Hessian-vector products of code that calls Thrust "
                     "primitives are not supported yet");
  return true;
}

/// The functor class of a transform whose functor is not linear, or "".
static llvm::StringRef nonlinearFunctor(const CallExpr *C,
                                        const ThrustRecipe &R) {
  for (unsigned I = 0; I < R.numArgs(); ++I) {
    if (R.role(I) != ThrustArg::Functor)
      continue;
    llvm::StringRef Name = C->getArg(I)->getType()->getSpelling();
    Name.consume_front(ThrustFunctorTypePrefix);
    if (!isLinearThrustFunctor(Name))
      return Name;
  }
  return "";
}

/// Whether the ranges that \p C reads carry tangents: all, none or some of
/// them (a scalar without one has the tangent 0).
enum class ReadTangents { All, None, Some };

static ReadTangents readTangents(const ThrustRecipe &R,
                                 const std::vector<Dual> &Args) {
  unsigned With = 0, Without = 0;
  for (unsigned I = 0; I < R.numArgs(); ++I) {
    ThrustArg Role = R.role(I);
    if (Role == ThrustArg::Input || Role == ThrustArg::SavedInput ||
        Role == ThrustArg::Keys)
      ++(Args[I].T ? With : Without);
  }
  return !Without ? ReadTangents::All
                  : (!With ? ReadTangents::None : ReadTangents::Some);
}

const Expr *ForwardFunction::thrustTangent(const CallExpr *C,
                                           BlockStmt *Out) {
  const ThrustRecipe *R = thrustRecipe(C);
  std::vector<Dual> Args;
  bool Any = false;
  for (const Expr *A : C->getArgs()) {
    Args.push_back(derive(A, Out));
    Any |= Args.back().T != nullptr;
  }
  if (!Any)
    return nullptr;
  llvm::StringRef Tangent(R->Tangent), Functor = nonlinearFunctor(C, *R);
  if (Tangent.empty() || !Functor.empty()) {
    error(C->getLoc(),
          "forward mode of " + C->getName() +
              (Functor.empty() ? "" : " with " + Functor.str()) +
              " is not supported yet (reverse mode is)");
    return nullptr;
  }
  int OutArg = -1;
  for (unsigned I = 0; I < R->numArgs(); ++I)
    if (R->role(I) == ThrustArg::Output)
      OutArg = I;
  if (OutArg >= 0 && !Args[OutArg].T)
    return nullptr; // The output carries no derivative.
  ReadTangents Reads = readTangents(*R, Args);
  if (Reads == ReadTangents::Some && Tangent == "same") {
    error(C->getLoc(), "forward mode of " + C->getName() +
                           " reading values without derivative beside "
                           "values with one is not supported yet");
    return nullptr;
  }
  if (Reads == ReadTangents::None && llvm::StringRef(R->Name) == "scatter") {
    error(C->getLoc(), "forward mode of " + C->getName() +
                           " of values without derivative into a range "
                           "with one is not supported yet");
    return nullptr;
  }
  if (Tangent == "fill" || Reads == ReadTangents::None)
    return thrustFillTangent(C, *R, Args, OutArg);
  std::vector<const Expr *> Ts;
  for (unsigned I = 0; I < R->numArgs(); ++I) {
    ThrustArg Role = R->role(I);
    bool Kept = Role == ThrustArg::Policy || Role == ThrustArg::Map ||
                Role == ThrustArg::Functor ||
                (Role == ThrustArg::Last && R->role(I - 1) == ThrustArg::Map);
    if (Role == ThrustArg::Scalar)
      Ts.push_back(B.orZero(Args[I].T,
                            C->getArg(I)->getType()->getUnqualified()));
    else
      Ts.push_back(Kept ? Args[I].P : Args[I].T);
  }
  return M.create<CallExpr>(C->getType(), CallExpr::CalleeKind::Intrinsic,
                            C->getName(), -1, std::move(Ts));
}

const Expr *ForwardFunction::thrustFillTangent(const CallExpr *C,
                                               const ThrustRecipe &R,
                                               const std::vector<Dual> &Args,
                                               int OutArg) {
  const Expr *Value = nullptr;
  for (unsigned I = 0; I < R.numArgs(); ++I)
    if (R.role(I) == ThrustArg::Scalar)
      Value = Args[I].T;
  if (OutArg < 0) // A reduction of values without derivative: init's.
    return Value;
  // The output range: the call's first range when it starts with the
  // output (fill, sequence), else out, out + count.
  const Expr *First = Args[OutArg].T;
  const Expr *Last = nullptr;
  if (OutArg + 1 < int(R.numArgs()) && R.role(OutArg + 1) == ThrustArg::Last)
    Last = Args[OutArg + 1].T;
  else
    Last = B.add(First, thrustRangeCount(M, B, R, C));
  const Type *Elem = First->getType()->getElement()->getUnqualified();
  std::vector<const Expr *> Ts{Args[0].P, First, Last,
                               Value ? Value : B.zero(Elem)};
  return M.create<CallExpr>(M.getTypes().getVoid(),
                            CallExpr::CalleeKind::Intrinsic, "thrust::fill",
                            -1, std::move(Ts));
}
