//===- GPU/LowerAccumulations.cpp - Choose the form of adjoint adds -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/LowerAccumulations.h"
#include "AD/Analysis/Activity.h"
#include "GPU/AdjointOwnership.h"
#include "GPU/Ownership.h"
#include "GPU/AccumulationPolicy.h"
#include "GPU/AtomicCombiner.h"
#include "GPU/GatherTiles.h"
#include "IR/Markers.h"
#include "IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

static bool isAccumulate(const Stmt *S) {
  const auto *A = dyn_cast<AssignStmt>(S);
  return A && A->getOp() == AssignOp::Accumulate;
}

/// The pointer \p LHS is `*P` or `P[0]` of, or null.
static const Var *scalarTarget(const Expr *LHS) {
  const Expr *Base = nullptr;
  if (const auto *U = dyn_cast<UnaryExpr>(LHS)) {
    if (U->getOp() == UnaryOp::Deref)
      Base = U->getSub();
  } else if (const auto *I = dyn_cast<IndexExpr>(LHS)) {
    const auto *Lit = dyn_cast<IntLitExpr>(I->getIndex());
    if (Lit && Lit->getValue() == 0)
      Base = I->getBase();
  }
  const auto *Ref = llvm::dyn_cast_or_null<VarRefExpr>(Base);
  return Ref ? Ref->getVar() : nullptr;
}

/// The pointer parameters of \p F that hold a scalar's result: every use is
/// the target of an Accumulate into `*P` or `P[0]` (never read).
static llvm::SetVector<const Var *> scalarResults(const Function &F) {
  llvm::DenseMap<const Var *, unsigned> Uses, Adds;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (isAccumulate(S))
      if (const Var *P = scalarTarget(cast<AssignStmt>(S)->getLHS()))
        ++Adds[P];
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *Sub) {
        if (const auto *Ref = dyn_cast<VarRefExpr>(Sub))
          ++Uses[Ref->getVar()];
      });
  });
  llvm::SetVector<const Var *> Result;
  for (const Var *P : F.getParams())
    if (P->getType()->isPointer() && Adds.lookup(P) != 0 &&
        Adds.lookup(P) == Uses.lookup(P))
      Result.insert(P);
  return Result;
}

/// True when every use of \p P in \p F is the root of an Accumulate's
/// target: \p P is neither read nor passed on.
static bool onlyAccumulated(const Function &F, const Var *P) {
  unsigned Uses = 0, Adds = 0;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (isAccumulate(S) &&
        ActivityAnalysis::getRootVar(cast<AssignStmt>(S)->getLHS()) == P)
      ++Adds;
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *Sub) {
        const auto *Ref = dyn_cast<VarRefExpr>(Sub);
        Uses += Ref && Ref->getVar() == P;
      });
  });
  return Adds == Uses;
}

static bool hasReturn(const Function &F) {
  bool Any = false;
  forEachStmt(F.getBody(),
              [&](const Stmt *S) { Any |= llvm::isa<ReturnStmt>(S); });
  return Any;
}

/// \p Base, or \p Base with a number, unused by \p F.
static std::string uniqueName(const Function &F, const std::string &Base) {
  llvm::StringSet<> Used;
  for (const Var *P : F.getParams())
    Used.insert(P->getName());
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S))
      Used.insert(D->getVar()->getName());
  });
  std::string Name = Base;
  for (unsigned N = 1; Used.count(Name); ++N)
    Name = Base + std::to_string(N);
  return Name;
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
  AccumulationLowering(Module &M, Function &F, AccumulationPolicy &Policy,
                       const std::map<const Var *, std::string> &UserNames)
      : M(M), F(F), B(M), Policy(Policy), UserNames(UserNames) {
    markSharedPointers();
  }

  void run() {
    if (F.isKernel() && !Policy.isForcingAtomics())
      classifyTargets();
    lowerBlock(F.getBody());
    combineLowered();
    addBlockReductions();
    if (LaunchDims == 1 || LaunchDims == 2)
      requireLaunchShape();
    gatherTileAdds();
  }

  /// Lowers the Accumulates of a function of reverse mode, whose policy
  /// holds its \p Facts: the adds of its reverse sweep are combined, not
  /// those of the epilogue (after the marker EpilogueBegin), and the
  /// launch-shape check goes where its setup ends (the marker SetupEnd).
  /// The markers go last.
  void runOnReverse(const AccumulationFacts &Facts) {
    llvm::SmallPtrSet<const Stmt *, 4> Epilogue = epilogueStmts();
    Uncombined = &Epilogue;
    lowerBlock(F.getBody());
    combineLowered();
    for (const AccumulationFacts::Owned &O : Facts.Ownership)
      mergeLaunchDims(LaunchDims, O.Result);
    if (LaunchDims == 1 || LaunchDims == 2) {
      size_t At = findMarker(*F.getBody(), MarkerStmt::Region::SetupEnd);
      requireLaunchShape(At == NoMarker ? 0 : At);
    }
    dropMarkers(F);
  }

