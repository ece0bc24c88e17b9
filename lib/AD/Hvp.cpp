//===- AD/Hvp.cpp - Hessian-vector products -------------------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Hvp.h"
#include "AD/HvpAdjointBuffers.h"
#include "AD/Analysis/Activity.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "GPU/GpuPasses.h"
#include "IR/Clone.h"
#include "IR/DynamicShared.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"
#include "Simplify/DeadLocals.h"
#include "AD/DeadPushforwards.h"

#include <algorithm>
#include <set>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

bool HvpTransformer::findOutputs(const Function &Primal,
                                 const std::vector<bool> &Selected,
                                 std::vector<bool> &Outputs,
                                 clang::SourceLocation Loc) {
  Outputs.assign(Primal.getNumParams(), false);
  bool Any = false;
  for (unsigned I = 0; I < Primal.getNumParams(); ++I) {
    const Var *P = Primal.getParam(I);
    if (!P->getType()->isPointer() || !P->getType()->isDifferentiable() ||
        !writesMemoryOf(Primal.getBody(), P))
      continue;
    if (Selected[I]) {
      Diags.error(Loc, "meshad::hvp takes the Hessian w.r.t. inputs; '" +
                           Primal.getName() + "' writes '" + P->getName() +
                           "' (select only parameters it reads)");
      return false;
    }
    Outputs[I] = Any = true;
  }
  bool Returns = Primal.getReturnType()->isDifferentiableValue();
  if (Returns && Any) {
    Diags.error(Loc, "meshad::hvp of '" + Primal.getName() +
                         "': a function that returns a value and also writes "
                         "arrays is not supported yet (the Hessian is of its "
                         "return value)");
    return false;
  }
  if (!Returns && !(Primal.isKernel() && Any)) {
    Diags.error(Loc, "meshad::hvp needs a scalar: a function returning a "
                     "floating-point value, or a kernel writing outputs "
                     "(whose seeds weigh them); '" +
                         Primal.getName() + "' is neither");
    return false;
  }
  return true;
}

using VarSet = llvm::SmallPtrSet<const Var *, 4>;

static bool rootedIn(const Expr *E, const llvm::SmallPtrSetImpl<const Var *> &Vars) {
  const Var *Root = E ? ActivityAnalysis::getRootVar(E) : nullptr;
  return Root && Vars.count(Root);
}

/// The call of \p S when it is meshad::push(Tape, Value).
static const CallExpr *tapePush(const Stmt *S) {
  const auto *E = dyn_cast<ExprStmt>(S);
  const auto *C = E ? dyn_cast<CallExpr>(E->getExpr()) : nullptr;
  return C && isIntrinsicDeriv(C, IntrinsicDeriv::TapePush) ? C : nullptr;
}

/// \p Buffer and the local pointers set from it (_d_q = _d_x + 1), with
/// the tapes that save them.
static VarSet aliasesOf(const Function &F, const Var *Buffer) {
  VarSet Vars{Buffer};
  bool Changed = true;
  while (Changed) {
    Changed = false;
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      if (const auto *D = dyn_cast<DeclStmt>(S)) {
        if (D->getVar()->getType()->isPointer() && rootedIn(D->getInit(), Vars))
          Changed |= Vars.insert(D->getVar()).second;
      } else if (const auto *A = dyn_cast<AssignStmt>(S)) {
        const auto *L = dyn_cast<VarRefExpr>(A->getLHS());
        if (L && L->getType()->isPointer() && rootedIn(A->getRHS(), Vars))
          Changed |= Vars.insert(L->getVar()).second;
      } else if (const CallExpr *C = tapePush(S)) {
        // A tape saving such a pointer (restored by the reverse sweep).
        if (rootedIn(C->getArg(1), Vars))
          Changed |= Vars.insert(ActivityAnalysis::getRootVar(C->getArg(0)))
                         .second;
      }
    });
  }
  return Vars;
}

