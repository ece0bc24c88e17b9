//===- GPU/AccumulationPolicy.cpp - How adjoints are added ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/AccumulationPolicy.h"

#include "Analysis/IRWalk.h"
#include "GPU/AtomicAdvice.h"

#include <algorithm>

using namespace meshad;
using namespace meshad::ir;

void AccumulationPolicy::setOwnership(const Var *V, const OwnershipResult &R,
                                      const std::string &PrimalName) {
  Ownership[V] = {R, PrimalName};
  PrimalNames[V] = PrimalName;
}

AccumulationKind AccumulationPolicy::decide(const Var *Root,
                                            std::string *Why) const {
  auto Say = [&](const std::string &Text) {
    if (Why)
      *Why = Text;
  };
  if (Target == CudaTarget::HostOnly || !Root)
    return AccumulationKind::Plain;
  if (BlockSums.count(Root)) {
    Say("uniform: every thread adds to it; summed in a register, reduced per "
        "block with warp shuffles, then one atomicAdd per block");
    return AccumulationKind::Plain;
  }
  if (Private.count(Root)) {
    Say("its memory is private to the thread");
    return AccumulationKind::Plain;
  }
  if (SharedPointers.count(Root)) {
    Say("a pointer local into memory that other threads may share");
    return Target == CudaTarget::HostDevice ? AccumulationKind::HostDeviceAtomic
                                            : AccumulationKind::Atomic;
  }
  switch (Root->getStorage()) {
  case Var::Storage::Local:
  case Var::Storage::Global:
    Say("a local of the thread");
    return AccumulationKind::Plain;
  case Var::Storage::Shared:
    Say("__shared__ memory that the block's threads share");
    return AccumulationKind::Atomic;
  case Var::Storage::Param:
    break;
  }
  if (ForceAtomics && Root->getType()->isPointer()) {
    Say("atomics=all: the ownership analysis is off");
    return Target == CudaTarget::HostDevice ? AccumulationKind::HostDeviceAtomic
                                            : AccumulationKind::Atomic;
  }
  auto It = Ownership.find(Root);
  if (It != Ownership.end()) {
    const OwnershipResult &R = It->second.Result;
    std::string Text = std::string(getOwnershipName(R.Class)) +
                       (R.Asserted ? " (asserted by the user)" : "") + ": " +
                       R.Reason;
    switch (R.Class) {
    case OwnershipClass::ThreadExclusive:
      Say(Text);
      return AccumulationKind::Plain;
    case OwnershipClass::TileExclusive:
      if (!Tiles.count(Root))
        break;
      Say(Text);
      return AccumulationKind::Tile;
    case OwnershipClass::Uniform:
      Say(Text + "; summed per warp with shuffles, then one atomicAdd per "
                 "warp and address");
      return AccumulationKind::WarpAtomic;
    case OwnershipClass::Shared:
      break;
    }
    Say(Text);
    return AccumulationKind::Atomic;
  }
  if (!Root->getType()->isPointer()) {
    Say("not addressed by other threads");
    return AccumulationKind::Plain;
  }
  if (Target == CudaTarget::Global)
    Say("the adjoint of a scalar parameter is shared by all threads");
  else
    Say("a device function cannot know which threads share the memory it "
        "is given");
  return Target == CudaTarget::HostDevice ? AccumulationKind::HostDeviceAtomic
                                          : AccumulationKind::Atomic;
}

void AccumulationPolicy::finishTileRemarks(bool Gathered,
                                           const std::string &WhyNot) {
  for (const PendingRemark &P : PendingTiles) {
    std::string Name = PrimalNames.lookup(P.Root);
    if (Name.empty())
      Name = P.Root->getName();
    if (Gathered)
      Diags.remark(P.Loc, "adjoint store to '" + Name + "': gathered (" +
                              P.Why +
                              "; the thread that owns each element sums its "
                              "contributions from the neighbouring threads' "
                              "recomputed sweeps, then one plain += per "
                              "element: no shared memory, no atomics)");
    else
      Diags.remark(P.Loc,
                   "adjoint store to '" + Name + "': shared-memory tile (" +
                       P.Why +
                       "; summed per block in shared memory (a slot per "
                       "thread and offset, no atomics), then one plain += "
                       "per element (atomicAdd for the halo)" +
                       (WhyNot.empty() ? "" : "; not gathered: " + WhyNot) +
                       ")");
  }
  PendingTiles.clear();
}

