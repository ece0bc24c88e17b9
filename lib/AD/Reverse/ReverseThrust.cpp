//===- AD/Reverse/ReverseThrust.cpp - Reverse mode of Thrust primitives ---===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Calls of Thrust primitives in host code (intrinsics `thrust::<name>`), from
/// their recipes in Rules/ThrustRecipes.def: the forward sweep saves what
/// the adjoint reads (index maps, the inputs of nonlinear functors, the
/// permutation of a sort) and makes the call; the reverse sweep calls the
/// recipe's adjoint helper (include/meshad/codegen/ThrustAdjoint.h) with
/// the adjoint pointers, and adds what it returns to the adjoint of the
/// scalar argument (init, fill value). A for_each over counting iterators
/// snapshots the buffers its lambda captures and puts them back around the
/// helper that calls the lambda's pullback for every index.
///
//===----------------------------------------------------------------------===//

#include "AD/Reverse/ReverseFunction.h"
#include "AD/ThrustCalls.h"
#include "Analysis/IRWalk.h"
#include "Rules/ThrustRecipes.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

static constexpr const char *SnapshotType = "meshad::thrust_ad::Snapshot";
static constexpr const char *SnapshotStackType =
    "meshad::thrust_ad::SnapshotStack";

const ThrustRecipe *ReverseFunction::thrustRecipe(const Expr *E) {
  const auto *C = llvm::dyn_cast_or_null<CallExpr>(E);
  return C ? thrustCallRecipe(C) : nullptr;
}

static CallExpr *helperCall(Module &M, const Type *Ty, const char *Name,
                            std::vector<const Expr *> Args) {
  return M.create<CallExpr>(Ty, CallExpr::CalleeKind::Intrinsic, Name, -1,
                            std::move(Args));
}

bool ReverseFunction::anyActiveArg(const CallExpr *C) const {
  for (const Expr *A : C->getArgs()) {
    if (isActive(A))
      return true;
    if (const CallExpr *F = asThrustUserFunctor(A))
      if (anyActiveArg(F))
        return true;
  }
  return false;
}

const Expr *ReverseFunction::thrustPullbackFunctor(
    const CallExpr *F, std::vector<std::pair<const Expr *, Var *>> &Captures,
    BlockStmt *Rev) {
  ir::Function *Callee = F->getUserCallee();
  std::vector<bool> Active, Private(Callee->getNumParams(), false);
  for (unsigned I = 0; I < F->getNumArgs(); ++I) {
    const Expr *Arg = F->getArg(I);
    const Type *Ty = Callee->getParam(I)->getType();
    const Var *Root = ActivityAnalysis::getRootVar(Arg);
    if (Ty->getKind() == Type::Kind::Opaque && Root &&
        Activity->isActive(Root)) {
      error(F->getLoc(), structArgMessage(*Callee, I));
      return nullptr;
    }
    Active.push_back(Ty->isDifferentiable() && isActive(Arg));
  }
  // The elements: the helper always passes their adjoints (none for the
  // index of for_each).
  for (unsigned I = Active.size(); I < Callee->getNumParams(); ++I)
    Active.push_back(Callee->getParam(I)->getType()->isDifferentiable());
  ir::Function *PB = Owner.derivePullback(Callee, Active, Private, F->getLoc());
  if (!PB) {
    Failed = true;
    return nullptr;
  }
  Derived.addCall(Result, PB);
  for (unsigned I = 0; I < F->getNumArgs(); ++I) {
    if (!Active[I])
      continue;
    const Type *Ty = Callee->getParam(I)->getType()->getUnqualified();
    if (Ty->isPointer()) { // A captured array: its adjoint is passed.
      Captures.push_back({F->getArg(I), nullptr});
      continue;
    }
    Var *R = M.createVar(freshName("_r"), Ty, Var::Storage::Local,
                         VarRoles::Temporary);
    Rev->append(B.decl(R, B.zero(Ty)));
    Captures.push_back({F->getArg(I), R});
  }
  auto *Bound = M.create<CallExpr>(F->getType(), PB, F->getArgs());
  Bound->setLoc(F->getLoc());
  return Bound;
}

