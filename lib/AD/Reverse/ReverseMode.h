//===- AD/Reverse/ReverseMode.h - Reverse (adjoint) mode --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reverse mode as an IR-to-IR transformation. A derived function runs a
/// forward sweep (the primal, saving what the reverse sweep needs before it
/// is overwritten, recording branches and loop trip counts) and then a
/// reverse sweep (the statements backwards, accumulating adjoints _d_v).
///
/// - Gradient (f_grad, f_grad_<i>_<j>): the primal's parameters, then one
///   adjoint per selected parameter (T* for a scalar, the array's type for an
///   array); the seed of the return value is 1. For void functions and
///   kernels the selected arrays' adjoints are the seeds on entry and the
///   results on exit.
/// - Pullback of a callee (g_pullback): the primal's parameters, the seed of
///   the return value (if any), then one adjoint per active parameter.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_REVERSEMODE_H
#define MESHAD_TRANSFORM_REVERSEMODE_H

#include "IR/IR.h"
#include "Support/Diagnostics.h"
#include "AD/DerivedFunctions.h"
#include "AD/Reverse/RecordingPrimal.h"

#include <string>
#include <vector>

namespace meshad {

/// Generates reverse-mode derivatives into a DerivedFunctionSet.
///
/// \code
///   ReverseModeTransformer RM(Module, Diags, Derived);
///   ir::Function *G = RM.deriveGradient(F, {true, false}, "f_grad_0");
/// \endcode
class ReverseModeTransformer {
public:
  ReverseModeTransformer(ir::Module &M, DiagnosticSink &Diags,
                         DerivedFunctionSet &Derived)
      : M(M), Diags(Diags), Derived(Derived), Recording(M, Diags, Derived) {}

  /// The gradient w.r.t. the parameters flagged in \p Selected. Null after
  /// reporting errors. With \p KeepSeeds (kernels), the seeds of outputs
  /// that the kernel only writes are read and left unchanged. With
  /// \p WithValue (meshad::WithValue), it also returns the primal's return
  /// value and leaves the primal's outputs (AD/Reverse/ReverseValue.cpp).
  /// With \p AfterPrimal (meshad::AfterPrimal, kernels), loops whose final
  /// state the primal stores are not run again (ForwardFromOutputs.h). A
  /// gradient kernel is finished by the GPU passes of GPU/GpuPasses.h.
  ir::Function *deriveGradient(ir::Function *Primal,
                               const std::vector<bool> &Selected,
                               const std::string &Name,
                               clang::SourceLocation RequestLoc,
                               bool KeepSeeds = false, bool WithValue = false,
                               bool AfterPrimal = false);

  /// The gradient as the inner function of a composition (forward over
  /// reverse, see AD/Hvp.h): every adjoint store is an
  /// AssignOp::Accumulate whose GPU form is left to the lowering that runs on
  /// the finished function (GPU/LowerAccumulations), and no ownership-driven
  /// strategy (block sums, tiles, gathers, exclusive adds) is applied.
  ir::Function *deriveUnloweredGradient(ir::Function *Primal,
                                        const std::vector<bool> &Selected,
                                        const std::string &Name,
                                        clang::SourceLocation RequestLoc,
                                        bool KeepSeeds);

  /// The pullback of a callee whose parameters flagged in \p Active carry
  /// adjoints. Shared between callers.
  ///
  /// \p Private flags array parameters whose adjoint memory is private to
  /// the calling thread (a local array of the caller): their adjoints are
  /// added to plainly, never atomically (CUDA atomics need global or shared
  /// memory). Such pullbacks are named with "_local<i>" suffixes.
  ir::Function *derivePullback(ir::Function *Primal,
                               const std::vector<bool> &Active,
                               const std::vector<bool> &Private,
                               clang::SourceLocation CallLoc);

  /// Ignore the ownership analysis: every adjoint store that other threads
  /// can reach is an atomicAdd (the benchmark baseline).
  void setForceAtomics(bool Force) { ForceAtomics = Force; }
  bool getForceAtomics() const { return ForceAtomics; }

  /// Sum block-uniform adds of reverse loops per warp, not per block.
  void setUniformSumsPerWarp(bool W) { UniformSumsPerWarp = W; }
  bool getUniformSumsPerWarp() const { return UniformSumsPerWarp; }

  /// Classify kernel adjoint arrays both ways and warn at each difference
  /// (GPU/OwnershipCrossCheck).
  void setOwnershipCrossCheck(bool C) { OwnershipCrossCheck = C; }
  bool getOwnershipCrossCheck() const { return OwnershipCrossCheck; }

  /// Verify the IR after each GPU pass that finishes a gradient kernel
  /// (IR/PassPipeline.h).
  void setVerify(bool V) { Verify = V; }
  bool isVerifying() const { return Verify; }

  /// Callees that log what they overwrite (AD/Reverse/RecordingPrimal.h).
  RecordingPrimals &getRecording() { return Recording; }

private:
  ir::Function *derive(ir::Function *Primal, const std::vector<bool> &Selected,
                       const std::string &Name,
                       clang::SourceLocation RequestLoc, bool KeepSeeds,
                       bool Unlowered, bool WithValue = false,
                       bool AfterPrimal = false);

  ir::Module &M;
  DiagnosticSink &Diags;
  DerivedFunctionSet &Derived;
  bool ForceAtomics = false;
  bool UniformSumsPerWarp = false;
  bool OwnershipCrossCheck = false;
  bool Verify = false;
  RecordingPrimals Recording;
};

} // namespace meshad

#endif // MESHAD_TRANSFORM_REVERSEMODE_H