std::string AccumulationPolicy::primalAccess(const Expr *Adjoint,
                                             const Var *Root) const {
  const auto *I = llvm::dyn_cast<IndexExpr>(Adjoint);
  if (!I || !Root)
    return "";
  std::string Name = PrimalNames.lookup(Root);
  return (Name.empty() ? Root->getName() : Name) + "[" +
         irwalk::spell(I->getIndex()) + "]";
}

void AccumulationPolicy::remark(const Var *Root, AccumulationKind K,
                                const std::string &Why,
                                clang::SourceLocation Loc,
                                const std::string &Access) {
  auto Owned = Ownership.find(Root);
  // An atomic store of a shared array: one remark per access it serves.
  bool SharedAtomic = K == AccumulationKind::Atomic && !ForceAtomics &&
                      Owned != Ownership.end() &&
                      Owned->second.Result.Class == OwnershipClass::Shared;
  if (!Loc.isValid() || !Diags.areRemarksEnabled() ||
      !Remarked.insert({Loc.getRawEncoding(), SharedAtomic ? Access : ""})
           .second)
    return;
  if (K == AccumulationKind::Tile) {
    // Gathered or tiled: known once the whole kernel is generated.
    PendingTiles.push_back({Root, Why, Loc});
    return;
  }
  auto It = PrimalNames.find(Root);
  std::string Name = It != PrimalNames.end() ? It->second : Root->getName();
  const char *Form = "atomicAdd";
  switch (K) {
  case AccumulationKind::Plain:
    Form = "plain +=";
    break;
  case AccumulationKind::WarpAtomic:
    Form = "warp-aggregated atomicAdd";
    break;
  case AccumulationKind::Tile:
    Form = "shared-memory tile";
    break;
  default:
    break;
  }
  std::string Tail;
  if (SharedAtomic) {
    if (!Access.empty())
      Tail += ", for the access " + Access;
    std::string Advice = atomicAdvice(Owned->second.Result, Name);
    if (!Advice.empty())
      Tail += "; to make it atomic-free: " + Advice;
  }
  Diags.remark(Loc, "adjoint store to '" + Name + "': " + Form + " (" + Why +
                        ")" + Tail);
}

std::string AccumulationPolicy::tileFunction(const char *Name,
                                             const OwnershipResult &R) {
  return std::string("meshad::") + Name + "<" +
         std::to_string(R.TileStride) + ", " + std::to_string(R.TileLo) +
         ", " + std::to_string(R.TileHi) + ">";
}

unsigned long long AccumulationPolicy::tileSlots(const Type *Elem,
                                                const OwnershipResult &R,
                                                TypeContext &Types,
                                                unsigned long long &UsedBytes,
                                                std::string &WhyNot) {
  unsigned long long Rows =
      static_cast<unsigned long long>(R.TileHi - R.TileLo) + 1;
  unsigned long long ElemBytes =
      Elem->getUnqualified() == Types.getFloat() ? 4 : 8;
  unsigned long long Columns =
      std::min<unsigned long long>(MaxBlockThreads, (MaxTileBytes - UsedBytes) /
                                                        (Rows * ElemBytes)) &
      ~31ULL;
  if (Columns < MinTileColumns) {
    WhyNot = "its tile would not fit " + std::to_string(MinTileColumns) +
             " threads in " + std::to_string(MaxTileBytes) +
             " bytes of shared memory";
    return 0;
  }
  UsedBytes += Rows * Columns * ElemBytes;
  return Rows * Columns;
}

