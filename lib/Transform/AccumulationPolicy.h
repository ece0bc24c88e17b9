//===- Transform/AccumulationPolicy.h - How adjoints are added ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every `adjoint += contribution` of reverse mode goes through this one
/// policy point. It decides, per store, whether other threads may add to the
/// same adjoint concurrently:
/// - adjoints of locals, and anything in host-only code: plain +=;
/// - adjoints in __shared__ memory, and adjoints in global memory reached
///   through kernel (or device-function) parameters: atomicAdd;
/// - in __host__ __device__ code, meshad::atomicAccumulate (atomic on the
///   device, plain on the host).
/// The ownership analysis (a later stage) refines the global-memory case.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_ACCUMULATIONPOLICY_H
#define MESHAD_TRANSFORM_ACCUMULATIONPOLICY_H

#include "IR/Builder.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <string>

namespace meshad {

/// How one adjoint store is written.
enum class AccumulationKind { Plain, Atomic, HostDeviceAtomic };

/// Decides and emits adjoint accumulations for one derived function.
class AccumulationPolicy {
public:
  explicit AccumulationPolicy(ir::CudaTarget Target) : Target(Target) {}

  /// How to add to the adjoint lvalue \p Adjoint, whose storage is rooted
  /// at \p Root (a local, shared array or parameter of the derived function).
  AccumulationKind decide(const ir::Var *Root) const;

  /// Declares that \p V, an adjoint parameter, points to memory private to
  /// the calling thread (a pullback's scalar adjoints point to the caller's
  /// locals).
  void addThreadPrivate(const ir::Var *V) { Private.insert(V); }

  /// Appends `Adjoint += Value` in the decided form to \p Out.
  void emit(ir::IRBuilder &B, const ir::Expr *Adjoint, const ir::Var *Root,
            const ir::Expr *Value, ir::BlockStmt *Out) const;

private:
  ir::CudaTarget Target;
  llvm::SmallPtrSet<const ir::Var *, 4> Private;
};

} // namespace meshad

#endif // MESHAD_TRANSFORM_ACCUMULATIONPOLICY_H
