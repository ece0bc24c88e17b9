//===- AD/Forward/ForwardThrustHvp.cpp - Forward over Thrust adjoints -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Hessian-vector products through Thrust calls: forward mode over the
/// gradient meets the helpers of meshad/codegen/ThrustAdjoint.h that reverse
/// mode called (AD/Reverse/ReverseThrust.cpp). An adjoint helper's tangent
/// comes from the AdjointTangent column of Rules/ThrustRecipes.def: the same
/// helper on the tangents of the seed and of the adjoints (a linear
/// adjoint), or a tangent helper that also gets the saved copy of the
/// tangent range (the second derivatives of a nonlinear functor). A saved
/// range (`Saved<T>`, an active local for the activity analysis) keeps the
/// tangent range's copy beside it; a recorded sort's permutation is applied
/// to the tangents of what it sorted.
///
//===----------------------------------------------------------------------===//

#include "AD/Forward/ForwardFunction.h"
#include "AD/ThrustCalls.h"
#include "Analysis/IRWalk.h"
#include "Rules/ThrustRecipes.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

static constexpr llvm::StringLiteral RuntimePrefix = "meshad::thrust_ad::";
static constexpr llvm::StringLiteral NoTangentType =
    "meshad::thrust_ad::NoTangent";
static constexpr llvm::StringLiteral CaptureTangentsType =
    "meshad::thrust_ad::CaptureTangents";
static constexpr llvm::StringLiteral CaptureTangentsCall =
    "meshad::thrust_ad::captureTangents";

bool ForwardFunction::isThrustRuntimeCall(const CallExpr *C) {
  return C->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
         llvm::StringRef(C->getName()).starts_with(RuntimePrefix);
}

/// The recipe whose recording helper (Forward column) \p C calls, or null.
static const ThrustRecipe *recordingRecipe(const CallExpr *C) {
  return lookupThrustRecording(C->getName(), C->getNumArgs());
}

const Expr *ForwardFunction::thrustSavedTangent(const Expr *Saved) {
  const auto *Ref = dyn_cast<VarRefExpr>(Saved);
  if (Ref && Activity->isActive(Ref->getVar()))
    return B.ref(tangentVar(Ref->getVar()));
  return M.create<IntLitExpr>(M.getTypes().getOpaque(NoTangentType.str()), 0,
                              NoTangentType.str() + "()");
}

/// A null adjoint pointer of type \p Ty, spelled with its type: the
/// helpers deduce their element type from every pointer argument.
static const Expr *typedNull(Module &M, const Type *Ty) {
  return M.create<IntLitExpr>(Ty, 0,
                              "static_cast<" + spellType(Ty) + ">(nullptr)");
}

static bool isNoTangent(const Expr *E) {
  return E->getType()->getSpelling() == NoTangentType;
}

const Expr *ForwardFunction::thrustRuntimeTangent(const CallExpr *C) {
  llvm::StringRef Name(C->getName());
  Name.consume_front(RuntimePrefix);
  auto Make = [&](llvm::StringRef Callee, std::vector<const Expr *> Args) {
    auto *Call = M.create<CallExpr>(C->getType(),
                                    CallExpr::CalleeKind::Intrinsic,
                                    Callee.str(), -1, std::move(Args));
    Call->setLoc(C->getLoc());
    return Call;
  };
  if (Name == "snapshotPush") {
    error(C->getLoc(), "Hessian-vector products through a thrust::for_each "
                       "inside a loop are not supported yet (gradients are; "
                       "outside loops, HVPs are too)");
    return nullptr;
  }
  if (Name == "restoreTop" || Name == "restorePop")
    return nullptr; // Its snapshotPush reported the error.
  if (Name == "sumInto") { // sumInto(&r, n): the same on r's tangent.
    const Expr *T = derive(C->getArg(0), nullptr).T;
    return T ? Make(C->getName(), {T, C->getArg(1)}) : nullptr;
  }
  if (Name == "save" || Name == "restore" || Name == "snapshot") {
    // save(Saved, first, n), restore(Saved, first), snapshot(Snapshot, p):
    // the same on the tangent range and the tangent's copy.
    const Expr *Range = derive(C->getArg(1), nullptr).T;
    const Expr *Copy = thrustSavedTangent(C->getArg(0));
    if (!Range)
      return nullptr; // The copy stays empty: the range's tangent is zero.
    if (isNoTangent(Copy)) {
      error(C->getLoc(), "meshad: internal error: the saved copy of a range "
                         "with a tangent has none");
      return nullptr;
    }
    std::vector<const Expr *> Args{Copy, Range};
    if (Name == "save")
      Args.push_back(C->getArg(2));
    return Make(C->getName(), std::move(Args));
  }
  if (const ThrustRecipe *R = recordingRecipe(C))
    return thrustPermutedTangents(C, *R);
  if (const ThrustRecipe *R = lookupThrustAdjoint(C->getName(),
                                                  C->getNumArgs()))
    return thrustAdjointTangent(C, *R);
  error(C->getLoc(), "Hessian-vector products through the Thrust helper '" +
                         C->getName() + "' are not supported yet");
  return nullptr;
}