/// True for a statement that only stores into memory rooted at \p Vars
/// (plain, compound, Accumulate, an atomic), or declares or moves one of
/// those pointers.
static bool storesInto(const Stmt *S, const VarSet &Vars) {
  if (const auto *D = dyn_cast<DeclStmt>(S))
    return Vars.count(D->getVar());
  if (const auto *A = dyn_cast<AssignStmt>(S))
    return rootedIn(A->getLHS(), Vars);
  if (const CallExpr *Push = tapePush(S))
    return rootedIn(Push->getArg(0), Vars);
  // An add of the intrinsic table (atomicAdd, meshad::atomicAccumulate...)
  // into that memory; whatever it returns is not used (an ExprStmt).
  const auto *E = dyn_cast<ExprStmt>(S);
  const auto *C = E ? dyn_cast<CallExpr>(E->getExpr()) : nullptr;
  const IntrinsicInfo *I = C ? lookupIntrinsic(C) : nullptr;
  return I && I->accumulates() && I->AddrArg >= 0 &&
         static_cast<unsigned>(I->AddrArg) < C->getNumArgs() &&
         rootedIn(C->getArg(I->AddrArg), Vars);
}

/// The first place \p F still refers to \p Vars: the innermost call
/// around the use, else its statement, else \p Fallback; none when there
/// is no use.
static std::optional<clang::SourceLocation>
findUse(const Function &F, const VarSet &Vars, clang::SourceLocation Fallback) {
  clang::SourceLocation Use;
  bool Found = false;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S)) {
      clang::SourceLocation Around = S->getLoc();
      forEachExpr(E, [&](const Expr *X) {
        if (isa<CallExpr>(X) && X->getLoc().isValid())
          Around = X->getLoc();
        const auto *R = dyn_cast<VarRefExpr>(X);
        if (R && Vars.count(R->getVar()) && !Found) {
          Found = true;
          Use = Around.isValid() ? Around : Fallback;
        }
      });
    }
  });
  if (!Found)
    return std::nullopt;
  return Use;
}

const Stmt *HvpTransformer::callWithout(Function &F, const CallExpr *Call,
                                        const llvm::SmallPtrSetImpl<const Var *> &Vars, IRCloner &C,
                                        bool &Ok) {
  Function *Callee = Call->getUserCallee();
  std::vector<unsigned> Drop;
  for (unsigned I = 0; I < Call->getNumArgs(); ++I)
    if (Call->getArg(I)->getType()->isPointer() &&
        rootedIn(Call->getArg(I), Vars))
      Drop.push_back(I);
  if (!Callee || Drop.empty())
    return nullptr;
  Function *V = variantWithout(Callee, Drop, Call->getLoc());
  if (!V) {
    Ok = false;
    return nullptr;
  }
  Derived.addCall(&F, V);
  std::vector<const Expr *> Args;
  for (unsigned I = 0; I < Call->getNumArgs(); ++I)
    if (std::find(Drop.begin(), Drop.end(), I) == Drop.end())
      Args.push_back(C.clone(Call->getArg(I)));
  auto *New = M.create<CallExpr>(Call->getType(), V, Args);
  New->setLoc(Call->getLoc());
  auto *S = M.create<ExprStmt>(New);
  S->setLoc(Call->getLoc());
  return S;
}

bool HvpTransformer::dropBuffer(Function &F, const Var *Buffer,
                                const std::string &Of,
                                clang::SourceLocation Loc) {
  bool Ok = true;
  VarSet Vars = aliasesOf(F, Buffer);
  IRCloner C(M);
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    // Where a helper reads the buffer, it stays: an error below.
    if (std::optional<const Stmt *> New =
            withoutBuffersInHelper(M, C, S, Vars, /*AddsOnly=*/true))
      return New;
    if (storesInto(S, Vars))
      return nullptr;
    const auto *ES = dyn_cast<ExprStmt>(S);
    const auto *Call = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
    if (Call && Call->getCalleeKind() == CallExpr::CalleeKind::User)
      if (const Stmt *New = callWithout(F, Call, Vars, C, Ok))
        return New;
    return std::nullopt;
  });
  F.setBody(C.cloneBlock(F.getBody()));
  if (!Ok)
    return false;
  std::optional<clang::SourceLocation> Use = findUse(F, Vars, Loc);
  if (!Use)
    return true;
  report(*Use, "meshad::hvp: the gradient w.r.t. '" + Of +
                  "' is read back or aliased here; Hessian-vector "
                  "products need a gradient that is only accumulated");
  return false;
}

