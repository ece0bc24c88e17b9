//===- GPU/BlockUniformity.h - Values the same in every thread --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Which values of a kernel are block-uniform: the same in every thread of a
/// block that evaluates them (GPU/BlockUniformReduce asks it of adjoint
/// addresses in loops). Uniform are literals, blockIdx, blockDim, gridDim
/// and warpSize (never threadIdx), parameters the kernel never assigns,
/// loads through read-only pointer parameters (pointer to const, never
/// stored to) at uniform indices, arithmetic, casts, math functions and
/// pure intrinsics of uniform operands, and the locals in a set of uniform
/// variables. The set starts from the locals assigned once in the whole
/// kernel (a declaration with an initializer or one `=`), whose address is
/// never taken, from a uniform value (`tile = blockIdx.y * gridDim.x +
/// blockIdx.x; begin = ranges[2 * tile];`); a caller walking a loop body
/// adds and removes the locals it assigns (BlockUniformReduce::walk).
///
/// \code
///   BlockUniformity U(Kernel);
///   VarSet Env = U.global();
///   Env.insert(Counter);                   // the same in every lane here
///   if (U.isUniform(Index, Env)) ...
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_BLOCKUNIFORMITY_H
#define MESHAD_GPU_BLOCKUNIFORMITY_H

#include "IR/IR.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace meshad {

using VarSet = llvm::SmallPtrSet<const ir::Var *, 16>;

class BlockUniformity {
public:
  explicit BlockUniformity(const ir::Function &F);

  /// The variables uniform wherever they are read.
  const VarSet &global() const { return Global; }

  /// True when \p E is the same in every thread that evaluates it, the
  /// variables of \p Env being uniform.
  bool isUniform(const ir::Expr *E, const VarSet &Env) const {
    return firstNonUniform(E, Env) == nullptr;
  }

  /// True when the address of \p V is taken somewhere in the kernel (its
  /// value may change behind its assignments).
  bool isAddressTaken(const ir::Var *V) const { return AddressTaken.count(V); }

private:
  /// The first subexpression of \p E that makes it vary between threads,
  /// or null.
  const ir::Expr *firstNonUniform(const ir::Expr *E, const VarSet &Env) const;
  bool isReadOnly(const ir::Expr *Base) const;
  void findGlobal(const ir::Function &F);

  VarSet Global;
  VarSet ReadOnly;
  VarSet AddressTaken;
};

} // namespace meshad

#endif // MESHAD_GPU_BLOCKUNIFORMITY_H
