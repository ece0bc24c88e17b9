//===- Transform/AccumulationPolicy.cpp - How adjoints are added ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Transform/AccumulationPolicy.h"

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
      Say(Text + "; summed per block in shared memory, then one plain += per "
                 "element (atomicAdd for the halo)");
      return AccumulationKind::TileAtomic;
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

void AccumulationPolicy::remark(const Var *Root, AccumulationKind K,
                                const std::string &Why,
                                clang::SourceLocation Loc) {
  if (!Loc.isValid() || !Diags.areRemarksEnabled() ||
      !Remarked.insert(Loc.getRawEncoding()).second)
    return;
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
  case AccumulationKind::TileAtomic:
    Form = "shared-memory tile";
    break;
  default:
    break;
  }
  Diags.remark(Loc, "adjoint store to '" + Name + "': " + Form + " (" + Why +
                        ")");
}

const Expr *AccumulationPolicy::tileElement(IRBuilder &B, const Expr *Adjoint,
                                            const TileInfo &T) const {
  const auto *I = llvm::dyn_cast<IndexExpr>(Adjoint);
  if (!I)
    return nullptr;
  Module &M = B.getModule();
  const Type *LL = M.getTypes().getInt("long long");
  const Expr *Base = M.create<CallExpr>(
      LL, CallExpr::CalleeKind::Intrinsic, "meshad::tileBase", -1,
      std::vector<const Expr *>{B.intLit(T.Result.TileStride),
                                B.intLit(T.Result.TileLo)});
  const Expr *Slot = B.sub(B.cast(LL, I->getIndex()), Base);
  return B.index(B.ref(const_cast<Var *>(T.Tile)), Slot);
}

void AccumulationPolicy::emit(IRBuilder &B, const Expr *Adjoint,
                              const Var *Root, const Expr *Value,
                              BlockStmt *Out, clang::SourceLocation Loc) {
  if (!Value)
    return;
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
  if (K == AccumulationKind::TileAtomic) {
    if (const Expr *Slot = tileElement(B, Adjoint, Tiles.find(Root)->second))
      Adjoint = Slot;
    else
      K = AccumulationKind::Atomic;
  }
  bool Shared = Root &&
                (Root->isParam() || Root->isShared() || BlockSums.count(Root)) &&
                Target != CudaTarget::HostOnly;
  if (Shared)
    remark(Root, K, Why, Loc);
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