private:
  /// Tells the policy which pointer locals of device code may point into
  /// memory other threads share: those set from a parameter, __shared__ or
  /// global memory, a call's result, or another such pointer (a local
  /// array's elements are the thread's own).
  void markSharedPointers() {
    if (F.getTarget() == CudaTarget::HostOnly || !F.getBody())
      return;
    llvm::DenseMap<const Var *, llvm::SmallVector<const Expr *, 2>> Sources;
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      const Var *V = nullptr;
      const Expr *From = nullptr;
      if (const auto *D = dyn_cast<DeclStmt>(S)) {
        V = D->getVar();
        From = D->getInit();
      } else if (const auto *A = dyn_cast<AssignStmt>(S);
                 A && A->getOp() == AssignOp::Assign) {
        const auto *R = dyn_cast<VarRefExpr>(A->getLHS());
        V = R ? R->getVar() : nullptr;
        From = A->getRHS();
      }
      if (V && From && V->getStorage() == Var::Storage::Local &&
          V->getType()->isPointer())
        Sources[V].push_back(From);
    });
    llvm::SmallPtrSet<const Var *, 4> Shared;
    auto MayShare = [&](const Expr *E) {
      const Expr *Inner = E;
      while (const auto *C = dyn_cast<CastExpr>(Inner))
        Inner = C->getSub();
      if (const auto *L = dyn_cast<IntLitExpr>(Inner); L && L->getValue() == 0)
        return false; // nullptr
      if (llvm::isa<InitListExpr>(Inner))
        return false; // `= {}`
      const Var *R = ActivityAnalysis::getRootVar(E);
      return !R || R->getStorage() != Var::Storage::Local || Shared.count(R);
    };
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (auto &[V, Froms] : Sources)
        if (!Shared.count(V) && llvm::any_of(Froms, MayShare))
          Changed = Shared.insert(V).second;
    }
    for (const Var *V : Shared)
      Policy.addSharedPointer(V);
  }

  /// In device code, combines the adds lowered from Accumulates (not the
  /// user's own) to one element (GPU/AtomicCombiner).
  void combineLowered() {
    if (F.getTarget() == CudaTarget::HostOnly)
      return;
    combineAtomics(B, F.getBody(),
                   [&](const Stmt *S) { return Lowered.count(S) != 0; });
  }

  /// The statements of the epilogue of a function of reverse mode: those
  /// after its marker EpilogueBegin, at any depth.
  llvm::SmallPtrSet<const Stmt *, 4> epilogueStmts() const {
    llvm::SmallPtrSet<const Stmt *, 4> Result;
    const std::vector<const Stmt *> &Body = F.getBody()->getBody();
    size_t Begin = findMarker(*F.getBody(), MarkerStmt::Region::EpilogueBegin);
    for (size_t I = Begin == NoMarker ? Body.size() : Begin + 1;
         I < Body.size(); ++I)
      forEachStmt(Body[I], [&](const Stmt *S) { Result.insert(S); });
    return Result;
  }

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
    llvm::SetVector<const Var *> Scalars = scalarResults(F);
    bool Returns = hasReturn(F);
    OwnershipAnalysis Ownership(F);
    for (const Var *P : Targets) {
      auto It = UserNames.find(P);
      std::string Name = It != UserNames.end() ? It->second : P->getName();
      if (Scalars.count(P) && !Returns &&
          F.getTarget() != CudaTarget::HostOnly) {
        addBlockSum(P, Name);
        continue;
      }
      OwnershipResult R = classifyAdjoint(Ownership, P, nullptr, nullptr);
      if (Scalars.count(P) && Returns)
        R.Reason += "; not summed per block: the function has a return "
                    "statement, so not every thread may reach the block "
                    "reduction";
      if (R.Class == OwnershipClass::TileExclusive)
        addTile(P, R, Returns);
      mergeLaunchDims(LaunchDims, R);
      Policy.setOwnership(P, R, Name);
    }
  }

  /// Sums the adds into the scalar result \p P in a register of the thread.
  void addBlockSum(const Var *P, const std::string &Name) {
    const Type *Ty = P->getType()->getElement()->getUnqualified();
    Var *Part = M.createVar(uniqueName(F, P->getName() + "_part"), Ty);
    Policy.addBlockSum(Part, Name);
    Parts.push_back({P, Part});
  }

  /// Gives the tile-exclusive target \p P a shared-memory tile (the adds
  /// of the block's threads summed in shared memory, written back at the
  /// end of the kernel), or demotes \p R to Shared, saying why not.
  void addTile(const Var *P, OwnershipResult &R, bool Returns) {
    const Type *Elem = P->getType()->getElement()->getUnqualified();
    unsigned long long Slots = 0;
    std::string Why;
    if (Returns)
      Why = "the function has a return statement, so not every thread may "
            "reach the tile's write-back";
    else if (!Elem->isFloatingScalar())
      Why = "its elements are not floating-point scalars";
    else if (!onlyAccumulated(F, P))
      Why = "the function also reads " + P->getName() + " or passes it on";
    else
      Slots = AccumulationPolicy::tileSlots(Elem, R, M.getTypes(), TileBytes,
                                            Why);
    if (!Why.empty()) {
      R.Class = OwnershipClass::Shared;
      R.Reason += "; not tiled: " + Why;
      return;
    }
    Var *Tile = M.createVar(uniqueName(F, P->getName() + "_tile"),
                            M.getTypes().getArray(Elem, Slots),
                            Var::Storage::Shared);
    Policy.addTile(P, Tile, R);
    Tiles.push_back({P, Tile, R});
  }

  /// Turns the tiles into gathers where the kernel allows it, as for
  /// gradients (GPU/GatherTiles), and completes the tile stores' remarks.
  void gatherTileAdds() {
    if (Tiles.empty())
      return;
    std::vector<GatherTile> Gathers;
    for (const TileInfo &T : Tiles)
      Gathers.push_back({T.P, T.Tile, T.Result.TileStride});
    std::string WhyNot;
    bool Done = gatherTiles(
        B, F, Gathers,
        [this](const std::string &Base) { return uniqueName(F, Base); },
        WhyNot);
    Policy.finishTileRemarks(Done, WhyNot);
  }

  /// `meshad::<Fn><c, lo, hi>(Args...);` for the tile \p T.
  const Stmt *tileCall(const char *Fn, const OwnershipResult &R,
                       std::vector<const Expr *> Args) {
    return M.create<ExprStmt>(M.create<CallExpr>(
        M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
        AccumulationPolicy::tileFunction(Fn, R), -1, std::move(Args)));
  }

  /// Declares the partial sums and the tiles at the top of the kernel (the
  /// tiles zeroed), and at its end, which every thread reaches (no return),
  /// reduces the sums per block and writes the tiles back.
  void addBlockReductions() {
    if (Parts.empty() && Tiles.empty())
      return;
    std::vector<const Stmt *> Body;
    for (auto &[P, Part] : Parts)
      Body.push_back(B.decl(Part, B.zero(Part->getType())));
    for (const TileInfo &T : Tiles)
      Body.push_back(B.decl(T.Tile, nullptr));
    for (const TileInfo &T : Tiles)
      Body.push_back(tileCall("tileZero", T.Result, {B.ref(T.Tile)}));
    for (const Stmt *S : F.getBody()->getBody())
      Body.push_back(S);
    for (auto &[P, Part] : Parts)
      Body.push_back(M.create<ExprStmt>(M.create<CallExpr>(
          M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
          "meshad::blockReduceAtomicAdd", -1,
          std::vector<const Expr *>{B.ref(const_cast<Var *>(P)),
                                    B.ref(Part)})));
    for (const TileInfo &T : Tiles)
      Body.push_back(tileCall("tileWriteBack", T.Result,
                              {B.ref(T.Tile), B.ref(const_cast<Var *>(T.P))}));
    F.getBody()->setBody(std::move(Body));
  }

  /// The register holding the thread's sum for the scalar result \p P.
  Var *partOf(const Var *P) const {
    for (auto &[Q, Part] : Parts)
      if (Q == P)
        return Part;
    return nullptr;
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
      const Expr *LHS = A->getLHS();
      const Var *Root = ActivityAnalysis::getRootVar(LHS);
      if (Var *Part = partOf(Root)) {
        LHS = B.ref(Part);
        Root = Part;
      }
      Policy.emit(B, LHS, Root, A->getRHS(), Out, A->getLoc());
      bool Combines = !Uncombined || !Uncombined->count(S);
      for (const Stmt *X : Out->getBody()) {
        Body.push_back(X);
        if (Combines)
          Lowered.insert(X);
      }
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

  /// Plain stores into thread-exclusive arrays rely on the launch shape:
  /// checked by the top-level statement \p At of the body (first: 0).
  void requireLaunchShape(size_t At = 0) {
    auto *Check = M.create<CallExpr>(
        M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
        LaunchDims == 1 ? "meshad::requireLaunch1D" : "meshad::requireLaunch2D",
        -1, std::vector<const Expr *>{});
    std::vector<const Stmt *> Body = F.getBody()->getBody();
    Body.insert(Body.begin() + At, M.create<ExprStmt>(Check));
    F.getBody()->setBody(std::move(Body));
  }

  Module &M;
  Function &F;
  IRBuilder B;
  AccumulationPolicy &Policy;
  const std::map<const Var *, std::string> &UserNames;
  unsigned LaunchDims = 0;
  /// Reverse mode: the Accumulates not to combine. The statements lowered
  /// from the others (the reverse sweep's, all of a composed derivative's).
  const llvm::SmallPtrSetImpl<const Stmt *> *Uncombined = nullptr;
  llvm::SmallPtrSet<const Stmt *, 16> Lowered;
  /// Scalar results summed per thread, with their registers.
  std::vector<std::pair<const Var *, Var *>> Parts;
  /// Tile-exclusive targets summed in shared-memory tiles.
  struct TileInfo {
    const Var *P;
    Var *Tile;
    OwnershipResult Result;
  };
  std::vector<TileInfo> Tiles;
  /// Shared memory that the tiles take so far.
  unsigned long long TileBytes = 0;
};

} // namespace

