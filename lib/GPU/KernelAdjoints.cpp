//===- GPU/KernelAdjoints.cpp - Tiles and registers of kernel adjoints ----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/KernelAdjoints.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "GPU/AdjointOwnership.h"
#include "GPU/AccumulationPolicy.h"
#include "GPU/ScalarSums.h"
#include "IR/Builder.h"
#include "IR/Markers.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

using Region = MarkerStmt::Region;

OwnershipResult meshad::assertedExclusive(const Var *P,
                                          const OwnershipResult &R) {
  if (R.Class == OwnershipClass::ThreadExclusive)
    return R; // Proven anyway: keep the proof's reason.
  OwnershipResult A;
  A.Class = OwnershipClass::ThreadExclusive;
  A.Asserted = true;
  A.Reason = "MESHAD_THREAD_EXCLUSIVE on " + P->getName() +
             "; the analysis alone found it " + getOwnershipName(R.Class) +
             " (" + R.Reason + ")";
  return A;
}

/// `meshad::<Fn>(Args...);`.
static const Stmt *callStmt(Module &M, const std::string &Fn,
                            std::vector<const Expr *> Args) {
  return M.create<ExprStmt>(M.create<CallExpr>(M.getTypes().getVoid(),
                                               CallExpr::CalleeKind::Intrinsic,
                                               Fn, -1, std::move(Args)));
}

/// Inserts \p New into the body of \p F before its statement \p At.
static void insertAt(Function &F, size_t At, std::vector<const Stmt *> New) {
  std::vector<const Stmt *> Body = F.getBody()->getBody();
  Body.insert(Body.begin() + At, New.begin(), New.end());
  F.getBody()->setBody(std::move(Body));
}

/// Inserts \p New before the marker \p R of \p F (at the end without one).
static void insertBefore(Function &F, Region R, std::vector<const Stmt *> New) {
  size_t At = findMarker(*F.getBody(), R);
  insertAt(F, At == NoMarker ? F.getBody()->getBody().size() : At,
           std::move(New));
}

namespace {

/// Decides and places the tiles and registers of one function's kernel
/// adjoint arrays.
class KernelAdjointPlanner {
public:
  KernelAdjointPlanner(Module &M, Function &F, AccumulationFacts &Facts)
      : M(M), F(F), B(M), Facts(Facts), Primal(*Facts.Primal), Finished(F) {}

  void run() {
    for (const AdjointArray &A : Facts.KernelArrays)
      classify(A);
    placeRegisters();
    placeTiles();
  }

private:
  void classify(const AdjointArray &A) {
    const Var *P = A.Param;
    // The finished function's accesses decide; the primal gives the
    // wording, and the decision where the adds' own indices are not
    // understood (GPU/AdjointOwnership).
    OwnershipResult R = classifyAdjoint(Finished, A.Adjoint, &Primal, P);
    if (P->isAssertedExclusive())
      R = assertedExclusive(P, R);
    if (R.Class == OwnershipClass::TileExclusive)
      addTile(A, R);
    Facts.Ownership.push_back({A.Adjoint, R, P->getName()});
    // A read-only element every thread reads: its adjoint is summed in a
    // register and reduced per block.
    const Type *Elem = P->getType()->getElement();
    if (R.Class == OwnershipClass::Uniform && R.HasLiteralIndex &&
        Facts.Gradient && Elem->isConst() && Elem->isFloatingScalar()) {
      std::string Name = Facts.FreshName(A.Adjoint->getName() + "_" +
                                         std::to_string(R.UniformIndex) +
                                         "_part");
      Var *Part = M.createVar(Name, Elem->getUnqualified());
      Facts.UniformElements.push_back({A.Adjoint, R.UniformIndex, Part});
    }
  }