const CallExpr *ReverseFunction::thrustForward(const CallExpr *C,
                                                BlockStmt *Fwd) {
  const ThrustRecipe *R = thrustRecipe(C);
  if (!R || !anyActiveArg(C))
    return C;
  bool Saves = R->hasForwardHelper() || R->iteratesIndices() ||
               llvm::StringRef(R->Args).find_first_of("MX") !=
                   llvm::StringRef::npos;
  // A for_each's snapshots go on a stack per captured buffer in loops.
  if (Saves && LoopDepth > 0 && !R->iteratesIndices()) {
    error(C->getLoc(), C->getName() +
                           " inside a loop is not supported in reverse mode "
                           "yet (what its adjoint reads would be saved once "
                           "per iteration)");
    return C;
  }
  const Type *Void = M.getTypes().getVoid();
  const Expr *N = thrustRangeCount(M, B, *R, C);
  std::vector<Var *> &Saved = ThrustSaved[C];
  auto SavedVar = [&](const std::string &Elem) {
    return newVar("_t", M.getTypes().getOpaque("meshad::thrust_ad::Saved<" +
                                                Elem + ">"));
  };
  for (unsigned I = 0; I < R->numArgs(); ++I) {
    ThrustArg Role = R->role(I);
    if (Role != ThrustArg::Map && Role != ThrustArg::SavedInput)
      continue;
    const Type *Elem = C->getArg(I)->getType()->getElement()->getUnqualified();
    Var *V = SavedVar(spellType(Elem));
    Fwd->append(M.create<ExprStmt>(helperCall(
        M, Void, "meshad::thrust_ad::save", {B.ref(V), C->getArg(I), N})));
    Saved.push_back(V);
  }
  saveOverwritten(C, *R, N, Fwd);
  if (R->iteratesIndices())
    snapshotCaptures(C, *R, Fwd);
  if (!R->hasForwardHelper())
    return C;
  // The forward helper records the permutation it applies.
  Var *Perm = SavedVar("int");
  Saved.push_back(Perm);
  std::vector<const Expr *> Args{B.ref(Perm)};
  for (unsigned I = 1; I < C->getNumArgs(); ++I)
    Args.push_back(C->getArg(I));
  return helperCall(M, Void, R->Forward, Args);
}

void ReverseFunction::saveOverwritten(const CallExpr *C, const ThrustRecipe &R,
                                      const Expr *N, BlockStmt *Fwd) {
  for (unsigned I = 0; I < R.numArgs(); ++I) {
    ThrustArg Role = R.role(I);
    const Expr *Out = C->getArg(I);
    const Var *Root = ActivityAnalysis::getRootVar(Out);
    if ((Role != ThrustArg::Output && Role != ThrustArg::Keys) ||
        !Needs->isNeeded(Root))
      continue;
    // The reverse sweep of earlier statements reads what the call
    // overwrites: saved here, restored after the call's adjoint.
    if (LoopDepth > 0) {
      error(C->getLoc(), C->getName() + " inside a loop overwrites '" +
                             Root->getName() +
                             "', whose contents the reverse sweep reads; "
                             "not supported yet");
      continue;
    }
    if (WithValue) {
      error(C->getLoc(), "meshad::WithValue: " + C->getName() +
                             " overwrites '" + Root->getName() +
                             "', whose contents the reverse sweep reads and "
                             "puts back, so it would not hold the primal's "
                             "result afterwards; request the gradient "
                             "without meshad::WithValue");
      continue;
    }
    if (llvm::StringRef(R.Name) == "scatter") {
      error(C->getLoc(), C->getName() + " overwrites '" + Root->getName() +
                             "', whose contents the reverse sweep reads; "
                             "scatter into another buffer");
      continue;
    }
    const Type *Elem = Out->getType()->getElement()->getUnqualified();
    Var *V = newVar("_t", M.getTypes().getOpaque("meshad::thrust_ad::Saved<" +
                                                 spellType(Elem) + ">"));
    Fwd->append(M.create<ExprStmt>(helperCall(M, M.getTypes().getVoid(),
                                              "meshad::thrust_ad::save",
                                              {B.ref(V), Out, N})));
    ThrustRestores[C].push_back({V, Out});
  }
}

