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
    Say(std::string(getOwnershipName(R.Class)) + ": " + R.Reason);
    if (R.Class == OwnershipClass::ThreadExclusive)
      return AccumulationKind::Plain;
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
  bool Shared = Root &&
                (Root->isParam() || Root->isShared() || BlockSums.count(Root)) &&
                Target != CudaTarget::HostOnly;
  if (Shared && Loc.isValid() && Diags.areRemarksEnabled() &&
      Remarked.insert(Loc.getRawEncoding()).second) {
    auto It = PrimalNames.find(Root);
    std::string Name = It != PrimalNames.end() ? It->second : Root->getName();
    Diags.remark(Loc, "adjoint store to '" + Name + "': " +
                          (K == AccumulationKind::Plain ? "plain +="
                                                        : "atomicAdd") +
                          " (" + Why + ")");
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
  const char *Name = K == AccumulationKind::Atomic ? "atomicAdd"
                                                   : "meshad::atomicAccumulate";
  auto *Call = B.getModule().create<CallExpr>(
      Ty, CallExpr::CalleeKind::Intrinsic, Name, -1,
      std::vector<const Expr *>{Addr, B.cast(Ty, Value)});
  Out->append(B.getModule().create<ExprStmt>(Call));
}