const Expr *ForwardFunction::thrustAdjointTangent(const CallExpr *C,
                                                  const ThrustRecipe &R) {
  if (!R.hasAdjointTangent()) {
    error(C->getLoc(),
          std::string("Hessian-vector products through thrust::") + R.Name +
              (R.takesUserFunctor() ? " with a user functor or lambda" : "") +
              " are not supported yet (gradients are)");
    return nullptr;
  }
  std::string Layout = thrustAdjointLayout(R);
  bool Linear = R.adjointIsLinear();
  std::vector<const Expr *> Args;
  bool Reads = false; // Whether anything the tangent reads has one.
  for (unsigned I = 0; I < C->getNumArgs(); ++I) {
    const Expr *A = C->getArg(I);
    char Letter = I < Layout.size() ? Layout[I] : 'c';
    if (Letter == 'X') { // A saved input: its tangent's copy (nonlinear).
      Args.push_back(A);
      if (!Linear) {
        Args.push_back(thrustSavedTangent(A));
        Reads |= !isNoTangent(Args.back());
      }
      continue;
    }
    if (Letter == 'u') { // A user functor: its pullback's pushforward.
      if (!thrustFunctorPullbackTangent(asThrustUserFunctor(A), Args, Reads))
        return nullptr;
      continue;
    }
    if (Letter == 'c') { // A capture's adjoint (an address, added to).
      if (!thrustCaptureAdjointTangent(C, R, A, Args, Reads))
        return nullptr;
      continue;
    }
    if (Letter != 's' && Letter != 'I' && Letter != 'R') {
      Args.push_back(A); // Count, maps, functors, constants, permutation.
      continue;
    }
    const Expr *T = derive(A, nullptr).T;
    Reads |= T && Letter != 'I';
    if (!Linear && (Letter == 's' || Letter == 'R')) // Read: value, tangent.
      Args.push_back(A);
    if (Letter == 's')
      Args.push_back(B.orZero(T, A->getType()->getUnqualified()));
    else
      Args.push_back(T ? T : typedNull(M, A->getType()));
  }
  if (!Reads)
    return nullptr; // The tangents it would add are zero.
  auto *Call = M.create<CallExpr>(C->getType(), CallExpr::CalleeKind::Intrinsic,
                                  Linear ? C->getName() : R.AdjointTangent, -1,
                                  std::move(Args));
  Call->setLoc(C->getLoc());
  return Call;
}

bool ForwardFunction::thrustCaptureAdjointTangent(
    const CallExpr *C, const ThrustRecipe &R, const Expr *A,
    std::vector<const Expr *> &Args, bool &Reads) {
  // A captured number's adjoint summed over a for_each's indices,
  // sumInto(&r, n), or an address.
  const auto *Call = dyn_cast<CallExpr>(A);
  const Expr *T = Call && isThrustRuntimeCall(Call)
                      ? thrustRuntimeTangent(Call)
                      : derive(A, nullptr).T;
  if (!R.tangentReplaces()) { // Added to: its tangent's address only.
    Args.push_back(T ? T : typedNull(M, A->getType()));
    return true;
  }
  // The pushforward of a for_each lambda's pullback reads and writes the
  // captures' adjoints and their tangents.
  if (!T) {
    error(C->getLoc(), "meshad: internal error: the adjoint '" +
                           irwalk::spell(A) +
                           "' of a capture of a for_each lambda has no "
                           "tangent");
    return false;
  }
  Reads = true;
  Args.push_back(A);
  Args.push_back(T);
  return true;
}

