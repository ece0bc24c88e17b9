//===- GPU/SeedResets.cpp - What happens to the seeds of outputs ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/SeedResets.h"
#include "AD/Analysis/Activity.h"
#include "GPU/Ownership.h"
#include "IR/Builder.h"
#include "IR/Intrinsics.h"
#include "IR/Markers.h"
#include "IR/Traversal.h"

#include <algorithm>
#include <memory>

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast_or_null;
using llvm::dyn_cast;

namespace {

/// A marked seed reset: where it is and whether a loop encloses it.
struct Reset {
  const AssignStmt *Store;
  const Var *Output; ///< The primal's parameter.
  bool InLoop;
};

/// Collects the seed resets of outputs in \p Facts under \p S.
void findResets(const Stmt *S, const KeepSeedsFacts &Facts, bool InLoop,
                std::vector<Reset> &Out) {
  if (!S)
    return;
  if (const auto *A = dyn_cast<AssignStmt>(S)) {
    if (!A->isSeedReset())
      return;
    const Var *Adjoint = ActivityAnalysis::getRootVar(A->getLHS());
    if (const Var *P = Facts.ParamOfAdjoint.lookup(Adjoint))
      Out.push_back({A, P, InLoop});
  } else if (const auto *Block = dyn_cast<BlockStmt>(S)) {
    for (const Stmt *Sub : Block->getBody())
      findResets(Sub, Facts, InLoop, Out);
  } else if (const auto *If = dyn_cast<IfStmt>(S)) {
    findResets(If->getThen(), Facts, InLoop, Out);
    findResets(If->getElse(), Facts, InLoop, Out);
  } else if (const auto *For = dyn_cast<ForStmt>(S)) {
    findResets(For->getBody(), Facts, true, Out);
  } else if (const auto *While = dyn_cast<WhileStmt>(S)) {
    findResets(While->getBody(), Facts, true, Out);
  } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
    findResets(Do->getBody(), Facts, true, Out);
  }
}

/// Why the seed of \p R's output cannot be kept, or "".
std::string whyNotKept(const Reset &R, const KeepSeedsFacts &Facts,
                       std::unique_ptr<OwnershipAnalysis> &Ownership) {
  const Var *Out = R.Output;
  if (!Facts.WriteOnly.count(Out))
    return "the kernel also reads it, so its adjoint on entry is the seed of "
           "its final contents and on exit that of its initial contents";
  if (R.InLoop)
    return "it is stored in a loop";
  unsigned Stores = Facts.PathStores.lookup(Out);
  if (Stores != 1)
    return "it is stored by " + std::to_string(Stores) +
           " statements on one path";
  if (!Ownership)
    Ownership = std::make_unique<OwnershipAnalysis>(*Facts.Primal);
  OwnershipResult Owned = Ownership->classify(Out);
  if (Owned.Class != OwnershipClass::ThreadExclusive &&
      !Out->isAssertedExclusive())
    return "no proof that two threads never store to the same element (" +
           Owned.Reason + "); declare it MESHAD_THREAD_EXCLUSIVE if they do "
           "not";
  return "";
}

/// \p S without the statements in \p Drop, at any depth.
void dropStmts(const Stmt *S, const llvm::SmallPtrSetImpl<const Stmt *> &Drop) {
  if (const auto *Block = dyn_cast_or_null<BlockStmt>(S)) {
    std::vector<const Stmt *> Kept;
    for (const Stmt *Sub : Block->getBody())
      if (!Drop.count(Sub))
        Kept.push_back(Sub);
    auto *Mutable = const_cast<BlockStmt *>(Block);
    if (Kept.size() != Block->getBody().size())
      Mutable->setBody(std::move(Kept));
    for (const Stmt *Sub : Block->getBody())
      dropStmts(Sub, Drop);
  } else if (const auto *If = dyn_cast_or_null<IfStmt>(S)) {
    dropStmts(If->getThen(), Drop);
    dropStmts(If->getElse(), Drop);
  } else if (const auto *For = dyn_cast_or_null<ForStmt>(S)) {
    dropStmts(For->getBody(), Drop);
  } else if (const auto *While = dyn_cast_or_null<WhileStmt>(S)) {
    dropStmts(While->getBody(), Drop);
  } else if (const auto *Do = dyn_cast_or_null<DoStmt>(S)) {
    dropStmts(Do->getBody(), Drop);
  }
}

} // namespace

bool meshad::keepSeeds(Function &F, const KeepSeedsFacts &Facts,
                       DiagnosticSink &Diags) {
  std::vector<Reset> Resets;
  findResets(F.getBody(), Facts, /*InLoop=*/false, Resets);
  // The reverse sweep runs backwards: check the stores in source order, so
  // that an output's error is at its first store.
  std::stable_sort(Resets.begin(), Resets.end(),
                   [](const Reset &L, const Reset &R) {
                     return L.Store->getLoc().getRawEncoding() <
                            R.Store->getLoc().getRawEncoding();
                   });
  std::unique_ptr<OwnershipAnalysis> Ownership;
  llvm::SmallPtrSet<const Var *, 4> Checked;
  llvm::SmallPtrSet<const Stmt *, 8> Kept;
  bool Ok = true;
  for (const Reset &R : Resets) {
    bool First = Checked.insert(R.Output).second;
    std::string Why = whyNotKept(R, Facts, Ownership);
    if (Why.empty()) {
      Kept.insert(R.Store);
      continue;
    }
    Ok = false;
    clang::SourceLocation Loc = R.Store->getLoc();
    if (First)
      Diags.error(Loc.isValid() ? Loc : Facts.RequestLoc,
                  "meshad::KeepSeeds: the seed of '" + R.Output->getName() +
                      "' cannot be kept: " + Why +
                      "; use the default (meshad::ResetSeeds)");
  }
  dropStmts(F.getBody(), Kept);
  return Ok;
}

