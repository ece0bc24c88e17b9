//===- GPU/SeedResets.cpp - What happens to the seeds of outputs ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/SeedResets.h"
#include "AD/Analysis/Activity.h"
#include "GPU/Ownership.h"

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
