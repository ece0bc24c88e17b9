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
/// start's tangent, a for_each is replaced by the call of its lambda's
/// pushforward; the others call a tangent helper or are errors.
///
//===----------------------------------------------------------------------===//

#include "AD/DerivedFunctions.h"
#include "AD/Forward/ForwardFunction.h"
#include "AD/ThrustCalls.h"
#include "Rules/ThrustRecipes.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

const ThrustRecipe *ForwardFunction::thrustRecipe(const CallExpr *C) {
  return thrustCallRecipe(C);
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
  bool Any = false, Captures = false;
  for (const Expr *A : C->getArgs()) {
    const CallExpr *F = asThrustUserFunctor(A);
    Args.push_back(F || countingStart(A) ? Dual{A, nullptr} : derive(A, Out));
    Any |= Args.back().T != nullptr;
    if (F)
      for (const Expr *Bound : F->getArgs())
        Captures |= Activity->isActive(Bound);
  }
  if (!Any && !Captures)
    return nullptr;
  if (R->tangentReplaces()) // The functor's pushforward does it all.
    return thrustHelperTangent(C, *R, Args);
  if (R->tangentRecords()) // A sort: its permutation, applied to tangents.
    return thrustRecordedTangent(C, *R, Out);
  llvm::StringRef Tangent(R->Tangent), Functor = nonlinearFunctor(C, *R);
  if ((Tangent.empty() || !Functor.empty()) && R->hasTangentHelper()) {
    // Nothing it reads carries a tangent: the output's is zero.
    if (!Captures && readTangents(*R, Args) == ReadTangents::None) {
      int OutArg = llvm::StringRef(R->Args).find('O');
      return OutArg >= 0 && !Args[OutArg].T
                 ? nullptr
                 : thrustFillTangent(C, *R, Args, OutArg);
    }
    return thrustHelperTangent(C, *R, Args);
  }
  if (Tangent.empty() || !Functor.empty()) {
    error(C->getLoc(),
          "forward mode of " + C->getName() +
              (Functor.empty() ? "" : " with " + Functor.str()) +
              " is not supported yet (reverse mode is)");
    return nullptr;
  }
  return thrustLinearTangent(C, *R, Args);
}

const Expr *ForwardFunction::thrustLinearTangent(const CallExpr *C,
                                                 const ThrustRecipe &R,
                                                 const std::vector<Dual> &Args) {
  llvm::StringRef Tangent(R.Tangent);
  int OutArg = -1;
  for (unsigned I = 0; I < R.numArgs(); ++I)
    if (R.role(I) == ThrustArg::Output)
      OutArg = I;
  if (OutArg >= 0 && !Args[OutArg].T)
    return nullptr; // The output carries no derivative.
  ReadTangents Reads = readTangents(R, Args);
  if (Reads == ReadTangents::Some && Tangent == "same") {
    error(C->getLoc(), "forward mode of " + C->getName() +
                           " reading values without derivative beside "
                           "values with one is not supported yet");
    return nullptr;
  }
  if (Reads == ReadTangents::None && llvm::StringRef(R.Name) == "scatter") {
    error(C->getLoc(), "forward mode of " + C->getName() +
                           " of values without derivative into a range "
                           "with one is not supported yet");
    return nullptr;
  }
  if (Tangent == "fill" || Reads == ReadTangents::None)
    return thrustFillTangent(C, R, Args, OutArg);
  std::vector<const Expr *> Ts;
  for (unsigned I = 0; I < R.numArgs(); ++I) {
    ThrustArg Role = R.role(I);
    bool Kept = Role == ThrustArg::Policy || Role == ThrustArg::Map ||
                Role == ThrustArg::Functor ||
                (Role == ThrustArg::Last && R.role(I - 1) == ThrustArg::Map);
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

const Expr *
ForwardFunction::thrustPushforwardFunctor(const CallExpr *F,
                                          std::vector<const Expr *> &Tangents) {
  ir::Function *Callee = F->getUserCallee();
  std::vector<bool> Active;
  std::vector<const Expr *> Mine;
  for (unsigned I = 0; I < F->getNumArgs(); ++I) {
    const Type *Ty = Callee->getParam(I)->getType();
    const Var *Root = ActivityAnalysis::getRootVar(F->getArg(I));
    if (Ty->getKind() == Type::Kind::Opaque && Root &&
        Activity->isActive(Root)) {
      error(F->getLoc(), structArgMessage(*Callee, I));
      return nullptr;
    }
    const Expr *T =
        Ty->isDifferentiable() ? derive(F->getArg(I), nullptr).T : nullptr;
    Active.push_back(T != nullptr);
    if (T)
      Mine.push_back(T);
  }
  // The elements: the helper always passes their tangents (none for the
  // index of for_each).
  for (unsigned I = Active.size(); I < Callee->getNumParams(); ++I)
    Active.push_back(Callee->getParam(I)->getType()->isDifferentiable());
  ir::Function *PF = Owner.derivePushforward(Callee, Active, F->getLoc());
  if (!PF) {
    Failed = true;
    return nullptr;
  }
  Derived.addCall(Result, PF);
  Tangents.insert(Tangents.end(), Mine.begin(), Mine.end());
  auto *Bound = M.create<CallExpr>(F->getType(), PF, F->getArgs());
  Bound->setLoc(F->getLoc());
  return Bound;
}

const Expr *
ForwardFunction::thrustHelperTangent(const CallExpr *C, const ThrustRecipe &R,
                                     const std::vector<Dual> &Args) {
  std::vector<const Expr *> Ts{thrustRangeCount(M, B, R, C)}, Captures;
  auto OrNull = [&](const Dual &D, const Expr *Arg) -> const Expr * {
    return D.T ? D.T : M.create<IntLitExpr>(Arg->getType(), 0, "nullptr");
  };
  for (unsigned I = 0; I < R.numArgs(); ++I) {
    const Expr *Arg = C->getArg(I);
    switch (R.role(I)) {
    case ThrustArg::Policy:
    case ThrustArg::Last:
      break;
    case ThrustArg::Input:
    case ThrustArg::SavedInput:
    case ThrustArg::Keys:
      Ts.push_back(Args[I].P);
      Ts.push_back(OrNull(Args[I], Arg));
      break;
    case ThrustArg::Output:
      if (!Args[I].T)
        return nullptr; // The output carries no derivative.
      Ts.push_back(Args[I].T);
      break;
    case ThrustArg::Scalar:
      Ts.push_back(B.orZero(Args[I].T, Arg->getType()->getUnqualified()));
      break;
    case ThrustArg::Counting:
      Ts.push_back(countingStart(Arg));
      break;
    case ThrustArg::UserFunctor:
      Ts.push_back(
          thrustPushforwardFunctor(asThrustUserFunctor(Arg), Captures));
      if (!Ts.back())
        return nullptr;
      break;
    default: // Index maps, constants, functors of the table: as they are.
      Ts.push_back(Args[I].P);
      break;
    }
  }
  Ts.insert(Ts.end(), Captures.begin(), Captures.end());
  const Type *Ty = R.returnsValue() ? C->getType()->getUnqualified()
                                    : M.getTypes().getVoid();
  auto *Call = M.create<CallExpr>(Ty, CallExpr::CalleeKind::Intrinsic,
                                  R.TangentHelper, -1, std::move(Ts));
  Call->setLoc(C->getLoc());
  return Call;
}