ir::Function *HvpTransformer::variantWithout(Function *Callee,
                                             const std::vector<unsigned> &Drop,
                                             clang::SourceLocation Loc) {
  std::string Name = Callee->getName();
  for (unsigned I : Drop)
    Name += "_no" + Callee->getParam(I)->getName();
  // Keyed by the user function: a callee that a later request generates
  // again (dropUnusedFunctions removed it) finds the variant made from its
  // earlier copy (the same name, the same code).
  const DerivedFunction *Of = Derived.find(Callee);
  std::string Key = DerivedFunctionSet::keyFor(Of ? Of->Primal : Callee, Name);
  if (Function *F = Derived.lookup(Key))
    return F;
  if (!Callee->getBody() || !Of) {
    report(Loc, "meshad::hvp: the gradient is passed to '" +
                    Callee->getName() + "', which is not generated code");
    return nullptr;
  }
  Function *V =
      M.createFunction(Name, Callee->getReturnType(), Callee->getTarget());
  V->setQualifiers(Callee->getQualifiers());
  V->setNamespace(Callee->getNamespace());
  V->setLoc(Callee->getLoc());
  V->setDerivativeOrder(Callee->getDerivativeOrder());
  Derived.add(Key, V, Callee);
  std::set<ir::Function *> Calls = Derived.find(Callee)->Callees;
  for (ir::Function *G : Calls)
    Derived.addCall(V, G);
  std::vector<Var *> Params;
  for (unsigned I = 0; I < Callee->getNumParams(); ++I)
    if (std::find(Drop.begin(), Drop.end(), I) == Drop.end())
      Params.push_back(Callee->getParam(I));
  V->setParams(Params);
  V->setBody(Callee->getBody()); // Copied by dropBuffer: Callee stays.
  for (unsigned I : Drop)
    if (!dropBuffer(*V, Callee->getParam(I), Callee->getParam(I)->getName(),
                    Loc))
      return nullptr;
  removeDeadLocals(*V);
  cleanUp(*V);
  return V;
}

/// The scalar locals of \p F whose only uses are declarations, plain
/// stores and their addresses passed to generated functions (results that
/// nobody reads), with the calls passing them.
static VarSet unreadResults(const Function &F,
                            const DerivedFunctionSet &Derived) {
  llvm::DenseMap<const Var *, int> Uses;
  VarSet Passed;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    const auto *A = dyn_cast<AssignStmt>(S);
    for (const Expr *E : ownExprs(S)) {
      if (A && A->getOp() == AssignOp::Assign && E == A->getLHS() &&
          isa<VarRefExpr>(E) && isPureExpr(A->getRHS()))
        continue; // A plain store is not a use.
      forEachExpr(E, [&](const Expr *X) {
        if (const auto *R = dyn_cast<VarRefExpr>(X))
          ++Uses[R->getVar()];
        const auto *C = dyn_cast<CallExpr>(X);
        if (!C || !C->getUserCallee() || !Derived.find(C->getUserCallee()))
          return;
        for (const Expr *Arg : C->getArgs()) {
          const auto *U = dyn_cast<UnaryExpr>(Arg);
          const auto *R =
              U && U->getOp() == UnaryOp::AddrOf
                  ? dyn_cast<VarRefExpr>(U->getSub())
                  : nullptr;
          if (R && R->getVar()->getStorage() == Var::Storage::Local &&
              !R->getVar()->getType()->isIndexable()) {
            --Uses[R->getVar()]; // Counted again as a VarRef.
            Passed.insert(R->getVar());
          }
        }
      });
    }
  });
  VarSet Unread;
  for (const Var *V : Passed)
    if (Uses.lookup(V) == 0)
      Unread.insert(V);
  return Unread;
}

