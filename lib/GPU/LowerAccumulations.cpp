//===- GPU/LowerAccumulations.cpp - Choose the form of adjoint adds -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/LowerAccumulations.h"
#include "Analysis/Activity.h"
#include "Analysis/Ownership.h"
#include "IR/Traversal.h"
#include "Transform/AccumulationPolicy.h"

#include "llvm/ADT/SetVector.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

static bool isAccumulate(const Stmt *S) {
  const auto *A = dyn_cast<AssignStmt>(S);
  return A && A->getOp() == AssignOp::Accumulate;
}

bool meshad::hasAccumulations(const Function &F) {
  bool Any = false;
  forEachStmt(F.getBody(), [&](const Stmt *S) { Any |= isAccumulate(S); });
  return Any;
}

namespace {

/// Rewrites the blocks of one function in place.
class AccumulationLowering {
public:
  AccumulationLowering(Module &M, Function &F, DiagnosticSink &Diags,
                       bool ForceAtomics,
                       const std::map<const Var *, std::string> &UserNames)
      : M(M), F(F), B(M), Policy(F.getTarget(), Diags), UserNames(UserNames) {
    Policy.setForceAtomics(ForceAtomics);
    for (auto &[V, Name] : UserNames)
      Policy.setPrimalName(V, Name);
  }

  void run() {
    if (F.isKernel() && !Policy.isForcingAtomics())
      classifyTargets();
    lowerBlock(F.getBody());
    if (LaunchDims == 1 || LaunchDims == 2)
      requireLaunchShape();
  }

private:
  /// Runs the ownership analysis on the finished kernel for each pointer
  /// parameter that receives accumulations.
  void classifyTargets() {
    llvm::SetVector<const Var *> Targets;
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      if (isAccumulate(S))
        if (const Var *Root = ActivityAnalysis::getRootVar(
                cast<AssignStmt>(S)->getLHS()))
          if (Root->isParam() && Root->getType()->isPointer())
            Targets.insert(Root);
    });
    if (Targets.empty())
      return;
    OwnershipAnalysis Ownership(F);
    for (const Var *P : Targets) {
      OwnershipResult R = Ownership.classify(P);
      if (R.Class == OwnershipClass::TileExclusive) {
        R.Class = OwnershipClass::Shared;
        R.Reason += "; not tiled: tiles and gathers of composed derivatives "
                    "are not made yet";
      }
      bool Relies = R.Class == OwnershipClass::ThreadExclusive;
      if (Relies && R.LaunchDims != 0)
        LaunchDims = LaunchDims == 0 ? R.LaunchDims
                                     : std::min(LaunchDims, R.LaunchDims);
      auto It = UserNames.find(P);
      Policy.setOwnership(P, R, It != UserNames.end() ? It->second
                                                      : P->getName());
    }
  }

  void lowerBlock(const BlockStmt *Block) {
    if (!Block)
      return;
    std::vector<const Stmt *> Body;
    for (const Stmt *S : Block->getBody()) {
      if (!isAccumulate(S)) {
        lowerNested(S);
        Body.push_back(S);
        continue;
      }
      const auto *A = cast<AssignStmt>(S);
      BlockStmt *Out = B.block();
      Policy.emit(B, A->getLHS(), ActivityAnalysis::getRootVar(A->getLHS()),
                  A->getRHS(), Out, A->getLoc());
      for (const Stmt *X : Out->getBody())
        Body.push_back(X);
    }
    const_cast<BlockStmt *>(Block)->setBody(std::move(Body));
  }

  void lowerNested(const Stmt *S) {
    if (const auto *Sub = dyn_cast<BlockStmt>(S))
      return lowerBlock(Sub);
    if (const auto *I = dyn_cast<IfStmt>(S)) {
      lowerBlock(I->getThen());
      return lowerBlock(I->getElse());
    }
    if (const auto *L = dyn_cast<ForStmt>(S))
      return lowerBlock(L->getBody());
    if (const auto *W = dyn_cast<WhileStmt>(S))
      return lowerBlock(W->getBody());
    if (const auto *D = dyn_cast<DoStmt>(S))
      return lowerBlock(D->getBody());
  }

  /// Plain stores into thread-exclusive arrays rely on the launch shape.
  void requireLaunchShape() {
    auto *Check = M.create<CallExpr>(
        M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
        LaunchDims == 1 ? "meshad::requireLaunch1D" : "meshad::requireLaunch2D",
        -1, std::vector<const Expr *>{});
    std::vector<const Stmt *> Body{M.create<ExprStmt>(Check)};
    for (const Stmt *S : F.getBody()->getBody())
      Body.push_back(S);
    F.getBody()->setBody(std::move(Body));
  }

  Module &M;
  Function &F;
  IRBuilder B;
  AccumulationPolicy Policy;
  const std::map<const Var *, std::string> &UserNames;
  unsigned LaunchDims = 0;
};

} // namespace

void meshad::lowerAccumulations(
    Module &M, Function &F, DiagnosticSink &Diags, bool ForceAtomics,
    const std::map<const Var *, std::string> &UserNames) {
  AccumulationLowering(M, F, Diags, ForceAtomics, UserNames).run();
}