const Expr *AccumulationPolicy::tileAdd(IRBuilder &B, const Expr *Adjoint,
                                        const Var *Root, const Expr *Value,
                                        const TileInfo &T) const {
  const auto *I = llvm::dyn_cast<IndexExpr>(Adjoint);
  if (!I)
    return nullptr;
  Module &M = B.getModule();
  const Type *Ty = Adjoint->getType()->getUnqualified();
  return M.create<CallExpr>(
      M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
      tileFunction("tileAdd", T.Result), -1,
      std::vector<const Expr *>{B.ref(const_cast<Var *>(T.Tile)),
                                B.ref(const_cast<Var *>(Root)), I->getIndex(),
                                B.cast(Ty, Value)});
}

void AccumulationPolicy::emit(IRBuilder &B, const Expr *Adjoint,
                              const Var *Root, const Expr *Value,
                              BlockStmt *Out, clang::SourceLocation Loc) {
  if (!Value)
    return;
  // CUDA's vector types (double3...) have no += and no atomicAdd: add
  // component by component, each in the form its store gets.
  const Type *AdjTy = Adjoint->getType()->getUnqualified();
  if (AdjTy->isVector()) {
    static const char *Fields[] = {"x", "y", "z", "w"};
    const Type *Elem = AdjTy->getElement();
    for (unsigned I = 0; I < AdjTy->getCount() && I < 4; ++I)
      emit(B, B.member(Adjoint, Fields[I], Elem), Root,
           B.member(Value, Fields[I], Elem), Out, Loc);
    return;
  }
  // A uniform element's stores go to the thread's partial sum.
  auto U = UniformElements.find(Root);
  if (U != UniformElements.end())
    if (const auto *I = llvm::dyn_cast<IndexExpr>(Adjoint))
      if (const auto *Lit = llvm::dyn_cast<IntLitExpr>(I->getIndex()))
        if (Lit->getValue() == U->second.first) {
          PrimalNames.try_emplace(U->second.second, PrimalNames.lookup(Root));
          Adjoint = B.ref(const_cast<Var *>(U->second.second));
          Root = U->second.second;
        }
  std::string Why;
  AccumulationKind K = decide(Root, &Why);
  const Expr *TileStore = nullptr;
  if (K == AccumulationKind::Tile) {
    TileStore = tileAdd(B, Adjoint, Root, Value, Tiles.find(Root)->second);
    if (!TileStore)
      K = AccumulationKind::Atomic;
  }
  bool Shared = Root &&
                (Root->isParam() || Root->isShared() || BlockSums.count(Root)) &&
                Target != CudaTarget::HostOnly;
  if (Shared)
    remark(Root, K, Why, Loc, primalAccess(Adjoint, Root));
  if (TileStore) {
    Out->append(B.getModule().create<ExprStmt>(TileStore));
    return;
  }
  if (K == AccumulationKind::Plain) {
    Out->append(B.assign(Adjoint, AssignOp::AddAssign, Value));
    return;
  }
  // atomicAdd(&adjoint, value); *p becomes p.
  const Expr *Addr = nullptr;
  if (const auto *U = llvm::dyn_cast<UnaryExpr>(Adjoint))
    if (U->getOp() == UnaryOp::Deref)
      Addr = U->getSub();
  if (!Addr)
    Addr = B.addrOf(Adjoint);
  const Type *Ty = Adjoint->getType()->getUnqualified();
  const char *Name = "atomicAdd";
  if (K == AccumulationKind::HostDeviceAtomic)
    Name = "meshad::atomicAccumulate";
  else if (K == AccumulationKind::WarpAtomic)
    Name = "meshad::warpAtomicAdd";
  auto *Call = B.getModule().create<CallExpr>(
      Ty, CallExpr::CalleeKind::Intrinsic, Name, -1,
      std::vector<const Expr *>{Addr, B.cast(Ty, Value)});
  Out->append(B.getModule().create<ExprStmt>(Call));
}
