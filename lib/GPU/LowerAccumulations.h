//===- GPU/LowerAccumulations.h - Choose the form of adjoint adds -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The pass lower-accumulations (GPU/GpuPasses, addLoweringPasses): every
/// AssignOp::Accumulate of the finished function becomes the form the
/// accumulation policy decides for its target, with one remark each. A
/// function of reverse mode (gradient, pullback) is lowered as the
/// AccumulationFacts decide, those reverse mode hands over and those
/// GPU/KernelAdjoints adds (lowerReverseAccumulations), then the adds of its
/// reverse sweep to one element are combined (GPU/AtomicCombiner). A
/// composed derivative (AD/Hvp) is lowered from the finished function alone
/// (lowerAccumulations):
/// - host code, a thread's locals and memory private to it: plain +=;
/// - a kernel's pointer parameters: the ownership analysis runs on the
///   finished function itself (its own accesses decide, whatever modes
///   produced it): plain += where no two threads touch an element, behind
///   the launch-shape check the proof assumes; warp-aggregated atomics for
///   uniform symbolic elements; for tile-exclusive arrays (a stencil's), a
///   shared-memory tile per block (meshad/codegen/AdjointTile.h), as
///   gradients get, when every thread reaches the end of the kernel (no
///   return), the array is only added to, and the tile fits, turned into
///   the gather form where the kernel allows it (GPU/GatherTiles); atomicAdd
///   otherwise; a thread's adds to one element combined into one;
/// - a kernel's pointer parameter that holds a scalar's result (every use
///   is an Accumulate into `*P` or `P[0]`): summed in a register per thread
///   and reduced per block at the end of the kernel with
///   meshad::blockReduceAtomicAdd, a block barrier, so only when the kernel
///   has no return statement (every thread reaches its end); else atomics
///   and the remark says why;
/// - __shared__ memory and device functions' pointer parameters: atomicAdd
///   (meshad::atomicAccumulate in __host__ __device__ code).
///
/// \code
///   DerivedFunctionSet Derived;  ...
///   lowerAccumulations(M, *Hvp, Diags, /*ForceAtomics=*/false, {{Hx, "x"}});
///   assert(!hasAccumulations(*Hvp));
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_LOWERACCUMULATIONS_H
#define MESHAD_GPU_LOWERACCUMULATIONS_H

#include "GPU/Ownership.h"
#include "IR/IR.h"
#include "Support/Diagnostics.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace meshad {

class AccumulationPolicy;

/// The adjoint array \p Adjoint of a kernel's pointer parameter \p Param.
struct AdjointArray {
  const ir::Var *Adjoint;
  const ir::Var *Param;
};