bool ForwardFunction::thrustFunctorPullbackTangent(
    const CallExpr *Pullback, std::vector<const Expr *> &Args, bool &Reads) {
  std::vector<const Expr *> Tangents;
  const Expr *Bound = thrustPushforwardFunctor(Pullback, Tangents);
  if (!Bound)
    return false;
  Args.push_back(Bound);
  // The tangents of the captures: one argument (a value the helper copies
  // into device code), so that the captures' adjoints stay last.
  Reads |= !Tangents.empty();
  auto *Captures = M.create<CallExpr>(
      M.getTypes().getOpaque(CaptureTangentsType.str()),
      CallExpr::CalleeKind::Intrinsic, CaptureTangentsCall.str(), -1,
      std::move(Tangents));
  Captures->setLoc(Pullback->getLoc());
  Args.push_back(Captures);
  return true;
}

void ForwardFunction::deriveThrustRuntimeStmt(const ExprStmt *S,
                                              const CallExpr *C,
                                              BlockStmt *Out) {
  const Expr *T = thrustRuntimeTangent(C);
  // An adjoint helper resets the adjoints it reads, which the tangent
  // helper reads too: the tangent goes first. A recording helper's tangent
  // reads the permutation it records, a save's copies the range beside.
  llvm::StringRef Name(C->getName());
  bool After = recordingRecipe(C) || Name.ends_with("::save") ||
               Name.ends_with("::restore") || Name.ends_with("::snapshot");
  // The pushforward of a for_each lambda's pullback also does what the
  // pullback does: its helper replaces the adjoint helper.
  const ThrustRecipe *R = lookupThrustAdjoint(Name, C->getNumArgs());
  bool Replaces = T && R && R->tangentReplaces();
  if (After)
    Out->append(S);
  if (T) {
    auto *TS = M.create<ExprStmt>(T);
    TS->setLoc(S->getLoc());
    Out->append(TS);
  }
  if (!After && !Replaces)
    Out->append(S);
}

const Expr *ForwardFunction::thrustPermutedTangents(const CallExpr *Recording,
                                                    const ThrustRecipe &R) {
  // The recording helper takes the permutation, then the primitive's
  // arguments after the policy.
  std::vector<const Expr *> Args{Recording->getArg(0)};
  bool Any = false;
  for (unsigned I = 1; I < R.numArgs(); ++I) {
    if (R.role(I) != ThrustArg::Keys && R.role(I) != ThrustArg::Output)
      continue;
    const Expr *A = Recording->getArg(I);
    const Expr *T = derive(A, nullptr).T;
    Any |= T != nullptr;
    Args.push_back(T ? T : typedNull(M, A->getType()));
  }
  if (!Any)
    return nullptr;
  auto *Call = M.create<CallExpr>(M.getTypes().getVoid(),
                                  CallExpr::CalleeKind::Intrinsic,
                                  R.TangentHelper, -1, std::move(Args));
  Call->setLoc(Recording->getLoc());
  return Call;
}

const Expr *ForwardFunction::thrustRecordedTangent(const CallExpr *C,
                                                   const ThrustRecipe &R,
                                                   BlockStmt *Out) {
  Var *Perm = M.createVar(freshTempName(),
                          M.getTypes().getOpaque("meshad::thrust_ad::Saved<int>"),
                          Var::Storage::Local, VarRoles::Temporary);
  Out->append(B.decl(Perm, nullptr));
  std::vector<const Expr *> Args{B.ref(Perm)};
  for (unsigned I = 1; I < C->getNumArgs(); ++I)
    Args.push_back(C->getArg(I));
  auto *Recording =
      M.create<CallExpr>(M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
                         R.Forward, -1, std::move(Args));
  Recording->setLoc(C->getLoc());
  auto *S = M.create<ExprStmt>(Recording);
  S->setLoc(C->getLoc());
  Out->append(S);
  return thrustPermutedTangents(Recording, R);
}