//===----------------------------------------------------------------------===//
// Where the resets of the seeds' last uses go
//===----------------------------------------------------------------------===//

using Region = MarkerStmt::Region;

/// True when a statement of \p F between the markers EpilogueBegin and
/// EpilogueEnd calls a block barrier.
static bool epilogueHasBarrier(const Function &F) {
  const std::vector<const Stmt *> &Body = F.getBody()->getBody();
  size_t Begin = findMarker(*F.getBody(), Region::EpilogueBegin);
  size_t End = findMarker(*F.getBody(), Region::EpilogueEnd);
  if (Begin == NoMarker || End == NoMarker)
    return false;
  bool Barrier = false;
  for (size_t I = Begin + 1; I < End; ++I)
    forEachStmt(Body[I], [&](const Stmt *S) {
      for (const Expr *E : ownExprs(S))
        forEachExpr(E, [&](const Expr *Sub) {
          const auto *C = dyn_cast<CallExpr>(Sub);
          const IntrinsicInfo *Info = C ? lookupIntrinsic(C) : nullptr;
          Barrier |= Info && Info->isBlockBarrier();
        });
    });
  return Barrier;
}

/// Where the sweep's temporaries end: the first statement after the marker
/// SetupEnd that is not a declaration.
static size_t temporariesEnd(const BlockStmt &Body) {
  const std::vector<const Stmt *> &Stmts = Body.getBody();
  size_t At = findMarker(Body, Region::SetupEnd);
  At = At == NoMarker ? 0 : At + 1;
  while (At < Stmts.size() && llvm::isa<DeclStmt>(Stmts[At]))
    ++At;
  return At;
}

namespace {

/// Defers the resets of the seeds' last uses of one function past its
/// epilogue.
class ResetDeferral {
public:
  ResetDeferral(Module &M, const AccumulationFacts &Facts)
      : M(M), B(M), Facts(Facts) {}

  void run(Function &F) {
    collect(F.getBody());
    if (Found.empty())
      return;
    std::vector<const Stmt *> Decls, Resets;
    for (const AssignStmt *R : Found) {
      const Type *Ty = R->getLHS()->getType()->getUnqualified();
      const Type *PtrTy = M.getTypes().getPointer(Ty);
      Var *Z = M.createVar(Facts.NumberedName("_z"), PtrTy,
                           Var::Storage::Local, VarRoles::Temporary);
      Decls.push_back(B.decl(Z, B.zero(PtrTy)));
      AssignStmt *Record =
          B.assign(B.ref(Z), AssignOp::Assign, B.addrOf(R->getLHS()));
      Record->setLoc(R->getLoc());
      Replacements[R] = Record;
      Resets.push_back(M.create<IfStmt>(
          B.ref(Z),
          M.create<BlockStmt>(std::vector<const Stmt *>{
              B.assign(B.unary(UnaryOp::Deref, B.ref(Z), Ty),
                       AssignOp::Assign, B.zero(Ty))}),
          nullptr));
    }
    replace(F.getBody());
    std::vector<const Stmt *> Body = F.getBody()->getBody();
    size_t End = findMarker(*F.getBody(), Region::EpilogueEnd);
    Body.insert(Body.begin() + End + 1, Resets.begin(), Resets.end());
    size_t At = temporariesEnd(*F.getBody());
    Body.insert(Body.begin() + At, Decls.begin(), Decls.end());
    F.getBody()->setBody(std::move(Body));
  }

private:
  /// The resets to defer under \p S in the order reverse mode made them:
  /// it sweeps the primal's statements in order and emits their adjoints
  /// backwards, so each block is walked from its end. Loops are not entered
  /// (a reset there is not a last use).
  void collect(const Stmt *S) {
    if (const auto *A = dyn_cast_or_null<AssignStmt>(S)) {
      if (A->isSeedReset() &&
          Facts.LastSeedUses.count(ActivityAnalysis::getRootVar(A->getLHS())))
        Found.push_back(A);
    } else if (const auto *Block = dyn_cast_or_null<BlockStmt>(S)) {
      for (auto It = Block->getBody().rbegin(); It != Block->getBody().rend();
           ++It)
        collect(*It);
    } else if (const auto *If = dyn_cast_or_null<IfStmt>(S)) {
      collect(If->getThen());
      collect(If->getElse());
    }
  }

  /// Replaces the deferred resets under \p S by their Replacements.
  void replace(const Stmt *S) {
    if (const auto *Block = dyn_cast_or_null<BlockStmt>(S)) {
      std::vector<const Stmt *> Body;
      for (const Stmt *Sub : Block->getBody()) {
        auto It = Replacements.find(Sub);
        Body.push_back(It == Replacements.end() ? Sub : It->second);
        replace(Sub);
      }
      const_cast<BlockStmt *>(Block)->setBody(std::move(Body));
    } else if (const auto *If = dyn_cast_or_null<IfStmt>(S)) {
      replace(If->getThen());
      replace(If->getElse());
    }
  }

  Module &M;
  IRBuilder B;
  const AccumulationFacts &Facts;
  std::vector<const AssignStmt *> Found;
  llvm::DenseMap<const Stmt *, const Stmt *> Replacements;
};

} // namespace

void meshad::placeSeedResets(Module &M, Function &F,
                             const AccumulationFacts &Facts) {
  // A global store in flight when the block waits at a barrier stalls it:
  // past the epilogue's barriers, the resets wait for nothing.
  if (Facts.LastSeedUses.empty() || !Facts.Gradient || Facts.ForceAtomics ||
      !epilogueHasBarrier(F))
    return;
  ResetDeferral(M, Facts).run(F);
}