void HvpTransformer::dropUnreadResults(Function &F) {
  VarSet Unread = unreadResults(F, Derived);
  if (Unread.empty())
    return;
  IRCloner C(M);
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    const auto *ES = dyn_cast<ExprStmt>(S);
    const auto *Call = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
    if (!Call || Call->getCalleeKind() != CallExpr::CalleeKind::User)
      return std::nullopt;
    // A callee that reads a result back keeps it: no error, no variant.
    size_t Mark = Derived.entries().size();
    bool Ok = true, WasQuiet = Quiet;
    Quiet = true;
    const Stmt *New = callWithout(F, Call, Unread, C, Ok);
    Quiet = WasQuiet;
    if (Ok)
      return New ? std::optional<const Stmt *>(New) : std::nullopt;
    Derived.truncate(Mark);
    return std::nullopt;
  });
  F.setBody(C.cloneBlock(F.getBody()));
  removeDeadLocals(F);
}

void HvpTransformer::cleanUp(Function &F) {
  dropUnreadResults(F);
  removeDeadPushforwards(M, F, Derived);
}

void HvpTransformer::report(clang::SourceLocation Loc, const std::string &Msg) {
  if (!Quiet)
    Diags.error(Loc, Msg);
}

void HvpTransformer::dropUnusedFunctions(size_t Mark, Function *H) {
  const std::vector<DerivedFunction> &Entries = Derived.entries();
  for (size_t I = Mark; I < Entries.size(); ++I)
    Derived.recomputeCalls(Entries[I].Derived);
  std::vector<Function *> Used = Derived.closure(H);
  std::set<const Function *> Keep(Used.begin(), Used.end());
  for (size_t I = Entries.size(); I-- > Mark;)
    if (!Keep.count(Entries[I].Derived))
      Derived.remove(Entries[I].Derived);
}

namespace {

/// How forward mode seeds the inner gradient of an HVP: directions on the
/// selected inputs and on their adjoints (the gradient's own buffers, which
/// the HVP drops); the adjoints of the outputs are seeds it only reads.
struct InnerSeeds {
  std::vector<ParamSeed> Seeds;
  /// The adjoint parameters of the selected inputs, and the names of those.
  std::vector<Var *> Buffers;
  std::vector<std::string> BufferOf;
  /// The adjoint parameters of the outputs.
  std::vector<Var *> Seeded;
};

} // namespace

/// The seeds of the gradient \p G of \p Primal w.r.t. the parameters
/// flagged in \p Inner (G's adjoint parameters follow Primal's, one per
/// flagged parameter), with directions on those flagged in \p Selected.
static InnerSeeds seedInner(const Function &Primal, Function &G,
                            const std::vector<bool> &Selected,
                            const std::vector<bool> &Inner) {
  InnerSeeds S;
  S.Seeds.resize(G.getNumParams());
  unsigned N = Primal.getNumParams();
  for (unsigned I = 0, K = N; I < N; ++I) {
    if (!Inner[I])
      continue;
    Var *A = G.getParam(K);
    if (Selected[I]) {
      S.Seeds[I] = ParamSeed::tangent();
      S.Seeds[K] = ParamSeed::tangent();
      S.Buffers.push_back(A);
      S.BufferOf.push_back(Primal.getParam(I)->getName());
    } else {
      S.Seeded.push_back(A);
    }
    ++K;
  }
  return S;
}

/// The tangent parameter of forward mode's \p H for each parameter of \p G
/// that \p Final seeds: they follow G's, in G's parameter order.
static std::map<const Var *, Var *>
tangentParams(const Function &G, const Function &H,
              const std::vector<ParamSeed> &Final) {
  std::map<const Var *, Var *> TangentOf;
  for (unsigned I = 0, T = G.getNumParams(); I < G.getNumParams(); ++I)
    if (Final[I].K == ParamSeed::Kind::Tangent)
      TangentOf[G.getParam(I)] = H.getParam(T++);
  return TangentOf;
}