void meshad::lowerAccumulations(
    Module &M, Function &F, DiagnosticSink &Diags, bool ForceAtomics,
    const std::map<const Var *, std::string> &UserNames) {
  dropMarkers(F);
  AccumulationPolicy Policy(F.getTarget(), Diags);
  Policy.setForceAtomics(ForceAtomics);
  for (auto &[V, Name] : UserNames)
    Policy.setPrimalName(V, Name);
  AccumulationLowering(M, F, Policy, UserNames).run();
}

void AccumulationFacts::configure(AccumulationPolicy &P) const {
  P.setForceAtomics(ForceAtomics);
  for (auto &[V, Name] : PrimalNames)
    P.setPrimalName(V, Name);
  for (const Var *V : ThreadPrivate)
    P.addThreadPrivate(V);
  for (auto &[Part, Name] : BlockSums)
    P.addBlockSum(Part, Name);
  for (const Owned &O : Ownership)
    P.setOwnership(O.Adjoint, O.Result, O.PrimalName);
  for (const UniformElement &U : UniformElements)
    P.addUniformElement(U.Adjoint, U.Index, U.Part);
  for (const Tile &T : Tiles)
    P.addTile(T.Adjoint, T.Tile, T.Result);
}

void meshad::lowerReverseAccumulations(Module &M, Function &F,
                                       AccumulationPolicy &Policy,
                                       const AccumulationFacts &Facts) {
  const std::map<const Var *, std::string> NoNames;
  AccumulationLowering(M, F, Policy, NoNames).runOnReverse(Facts);
}

void meshad::mergeLaunchDims(unsigned &Dims, const OwnershipResult &R) {
  bool Relies = R.Class == OwnershipClass::ThreadExclusive ||
                R.Class == OwnershipClass::TileExclusive;
  if (Relies && R.LaunchDims != 0)
    Dims = Dims == 0 ? R.LaunchDims : std::min(Dims, R.LaunchDims);
}