/// What reverse mode knows about the adjoints of a function it built
/// (gradient or pullback) that the finished IR does not say, and what the
/// lowering of its Accumulates (lower-accumulations) decides about its
/// kernel adjoint arrays (GPU/KernelAdjoints: Ownership, UniformElements,
/// Tiles) and scalar parameters (GPU/ScalarSums: BlockSums).
struct AccumulationFacts {
  ir::CudaTarget Target = ir::CudaTarget::HostOnly;
  /// The primal function, and whether this is its gradient (not a
  /// pullback).
  const ir::Function *Primal = nullptr;
  bool Gradient = false;
  /// The adjoint arrays of the kernel's selected pointer parameters, in
  /// parameter order.
  std::vector<AdjointArray> KernelArrays;
  /// The adjoints of the kernel's selected scalar parameters (a pointer to
  /// one value each), in parameter order; reverse mode adds to them (`*_d_k`)
  /// or, when the kernel overwrites the parameter, to a local copy that the
  /// epilogue adds to them (GPU/ScalarSums decides their GPU form).
  std::vector<AdjointArray> KernelScalars;
  /// Unused names for new locals (the function's name scope), and unused
  /// numbered ones ("_z0", "_z1": NameScope::numbered).
  std::function<std::string(const std::string &)> FreshName;
  std::function<std::string(const std::string &)> NumberedName;
  /// The adjoints of a gradient kernel's write-only outputs whose one
  /// marked seed reset (AssignStmt::isSeedReset, outside loops) is the
  /// seed's last use (the output's only store, reset once the sweep has
  /// read the seed): the lowering decides whether it waits until after the
  /// epilogue (GPU/SeedResets, placeSeedResets). Variables, not statements:
  /// the lowering's steps before it may clone the body (GPU/ScalarSums).
  llvm::SmallPtrSet<const ir::Var *, 4> LastSeedUses;
  /// atomics=all: the ownership analysis is off.
  bool ForceAtomics = false;
  /// uniform-sums=warp: block-uniform adds of reverse loops summed per warp
  /// only (GPU/BlockUniformReduce).
  bool UniformSumsPerWarp = false;
  /// ownership-crosscheck: classify the kernel arrays on the primal and on
  /// the finished function, warn at each difference (GPU/OwnershipCrossCheck).
  bool OwnershipCrossCheck = false;
  /// Adjoint parameters (and registers) named by the user's parameter
  /// whose adjoint they hold, for remarks.
  std::map<const ir::Var *, std::string> PrimalNames;
  /// Adjoint parameters pointing to memory private to the calling thread.
  std::vector<const ir::Var *> ThreadPrivate;
  /// Registers summing a kernel scalar parameter's adjoint (reduced per
  /// block at the end of the kernel), with the parameter's name (decided by
  /// the lowering, GPU/ScalarSums).
  std::vector<std::pair<const ir::Var *, std::string>> BlockSums;
  struct Owned {
    const ir::Var *Adjoint;
    OwnershipResult Result;
    std::string PrimalName;
  };
  /// The ownership of each kernel adjoint array (decided by the lowering).
  std::vector<Owned> Ownership;
  struct UniformElement {
    const ir::Var *Adjoint;
    long long Index;
    const ir::Var *Part;
  };
  /// Uniform read-only elements whose adds go to a register.
  std::vector<UniformElement> UniformElements;
  struct Tile {
    const ir::Var *Adjoint;
    const ir::Var *Tile;
    OwnershipResult Result;
  };
  /// Tile-exclusive adjoint arrays and their shared-memory tiles.
  std::vector<Tile> Tiles;

  /// Configures \p P with these facts.
  void configure(AccumulationPolicy &P) const;
};

/// Replaces every Accumulate of \p F, a function of reverse mode, by the
/// form that \p Policy (configured from \p Facts) decides, with its remark;
/// then, in device code, combines the adds of the reverse sweep to the same
/// element (GPU/AtomicCombiner), leaving those of the epilogue (after the
/// region marker EpilogueBegin, IR/Markers.h) apart; adds the launch-shape
/// check that the plain adds of the Ownership rely on where the setup ends
/// (the marker SetupEnd); and removes the markers.
void lowerReverseAccumulations(ir::Module &M, ir::Function &F,
                               AccumulationPolicy &Policy,
                               const AccumulationFacts &Facts);

/// Merges into \p Dims (0: none yet) the launch shape that the plain or
/// tiled adds of an array with ownership \p R rely on: 1 (a 1D launch) is
/// stricter than 2.
void mergeLaunchDims(unsigned &Dims, const OwnershipResult &R);

/// Replaces every Accumulate in \p F by its decided form. With
/// \p ForceAtomics the ownership analysis is off (atomics=all). Remarks
/// name a target by its entry in \p UserNames (the user's parameter whose
/// derivative it holds), else by its own name.
void lowerAccumulations(ir::Module &M, ir::Function &F, DiagnosticSink &Diags,
                        bool ForceAtomics,
                        const std::map<const ir::Var *, std::string> &UserNames =
                            {});

/// True when \p F still has an AssignOp::Accumulate.
bool hasAccumulations(const ir::Function &F);

} // namespace meshad

#endif // MESHAD_GPU_LOWERACCUMULATIONS_H