void ReverseFunction::snapshotCaptures(const CallExpr *C, const ThrustRecipe &R,
                                       BlockStmt *Fwd) {
  // The lambda's pullback reads the captured buffers as the call found them
  // (and may write them): each allocation is copied before the call and put
  // back around the adjoint.
  for (unsigned I = 0; I < R.numArgs(); ++I) {
    const CallExpr *F = R.role(I) == ThrustArg::UserFunctor
                            ? asThrustUserFunctor(C->getArg(I))
                            : nullptr;
    for (const Expr *Arg : F ? F->getArgs() : std::vector<const Expr *>()) {
      if (!Arg->getType()->isPointer())
        continue;
      if (WithValue && !Arg->getType()->getElement()->isConst()) {
        error(C->getLoc(), "meshad::WithValue: " + C->getName() +
                               " writes through '" + irwalk::spell(Arg) +
                               "', whose allocation the reverse sweep puts "
                               "back as the call found it, so it would not "
                               "hold the primal's result afterwards; request "
                               "the gradient without meshad::WithValue");
        continue;
      }
      // In loops, one snapshot per iteration, popped by the reverse sweep.
      bool Stack = LoopDepth > 0;
      Var *V = newVar("_t", M.getTypes().getOpaque(
                                Stack ? SnapshotStackType : SnapshotType));
      CallExpr *Take = helperCall(M, M.getTypes().getVoid(),
                                  Stack ? "meshad::thrust_ad::snapshotPush"
                                        : "meshad::thrust_ad::snapshot",
                                  {B.ref(V), Arg});
      Take->setLoc(C->getLoc()); // Errors of modes composed over it.
      Fwd->append(M.create<ExprStmt>(Take));
      ThrustRestores[C].push_back({V, Arg});
    }
  }
}

/// The adjoint memory of a range argument, or a null pointer.
const Expr *ReverseFunction::thrustAdjointPointer(const Expr *Arg) {
  if (isActive(Arg))
    if (const Expr *D = adjointPointer(Arg))
      return D;
  return M.create<IntLitExpr>(Arg->getType(), 0, "nullptr");
}

bool ReverseFunction::thrustAdjointArgs(
    const CallExpr *C, const ThrustRecipe &R, std::vector<const Expr *> &Args,
    std::vector<const Expr *> &Tail,
    std::vector<std::pair<const Expr *, Var *>> &Captures,
    const Expr *&ScalarArg, BlockStmt *Rev) {
  std::vector<Var *> Saved = ThrustSaved.lookup(C);
  unsigned Needed = R.hasForwardHelper() ? 1 : 0;
  for (unsigned I = 0; I < R.numArgs(); ++I)
    Needed += R.role(I) == ThrustArg::Map || R.role(I) == ThrustArg::SavedInput;
  if (Saved.size() < Needed)
    return false; // thrustForward reported why it could not save.
  unsigned NextSaved = 0;
  for (unsigned I = 0; I < R.numArgs(); ++I) {
    const Expr *Arg = C->getArg(I);
    switch (R.role(I)) {
    case ThrustArg::Policy:
    case ThrustArg::Last:
      break;
    case ThrustArg::Counting:
      Args.push_back(countingStart(Arg));
      break;
    case ThrustArg::Scalar:
      ScalarArg = Arg;
      break;
    case ThrustArg::Functor:
    case ThrustArg::Extremum:
    case ThrustArg::Constant:
      Args.push_back(Arg);
      break;
    case ThrustArg::UserFunctor:
      Args.push_back(
          thrustPullbackFunctor(asThrustUserFunctor(Arg), Captures, Rev));
      if (!Args.back())
        return false;
      break;
    case ThrustArg::Map:
      Args.push_back(B.ref(Saved[NextSaved++]));
      break;
    case ThrustArg::SavedInput:
      Args.push_back(thrustAdjointPointer(Arg));
      Tail.push_back(B.ref(Saved[NextSaved++]));
      break;
    case ThrustArg::Input:
    case ThrustArg::Output:
    case ThrustArg::Keys:
      Args.push_back(thrustAdjointPointer(Arg));
      break;
    }
  }
  if (R.hasForwardHelper())
    Tail.push_back(B.ref(Saved.back()));
  return true;
}

