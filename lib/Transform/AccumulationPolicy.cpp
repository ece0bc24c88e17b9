//===- Transform/AccumulationPolicy.cpp - How adjoints are added ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Transform/AccumulationPolicy.h"

using namespace meshad;
using namespace meshad::ir;

AccumulationKind AccumulationPolicy::decide(const Var *Root) const {
  if (Target == CudaTarget::HostOnly || !Root || Private.count(Root))
    return AccumulationKind::Plain;
  switch (Root->getStorage()) {
  case Var::Storage::Local:
  case Var::Storage::Global:
    return AccumulationKind::Plain;
  case Var::Storage::Shared:
    return AccumulationKind::Atomic;
  case Var::Storage::Param:
    // Adjoint parameters point to memory other threads may update.
    if (!Root->getType()->isPointer())
      return AccumulationKind::Plain;
    return Target == CudaTarget::HostDevice
               ? AccumulationKind::HostDeviceAtomic
               : AccumulationKind::Atomic;
  }
  return AccumulationKind::Plain;
}

void AccumulationPolicy::emit(IRBuilder &B, const Expr *Adjoint,
                              const Var *Root, const Expr *Value,
                              BlockStmt *Out) const {
  if (!Value)
    return;
  AccumulationKind K = decide(Root);
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