  /// Gives the tile-exclusive array of \p A a shared-memory tile, or
  /// demotes \p R to Shared, saying why not.
  void addTile(const AdjointArray &A, OwnershipResult &R) {
    const Type *Elem = A.Param->getType()->getElement();
    unsigned long long Slots = 0;
    std::string Why;
    if (!Facts.Gradient)
      Why = "pullbacks do not tile";
    else if (!Elem->isFloatingScalar())
      Why = "its elements are not floating-point scalars";
    else if (writesMemoryOf(Facts.Primal->getBody(), A.Param))
      Why = "the kernel also writes " + A.Param->getName();
    else
      Slots = AccumulationPolicy::tileSlots(Elem, R, M.getTypes(), TileBytes,
                                            Why);
    if (!Why.empty()) {
      R.Class = OwnershipClass::Shared;
      R.Reason += "; not tiled: " + Why;
      return;
    }
    const Type *TileTy = M.getTypes().getArray(Elem->getUnqualified(), Slots);
    Var *Tile = M.createVar(Facts.FreshName(A.Adjoint->getName() + "_tile"),
                            TileTy, Var::Storage::Shared);
    Facts.Tiles.push_back({A.Adjoint, Tile, R});
  }

  /// The uniform elements' registers: declared after the function's other
  /// registers (the scalar parameters' sums, GPU/ScalarSums), before the
  /// adjoints of its __shared__ memory (which end the setup), and reduced
  /// per block at the end of the epilogue.
  void placeRegisters() {
    if (Facts.UniformElements.empty())
      return;
    size_t At = registersEnd(F);
    std::vector<const Stmt *> Decls, Reductions;
    for (const AccumulationFacts::UniformElement &U : Facts.UniformElements) {
      Var *Part = const_cast<Var *>(U.Part);
      Decls.push_back(B.decl(Part, B.zero(Part->getType())));
      Var *Adjoint = const_cast<Var *>(U.Adjoint);
      Reductions.push_back(callStmt(
          M, "meshad::blockReduceAtomicAdd",
          {B.addrOf(B.index(B.ref(Adjoint), B.intLit(U.Index))), B.ref(Part)}));
    }
    insertAt(F, At, std::move(Decls));
    insertBefore(F, Region::EpilogueEnd, std::move(Reductions));
  }

  /// The tiles: declared last in the setup, zeroed last before the forward
  /// sweep, written back last in the epilogue.
  void placeTiles() {
    std::vector<const Stmt *> Decls, Zeros, WriteBacks;
    for (const AccumulationFacts::Tile &T : Facts.Tiles) {
      Var *Tile = const_cast<Var *>(T.Tile);
      Var *Adjoint = const_cast<Var *>(T.Adjoint);
      Decls.push_back(B.decl(Tile, nullptr));
      Zeros.push_back(
          callStmt(M, AccumulationPolicy::tileFunction("tileZero", T.Result),
                   {B.ref(Tile)}));
      WriteBacks.push_back(callStmt(
          M, AccumulationPolicy::tileFunction("tileWriteBack", T.Result),
          {B.ref(Tile), B.ref(Adjoint)}));
    }
    if (Decls.empty())
      return;
    insertBefore(F, Region::SetupEnd, std::move(Decls));
    insertBefore(F, Region::ForwardBegin, std::move(Zeros));
    insertBefore(F, Region::EpilogueEnd, std::move(WriteBacks));
  }

  Module &M;
  Function &F;
  IRBuilder B;
  AccumulationFacts &Facts;
  /// The primal kernel's accesses and the finished function's.
  OwnershipAnalysis Primal;
  OwnershipAnalysis Finished;
  /// Shared memory that the tiles take so far.
  unsigned long long TileBytes = 0;
};

} // namespace

void meshad::planKernelAdjoints(Module &M, Function &F,
                                AccumulationFacts &Facts) {
  if (!Facts.Primal || Facts.KernelArrays.empty() || Facts.ForceAtomics)
    return;
  KernelAdjointPlanner(M, F, Facts).run();
}