bool ReverseFunction::thrustCaptureAdjoints(
    const CallExpr *C, const ThrustRecipe &R, const Expr *N,
    const std::vector<std::pair<const Expr *, Var *>> &Captures,
    std::vector<const Expr *> &Tail) {
  for (auto &[Capture, Local] : Captures) {
    const Expr *D = Local ? B.addrOf(B.ref(Local)) : adjointPointer(Capture);
    if (Local && R.iteratesIndices()) // One slot per index, summed.
      D = helperCall(M, M.getTypes().getOpaque("meshad::thrust_ad::SumInto"),
                     "meshad::thrust_ad::sumInto", {D, N});
    if (!D) {
      error(C->getLoc(), C->getName() + ": no adjoint memory for a pointer "
                                        "its lambda captures");
      return false;
    }
    Tail.push_back(D);
  }
  return true;
}

void ReverseFunction::thrustAdjoint(const CallExpr *C, const Expr *DE,
                                    BlockStmt *Rev) {
  const ThrustRecipe *R = thrustRecipe(C);
  if (!R || !anyActiveArg(C))
    return;
  std::vector<const Expr *> Args{thrustRangeCount(M, B, *R, C)}, Tail;
  if (R->returnsValue())
    Args.push_back(DE ? DE : B.zero(C->getType()->getUnqualified()));
  const Expr *ScalarArg = nullptr;
  std::vector<std::pair<const Expr *, Var *>> Captures;
  if (!thrustAdjointArgs(C, *R, Args, Tail, Captures, ScalarArg, Rev) ||
      !thrustCaptureAdjoints(C, *R, Args[0], Captures, Tail))
    return;
  Args.insert(Args.end(), Tail.begin(), Tail.end());
  // After the adjoint, a stack of snapshots (in loops) drops its top.
  auto Restore = [&](bool Last) {
    for (auto &[V, Out] : ThrustRestores.lookup(C)) {
      bool Stack = V->getType()->getSpelling() == SnapshotStackType;
      const char *Name = !Stack ? "meshad::thrust_ad::restore"
                         : Last ? "meshad::thrust_ad::restorePop"
                                : "meshad::thrust_ad::restoreTop";
      Rev->append(M.create<ExprStmt>(
          helperCall(M, M.getTypes().getVoid(), Name, {B.ref(V), Out})));
    }
  };
  if (R->iteratesIndices()) // The buffers as the call found them.
    Restore(/*Last=*/false);
  bool ScalarActive = ScalarArg && ScalarArg->getType()->isDifferentiable() &&
                      isActive(ScalarArg);
  const Type *Ty = ScalarActive ? ScalarArg->getType()->getUnqualified()
                                : M.getTypes().getVoid();
  CallExpr *Call = helperCall(M, Ty, R->Adjoint, Args);
  Call->setLoc(C->getLoc()); // Errors of modes composed over it point here.
  if (ScalarActive) {
    adjoint(ScalarArg, Call, Rev);
  } else {
    auto *S = M.create<ExprStmt>(Call);
    S->setLoc(C->getLoc());
    Rev->append(S);
  }
  for (auto &[Capture, Local] : Captures)
    if (Local)
      adjoint(Capture, B.ref(Local), Rev);
  Restore(/*Last=*/true);
}

bool ReverseFunction::rejectThrustIterator(const Expr *E,
                                           clang::SourceLocation Loc) {
  const ThrustRecipe *R = thrustRecipe(E);
  if (!R || R->returnsValue() || !anyActiveArg(cast<CallExpr>(E)))
    return false;
  error(Loc, cast<CallExpr>(E)->getName() +
                 ": the iterator it returns is used; call it as a statement "
                 "in code to differentiate");
  return true;
}

void ReverseFunction::sweepThrust(const CallExpr *C, const ExprStmt *S,
                                  BlockStmt *Fwd, BlockStmt *Rev) {
  const CallExpr *FwdCall = thrustForward(C, Fwd);
  if (FwdCall == C) {
    Fwd->append(S);
  } else {
    auto *New = M.create<ExprStmt>(FwdCall);
    New->setLoc(S->getLoc());
    Fwd->append(New);
  }
  thrustAdjoint(C, nullptr, Rev);
}