/// The HVP's parameters: \p Primal's, the tangents of the selected inputs
/// (the directions), the tangents of the gradient's buffers (the results,
/// their users' names in \p UserNames), the output seeds.
static std::vector<Var *>
hvpParams(const Function &Primal, const std::vector<bool> &Selected,
          const InnerSeeds &S, const std::map<const Var *, Var *> &TangentOf,
          std::map<const Var *, std::string> &UserNames) {
  std::vector<Var *> Params(Primal.getParams().begin(),
                            Primal.getParams().end());
  for (unsigned I = 0; I < Primal.getNumParams(); ++I)
    if (Selected[I])
      Params.push_back(TangentOf.at(Primal.getParam(I)));
  for (unsigned I = 0; I < S.Buffers.size(); ++I) {
    Params.push_back(TangentOf.at(S.Buffers[I]));
    UserNames[Params.back()] = S.BufferOf[I];
  }
  Params.insert(Params.end(), S.Seeded.begin(), S.Seeded.end());
  return Params;
}

bool HvpTransformer::finishHvp(Function &H, Function *Primal, size_t Mark,
                               std::map<const Var *, std::string> UserNames) {
  PassPipeline Finish(Diags, Reverse.isVerifying());
  Finish.add("hvp-clean-up", [&](ir::Function &F) {
    spreadSharedShadows(M, F);
    dropUnreadAdjointBuffers(M, F);
    removeDeadLocals(F);
    cleanUp(F);
    dropUnusedFunctions(Mark, &F);
  });
  LoweringRequest Lowering;
  Lowering.ForceAtomics = Reverse.getForceAtomics();
  Lowering.UserNames = std::move(UserNames);
  addLoweringPasses(Finish, M, Diags, std::move(Lowering));
  return Finish.run(H, Primal);
}

ir::Function *HvpTransformer::deriveHvp(Function *Primal,
                                        const std::vector<bool> &Selected,
                                        const std::string &Name,
                                        clang::SourceLocation Loc) {
  std::vector<bool> Outputs;
  if (!findOutputs(*Primal, Selected, Outputs, Loc))
    return nullptr;
  size_t Mark = Derived.entries().size();
  unsigned N = Primal->getNumParams();
  std::vector<bool> Inner(N);
  for (unsigned I = 0; I < N; ++I)
    Inner[I] = Selected[I] || Outputs[I];
  // 1. The gradient, unlowered. Output seeds are only read (KeepSeeds), so
  //    that the user's seed arrays stay as they are.
  Function *G = Reverse.deriveUnloweredGradient(
      Primal, Inner, derivedName(*Primal, Inner, "_grad") + "_inner", Loc,
      /*KeepSeeds=*/Primal->isKernel());
  if (!G)
    return nullptr;
  // 2. Forward mode over it: directions on the selected inputs; the
  //    tangents of their adjoints are the results.
  InnerSeeds S = seedInner(*Primal, *G, Selected, Inner);
  Function *H = Forward.deriveRequest(G, S.Seeds, Name);
  Derived.remove(G);
  if (!H)
    return nullptr;
  std::map<const Var *, Var *> TangentOf =
      tangentParams(*G, *H, Forward.getLastSeeds());
  for (Var *Seed : S.Seeded)
    if (TangentOf.count(Seed)) {
      Diags.error(Loc, "meshad::hvp of '" + Primal->getName() +
                           "': the seed of output '" + Seed->getName() +
                           "' would carry a derivative");
      return nullptr;
    }
  // 3. Drop the gradient's own buffers; 4. lower the adds.
  for (unsigned I = 0; I < S.Buffers.size(); ++I)
    if (!dropBuffer(*H, S.Buffers[I], S.BufferOf[I], Loc))
      return nullptr;
  std::map<const Var *, std::string> UserNames;
  H->setParams(hvpParams(*Primal, Selected, S, TangentOf, UserNames));
  return finishHvp(*H, Primal, Mark, std::move(UserNames)) ? H : nullptr;
}
